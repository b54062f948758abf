"""An MCP server's tool as an earshot tool, and its results as our result parts.

::

    McpTool       name mcp__<server>__<tool>; the server's input schema as written;
                  a name that has to change (over 64 characters, or characters a
                  provider refuses) is cut and ends with _ and 8 hex digits of a hash of
                  the whole name: stable across sessions, distinct for distinct tools
                  never read-only (a readOnlyHint is the server's word, not a grant), so
                  every call goes through the gate as a mutating call ("other" kind)
    to_result     text -> text; image -> image (base64); embedded text resource -> text;
                  blob resource, audio, resource link -> a line naming it;
                  structuredContent -> JSON text when there is no text block (servers
                  put a text rendering of it in the content);
                  isError -> an error result; text capped like bash output

The call itself is ``Call`` (a coroutine taking the arguments and the call's progress
reporter, which the server's progress notifications feed), given by the server that owns
the tool: a dead server or a timeout becomes an error result the model reads.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

from earshot.core.tools._output import cap_text
from earshot.core.tools.base import (
    PermissionRequest,
    PreparedCall,
    ProgressFn,
    ToolContext,
    ToolResult,
)
from earshot.providers.types import ImagePart, JSONObject, JSONValue, TextPart, ToolSpec

if TYPE_CHECKING:
    from mcp.types import CallToolResult

MAX_RESULT_CHARS = 30_000
MAX_RESULT_LINES = 2_000
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

Call = Callable[[JSONObject, ProgressFn], Awaitable[ToolResult]]


def tool_name(server: str, tool: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``mcp__<server>__<tool>`` when every provider accepts it as it is (at most 64
    characters of ``[A-Za-z0-9_-]``); else its safe form cut to fit, with ``_`` and a
    short hash of the whole name at the end, so two long names that share their first 64
    characters stay apart and each keeps its name from one session to the next. A name
    in ``taken`` (another tool of the server already has it) gets a longer hash."""
    full = f"mcp__{server}__{tool}"
    safe = _UNSAFE.sub("_", full)
    if safe == full and len(full) <= MAX_NAME and full not in taken:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()
    for size in (8, 16, 64):
        name = f"{safe[: MAX_NAME - size - 1]}_{digest[:size]}"
        if name not in taken:
            return name
    return name  # pragma: no cover - a sha256 collision


def _schema(raw: JSONValue) -> JSONObject:
    schema = dict(raw) if isinstance(raw, dict) else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


@dataclass(frozen=True)
class McpTool:
    """One tool of one server, callable through the gate like any mutating tool."""

    name: str
    server: str
    remote_name: str
    description: str
    input_schema: JSONObject
    call: Call
    read_only: bool = False

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name, description=self.description, input_schema=self.input_schema
        )

    def prepare(self, raw: JSONValue, ctx: ToolContext) -> PreparedCall:
        from earshot.core.tools.base import ToolError

        if isinstance(raw, str):
            raise ToolError(
                f"arguments for {self.name} were not valid JSON: {raw[:200]!r}; "
                "send a JSON object matching the tool's schema",
                "invalid arguments",
            )
        arguments: JSONObject = raw if isinstance(raw, dict) else {}
        shown = msgspec.json.encode(arguments).decode()
        request = PermissionRequest(
            tool=self.name,
            kind="other",
            detail=f"{self.server} server: {self.remote_name} {shown[:500]}",
        )

        async def run() -> ToolResult:
            return await self.call(arguments, ctx.progress)

        return PreparedCall(request=request, run=run)


def make_tool(
    server: str,
    name: str,
    description: str | None,
    schema: JSONValue,
    call: Call,
    taken: set[str] | frozenset[str] = frozenset(),
) -> McpTool:
    return McpTool(
        name=tool_name(server, name, taken),
        server=server,
        remote_name=name,
        description=(description or f"{name} (from the {server} MCP server)").strip(),
        input_schema=_schema(schema),
        call=call,
    )


def _cap(text: str) -> str:
    return cap_text(
        text,
        max_chars=MAX_RESULT_CHARS,
        max_lines=MAX_RESULT_LINES,
        hint="the MCP server's result was cut",
    )


def to_result(result: CallToolResult, *, server: str, tool: str) -> ToolResult:
    """Our result for an MCP ``CallToolResult`` (see the module docstring)."""
    from mcp.types import (
        AudioContent,
        BlobResourceContents,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )

    parts: list[TextPart | ImagePart] = []
    texts: list[str] = []
    for block in result.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
            parts.append(TextPart(text=_cap(block.text)))
        elif isinstance(block, ImageContent):
            parts.append(ImagePart(media_type=block.mime_type, data=block.data))
        elif isinstance(block, EmbeddedResource):
            inner = block.resource
            if isinstance(inner, TextResourceContents):
                parts.append(TextPart(text=_cap(f"[resource {inner.uri}]\n{inner.text}")))
            elif isinstance(inner, BlobResourceContents):
                kind = inner.mime_type or "binary"
                parts.append(TextPart(text=f"[resource {inner.uri}: {kind}, not shown]"))
        elif isinstance(block, ResourceLink):
            about = f" - {block.description}" if block.description else ""
            parts.append(TextPart(text=f"[resource link {block.name}: {block.uri}{about}]"))
        elif isinstance(block, AudioContent):
            parts.append(TextPart(text=f"[audio {block.mime_type}, not shown]"))
    structured = result.structured_content
    if structured is not None and not texts:
        parts.append(TextPart(text=_cap(msgspec.json.encode(structured).decode())))
    if not parts:
        parts.append(TextPart(text="(no output)"))
    brief = f"{server}: {tool}" + (" failed" if result.is_error else "")
    return ToolResult(content=parts, is_error=bool(result.is_error), brief=brief)


__all__ = [
    "MAX_NAME",
    "Call",
    "McpTool",
    "make_tool",
    "to_result",
    "tool_name",
]
