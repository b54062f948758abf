"""Claude Code session files (``~/.claude/projects/<slug>/<uuid>.jsonl``) to earshot entries.

What maps: user prompts (text, images), assistant messages (text, thinking with its
signature, redacted thinking, tool calls; the lines Claude Code writes per content block
of one API message are merged back into one message), tool results (as ``tool``
messages, text and images), usage, cost, the model, the ``uuid``/``parentUuid`` tree and
compaction (a compacted session starts a new root, as the model then saw it).

What is dropped and counted: subagent (sidechain) lines, system and summary lines, file
history snapshots, synthetic API-error messages, server-side tool blocks, structured tool
results (the text the model saw is kept) and any line type not listed here. Tool names
stay Claude Code's (``Bash``, ``Read``, ...), which earshot's tools do not answer to.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from earshot.core.session._import_common import Builder, Imported, qualified, read_lines
from earshot.core.session.entries import MessageEntry
from earshot.core.session.live import new_entry_id
from earshot.providers.types import (
    ImagePart,
    JSONValue,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultContent,
    ToolResultPart,
    Usage,
)


class CcSource(msgspec.Struct):
    type: str = ""
    media_type: str | None = None
    data: str | None = None
    url: str | None = None


class CcBlock(msgspec.Struct):
    type: str
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None
    id: str | None = None
    name: str | None = None
    input: JSONValue = None
    tool_use_id: str | None = None
    content: str | list[CcBlock] | None = None
    is_error: bool | None = None
    source: CcSource | None = None


class CcUsage(msgspec.Struct):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


class CcMessage(msgspec.Struct):
    role: str = ""
    content: str | list[CcBlock] = ""
    model: str | None = None
    id: str | None = None
    usage: CcUsage | None = None


class CcLine(msgspec.Struct):
    type: str
    uuid: str | None = None
    parent_uuid: str | None = msgspec.field(default=None, name="parentUuid")
    timestamp: str = ""
    session_id: str | None = msgspec.field(default=None, name="sessionId")
    cwd: str | None = None
    is_sidechain: bool = msgspec.field(default=False, name="isSidechain")
    is_api_error: bool = msgspec.field(default=False, name="isApiErrorMessage")
    message: CcMessage | None = None
    cost_usd: float | None = msgspec.field(default=None, name="costUSD")


_DROPPED_TYPES = {
    "system": "system events",
    "summary": "summary lines",
    "file-history-snapshot": "file history snapshots",
}


def _image(source: CcSource | None) -> ImagePart | None:
    if source is None:
        return None
    media_type = source.media_type or "image/png"
    if source.type == "url" and source.url:
        return ImagePart(media_type=media_type, url=source.url)
    if source.data:
        return ImagePart(media_type=media_type, data=source.data)
    return None


def _result_content(content: str | list[CcBlock] | None, out: Imported) -> list[ToolResultContent]:
    if content is None:
        return []
    if isinstance(content, str):
        return [TextPart(text=content)]
    parts: list[ToolResultContent] = []
    for block in content:
        image = _image(block.source) if block.type == "image" else None
        if block.type == "text" and block.text is not None:
            parts.append(TextPart(text=block.text))
        elif image is not None:
            parts.append(image)
        else:
            out.dropped[f"tool result blocks of type {block.type!r}"] += 1
    return parts


class _Converter:
    def __init__(self) -> None:
        self.out = Imported(format="claude-code", entries=[])
        self.build = Builder()
        self.tool_names: dict[str, str] = {}
        # The open assistant message: (entry id, API message id, parts, line) until flushed.
        self.draft: tuple[str, str | None, list[Part], CcLine] | None = None
        self.pending_parent: str | None = None
        self.usage: Usage | None = None
        self.cost: float | None = None

    def flush(self) -> None:
        if self.draft is None:
            return
        entry_id, _, parts, line = self.draft
        self.draft = None
        parent = self.pending_parent
        model = line.message.model if line.message else None
        if not parts:
            self.out.dropped["empty assistant messages"] += 1
            self.build.alias(entry_id, parent)  # its lines' children attach to its parent
            return
        self.build.add(
            entry_id,
            parent,
            lambda i, p: _assistant_entry(
                i, p, line.timestamp, parts, self.usage, self.cost, model
            ),
        )

    def line(self, line: CcLine) -> None:
        out = self.out
        out.cwd = out.cwd or line.cwd
        out.source_id = out.source_id or line.session_id
        out.created = out.created or line.timestamp or None
        if line.type not in ("user", "assistant"):
            self.flush()
            out.dropped[_DROPPED_TYPES.get(line.type, f"{line.type!r} lines")] += 1
            self.build.drop(line.uuid, line.parent_uuid)
            return
        if line.is_sidechain:
            out.dropped["subagent (sidechain) messages"] += 1
            return
        message = line.message or CcMessage()
        if line.type == "assistant":
            self.assistant(line, message)
        else:
            self.flush()
            self.user(line, message)

    def assistant(self, line: CcLine, message: CcMessage) -> None:
        if line.is_api_error or message.model == "<synthetic>":
            self.flush()
            self.out.dropped["synthetic API-error messages"] += 1
            self.build.drop(line.uuid, line.parent_uuid)
            return
        parts: list[Part] = []
        blocks = (
            [CcBlock(type="text", text=message.content)]
            if isinstance(message.content, str)
            else message.content
        )
        for block in blocks:
            part = self.assistant_part(block)
            if part is not None:
                parts.append(part)
        if self.draft is not None and message.id and self.draft[1] == message.id:
            self.draft[2].extend(parts)  # another content block of the same API message
            self.build.alias(line.uuid, self.draft[0])
        else:
            self.flush()
            self.pending_parent = self.build.parent(line.parent_uuid)
            entry_id = line.uuid or new_entry_id()
            self.draft = (entry_id, message.id, parts, line)
            self.build.alias(line.uuid, entry_id)
            self.usage = None
            self.cost = None
        if message.usage is not None:
            self.usage = Usage(
                input=message.usage.input_tokens,
                output=message.usage.output_tokens,
                cache_read=message.usage.cache_read_input_tokens,
                cache_write=message.usage.cache_creation_input_tokens,
            )
        if line.cost_usd is not None:
            self.cost = (self.cost or 0.0) + line.cost_usd
        self.out.model = qualified("anthropic", message.model) or self.out.model

    def assistant_part(self, block: CcBlock) -> Part | None:
        match block.type:
            case "text":
                return TextPart(text=block.text or "")
            case "thinking":
                metadata: dict[str, JSONValue] = (
                    {"anthropic": {"signature": block.signature}} if block.signature else {}
                )
                return ReasoningPart(text=block.thinking or "", provider_metadata=metadata)
            case "redacted_thinking":
                return ReasoningPart(
                    text="", provider_metadata={"anthropic": {"redacted_data": block.data or ""}}
                )
            case "tool_use" if block.id and block.name:
                self.tool_names[block.id] = block.name
                arguments = block.input if block.input is not None else {}
                return ToolCallPart(id=block.id, name=block.name, input=arguments)
        self.out.dropped[f"assistant blocks of type {block.type!r}"] += 1
        return None

    def user(self, line: CcLine, message: CcMessage) -> None:
        parent = self.build.parent(line.parent_uuid)
        blocks = (
            [CcBlock(type="text", text=message.content)]
            if isinstance(message.content, str)
            else message.content
        )
        results: list[Part] = []
        prompt: list[Part] = []
        for block in blocks:
            if block.type == "tool_result" and block.tool_use_id:
                results.append(
                    ToolResultPart(
                        call_id=block.tool_use_id,
                        name=self.tool_names.get(block.tool_use_id, "unknown"),
                        content=_result_content(block.content, self.out),
                        is_error=bool(block.is_error),
                    )
                )
            elif block.type == "text" and block.text is not None:
                prompt.append(TextPart(text=block.text))
            elif block.type == "image" and (image := _image(block.source)) is not None:
                prompt.append(image)
            else:
                self.out.dropped[f"user blocks of type {block.type!r}"] += 1
        if not results and not prompt:
            self.build.drop(line.uuid, line.parent_uuid)
            return
        if results:
            foreign = line.uuid if not prompt else None
            parent = self.build.message(
                foreign, parent, Message(role="tool", parts=results), line.timestamp
            )
        if prompt:
            parent = self.build.message(
                line.uuid, parent, Message(role="user", parts=prompt), line.timestamp
            )
        self.build.alias(line.uuid, parent)


def _assistant_entry(
    entry_id: str,
    parent: str | None,
    timestamp: str,
    parts: list[Part],
    usage: Usage | None,
    cost: float | None,
    model: str | None,
) -> MessageEntry:
    return MessageEntry(
        id=entry_id,
        parent_id=parent,
        timestamp=timestamp,
        message=Message(role="assistant", parts=parts),
        usage=usage,
        cost_usd=cost,
        model=qualified("anthropic", model),
    )


def convert_claude_code(path: Path) -> Imported:
    converter = _Converter()
    for line in read_lines(path, CcLine, converter.out.dropped):
        converter.line(line)
    converter.flush()
    out = converter.out
    out.entries = converter.build.entries
    if out.entries:
        out.notes.append("tool names are Claude Code's (Bash, Read, Edit, ...), not earshot's")
    return out


__all__ = ["convert_claude_code"]
