"""pi session files (``~/.pi/agent/sessions/--<path>--/<time>_<uuid>.jsonl``, formats 1-3)
to earshot entries.

What maps: the header (cwd, id, time), the ``id``/``parentId`` tree (format 1 files, which
have none, become a chain), user, assistant and tool-result messages (text, images,
thinking, tool calls, usage, cost, provider/model), model changes, compactions (a cut
whose preamble is pi's summary; pi's first kept entry is the cut's), labels. Branch
summaries, extension messages and user shell runs (``!cmd``) that pi puts in the model's
context become user messages, said so in the notes.

What is dropped and counted: thinking-level changes, extension state, session names,
shell runs excluded from the context, empty assistant messages, and reasoning signatures
from providers other than Anthropic (their replay format differs from earshot's).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from earshot.core.session._import_common import Builder, Imported, iso, qualified, read_lines
from earshot.core.session.entries import CompactionEntry, LabelEntry, ModelSwitchEntry
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


class PiContent(msgspec.Struct):
    type: str
    text: str | None = None
    thinking: str | None = None
    signature: str | None = msgspec.field(default=None, name="thinkingSignature")
    data: str | None = None
    mime_type: str | None = msgspec.field(default=None, name="mimeType")
    id: str | None = None
    name: str | None = None
    arguments: JSONValue = None


class PiCost(msgspec.Struct):
    total: float = 0.0


class PiUsage(msgspec.Struct, rename="camel"):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: PiCost | None = None


class PiMessage(msgspec.Struct, rename="camel"):
    role: str = ""
    content: str | list[PiContent] | None = None
    provider: str | None = None
    model: str | None = None
    usage: PiUsage | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    command: str | None = None
    output: str | None = None
    exit_code: int | None = None
    exclude_from_context: bool = False
    summary: str | None = None


class PiLine(msgspec.Struct, rename="camel"):
    type: str
    id: str | None = None
    parent_id: str | None = None
    timestamp: str | float | None = None
    version: int | None = None
    cwd: str | None = None
    message: PiMessage | None = None
    provider: str | None = None
    model_id: str | None = None
    summary: str | None = None
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    target_id: str | None = None
    label: str | None = None
    content: str | list[PiContent] | None = None


_DROPPED_TYPES = {
    "thinking_level_change": "thinking-level changes",
    "custom": "extension state entries",
    "session_info": "session names",
}


def _empty(part: Part) -> bool:
    return isinstance(part, TextPart | ReasoningPart) and not part.text


def _text(value: str) -> list[Part]:
    return [TextPart(text=value)]


class _Converter:
    def __init__(self) -> None:
        self.out = Imported(format="pi", entries=[])
        self.build = Builder()
        self.linear = False

    def content(self, content: str | list[PiContent] | None) -> list[ToolResultContent]:
        if content is None:
            return []
        if isinstance(content, str):
            return [TextPart(text=content)]
        parts: list[ToolResultContent] = []
        for block in content:
            if block.type == "text" and block.text is not None:
                parts.append(TextPart(text=block.text))
            elif block.type == "image" and block.data:
                parts.append(ImagePart(media_type=block.mime_type or "image/png", data=block.data))
            else:
                self.out.dropped[f"content blocks of type {block.type!r}"] += 1
        return parts

    def assistant_parts(self, message: PiMessage) -> list[Part]:
        if not isinstance(message.content, list):
            return _text(message.content) if message.content else []
        blocks = message.content
        parts: list[Part] = []
        for block in blocks:
            if block.type == "text":
                parts.append(TextPart(text=block.text or ""))
            elif block.type == "thinking":
                metadata: dict[str, JSONValue] = {}
                if block.signature and message.provider == "anthropic":
                    metadata = {"anthropic": {"signature": block.signature}}
                elif block.signature:
                    self.out.dropped[f"reasoning signatures from {message.provider}"] += 1
                parts.append(ReasoningPart(text=block.thinking or "", provider_metadata=metadata))
            elif block.type == "toolCall" and block.id and block.name:
                arguments = block.arguments if block.arguments is not None else {}
                parts.append(ToolCallPart(id=block.id, name=block.name, input=arguments))
            else:
                self.out.dropped[f"assistant blocks of type {block.type!r}"] += 1
        return [p for p in parts if p.provider_metadata or not _empty(p)]

    def message(self, line: PiLine, parent: str | None, when: str) -> None:
        message = line.message or PiMessage()
        build, out = self.build, self.out
        match message.role:
            case "user":
                parts: list[Part] = list(self.content(message.content))
                build.message(line.id, parent, Message(role="user", parts=parts), when)
            case "assistant":
                parts = self.assistant_parts(message)
                if not parts:
                    out.dropped["empty assistant messages"] += 1
                    build.drop(line.id, line.parent_id)
                    return
                model = qualified(message.provider, message.model)
                out.model = model or out.model
                usage = message.usage
                build.message(
                    line.id,
                    parent,
                    Message(role="assistant", parts=parts),
                    when,
                    usage=None
                    if usage is None
                    else Usage(
                        input=usage.input,
                        output=usage.output,
                        cache_read=usage.cache_read,
                        cache_write=usage.cache_write,
                    ),
                    cost_usd=usage.cost.total if usage and usage.cost else None,
                    model=model,
                )
            case "toolResult":
                result = ToolResultPart(
                    call_id=message.tool_call_id or "",
                    name=message.tool_name or "unknown",
                    content=self.content(message.content),
                    is_error=message.is_error,
                )
                build.message(line.id, parent, Message(role="tool", parts=[result]), when)
            case "bashExecution" if message.exclude_from_context:
                out.dropped["shell runs excluded from the context"] += 1
                build.drop(line.id, line.parent_id)
            case "bashExecution":
                text = (
                    f"I ran `{message.command}` (exit code {message.exit_code}):\n{message.output}"
                )
                build.message(line.id, parent, Message(role="user", parts=_text(text)), when)
                out.notes.append("shell runs the user made in pi became user messages")
            case "custom" | "hookMessage" | "branchSummary" | "compactionSummary":
                text = message.summary or ""
                parts = list(self.content(message.content)) or _text(text)
                build.message(line.id, parent, Message(role="user", parts=parts), when)
                out.notes.append("pi's extension messages and summaries became user messages")
            case _:
                out.dropped[f"{message.role or 'unknown'} messages"] += 1
                build.drop(line.id, line.parent_id)

    def line(self, line: PiLine) -> None:
        out, build = self.out, self.build
        when = iso(line.timestamp)
        if line.type == "session":
            out.cwd, out.source_id, out.created = line.cwd, line.id, when or None
            self.linear = (line.version or 1) < 2
            return
        foreign_parent = build.last if self.linear else line.parent_id
        parent = foreign_parent if self.linear else build.parent(foreign_parent)
        match line.type:
            case "message":
                self.message(line, parent, when)
            case "model_change" if line.model_id:
                model = qualified(line.provider, line.model_id) or line.model_id
                build.add(
                    line.id,
                    parent,
                    lambda i, p: ModelSwitchEntry(id=i, parent_id=p, timestamp=when, model=model),
                )
            case "compaction":
                kept = build.resolve(line.first_kept_entry_id)
                summary = f"The conversation so far, summarised:\n{line.summary or ''}"
                build.add(
                    line.id,
                    parent,
                    lambda i, p: CompactionEntry(
                        id=i,
                        parent_id=p,
                        timestamp=when,
                        first_kept=kept,
                        preamble=[Message(role="user", parts=_text(summary))],
                        tokens_before=line.tokens_before,
                    ),
                )
            case "branch_summary" | "custom_message":
                text = f"Summary of a branch explored earlier:\n{line.summary or ''}"
                prompt: list[Part] = list(self.content(line.content)) or _text(text)
                build.message(line.id, parent, Message(role="user", parts=prompt), when)
                out.notes.append("pi's extension messages and summaries became user messages")
            case "label" if line.target_id:
                target = build.resolve(line.target_id) or line.target_id
                build.add(
                    line.id,
                    parent,
                    lambda i, p: LabelEntry(
                        id=i, parent_id=p, timestamp=when, target=target, label=line.label
                    ),
                )
            case _:
                out.dropped[_DROPPED_TYPES.get(line.type, f"{line.type!r} entries")] += 1
                build.drop(line.id, foreign_parent)


def convert_pi(path: Path) -> Imported:
    converter = _Converter()
    for line in read_lines(path, PiLine, converter.out.dropped):
        converter.line(line)
    out = converter.out
    out.entries = converter.build.entries
    out.notes = list(dict.fromkeys(out.notes))
    return out


__all__ = ["convert_pi"]
