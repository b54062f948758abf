"""Many MCP tools cost nothing until used: one search tool instead of every schema.

::

    offered(tools, window, policy, found)
        every tool, when they number at most ``policy.max_tools`` (40) and their
        definitions take at most ``policy.share`` (10%) of the window; otherwise
        ``mcp_tool_search`` plus the tools a search has already shown (``found``)

``mcp_tool_search(query, limit)`` ranks the tools by the query's words in their names and
descriptions and returns each hit's name, description and input schema; from the next
model call on, those tools are offered like any other, so the model calls them directly.
A found tool stays offered for the rest of the session (the request prefix stays stable).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from earshot.core.tools.base import AnyTool, PreparedCall, ToolContext, ToolError, ToolResult
from earshot.mcp._tools import McpTool
from earshot.providers.types import JSONObject, JSONValue, ToolSpec

SEARCH_TOOL = "mcp_tool_search"
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class SearchPolicy:
    share: float = 0.10
    max_tools: int = 40
    enabled: bool = True


def _size(tools: Sequence[McpTool]) -> int:
    """Estimated tokens of the definitions (4 bytes a token, as the context gauge)."""
    return sum(len(msgspec.json.encode(t.spec())) for t in tools) // 4


def needs_search(tools: Sequence[McpTool], window: int, policy: SearchPolicy) -> bool:
    if not policy.enabled or not tools:
        return False
    too_big = window > 0 and _size(tools) > policy.share * window
    return len(tools) > policy.max_tools or too_big


def offered(
    tools: Sequence[McpTool], window: int, policy: SearchPolicy, found: set[str]
) -> list[AnyTool]:
    if not needs_search(tools, window, policy):
        return list(tools)
    shown: list[AnyTool] = [SearchTool(tools, found)]
    return shown + [t for t in tools if t.name in found]


_SCHEMA: JSONObject = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "words naming what the tool should do, or a server or tool name",
        },
        "limit": {"type": "integer", "description": "most tools to return (default 5)"},
    },
    "required": ["query"],
}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class SearchTool:
    """``mcp_tool_search``: find MCP tools by query; the hits become callable."""

    name = SEARCH_TOOL
    read_only = True

    def __init__(self, tools: Sequence[McpTool], found: set[str]) -> None:
        self._tools = list(tools)
        self._found = found
        servers = sorted({t.server for t in tools})
        self.description = (
            f"Search the {len(tools)} tools of the MCP servers ({', '.join(servers)}) that "
            "are not listed here. Returns each match's name, description and input schema; "
            "after a search, the tools it returned can be called directly by name."
        )

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, input_schema=_SCHEMA)

    def rank(self, query: str, limit: int) -> list[McpTool]:
        terms = _words(query)
        scored: list[tuple[int, int, McpTool]] = []
        for index, tool in enumerate(self._tools):
            name = set(_words(tool.name))
            text = set(_words(tool.description))
            score = sum(3 * (term in name) + (term in text) for term in terms)
            if query.strip() == tool.name or query.strip() == tool.remote_name:
                score += 100
            if score:
                scored.append((-score, index, tool))
        return [tool for _, _, tool in sorted(scored)[:limit]]

    def prepare(self, raw: JSONValue, ctx: ToolContext) -> PreparedCall:
        from earshot.core.tools.base import PermissionRequest

        query = raw.get("query") if isinstance(raw, dict) else None
        limit = raw.get("limit", 5) if isinstance(raw, dict) else 5
        if not isinstance(query, str) or not query.strip():
            raise ToolError("mcp_tool_search needs a query: words naming what you need")
        count = limit if isinstance(limit, int) and 0 < limit <= 20 else 5

        async def run() -> ToolResult:
            hits = self.rank(query, count)
            if not hits:
                return ToolResult.text(
                    f"no MCP tool matches {query!r}; try other words", brief="no match"
                )
            self._found.update(t.name for t in hits)
            rows = [
                msgspec.json.encode(
                    {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                ).decode()
                for t in hits
            ]
            return ToolResult.text(
                "These tools can now be called by name:\n" + "\n".join(rows),
                brief=f"{len(hits)} tools found",
            )

        request = PermissionRequest(tool=self.name, kind="read", detail=query)
        return PreparedCall(request=request, run=run)


__all__ = ["SEARCH_TOOL", "SearchPolicy", "SearchTool", "needs_search", "offered"]
