"""A resumed session's last messages, as the scrollback showed them when they happened:
the prompts, the answers, and each tool call with its result (collapsed)."""

from __future__ import annotations

import re

from earshot.core.loop.events import result_text
from earshot.providers import types as pt
from earshot.tui.render import Painter, assistant_block, tool_block, user_block

SUBJECT_KEYS = ("command", "file_path", "path", "pattern", "url", "query")
_NOTE = re.compile(r"\s*<earshot-note>.*?</earshot-note>", re.DOTALL)
"""earshot's notes to the model after a message (``/scope``'s edit): not what was typed."""


def call_title(call: pt.ToolCallPart) -> str:
    """``name: subject`` (the command, the path, the pattern), as the live feed titles it."""
    if isinstance(call.input, dict):
        for key in SUBJECT_KEYS:
            value = call.input.get(key)
            if isinstance(value, str) and value.strip():
                first = value.strip().splitlines()[0]
                return f"{call.name}: {first[:80]}"
    return call.name


def replay_blocks(painter: Painter, history: list[pt.Message], limit: int = 20) -> str:
    """The last ``limit`` messages of ``history`` as scrollback blocks."""
    titles: dict[str, str] = {}
    for message in history:
        for part in message.parts:
            if isinstance(part, pt.ToolCallPart):
                titles[part.id] = call_title(part)
    blocks: list[str] = []
    for message in history[-limit:]:
        text = "".join(p.text for p in message.parts if isinstance(p, pt.TextPart))
        if text.strip():
            if message.role == "user":
                blocks.append(user_block(painter, _NOTE.sub("", text)))
            elif message.role == "assistant":
                blocks.append(assistant_block(painter, text))
        for part in message.parts:
            if isinstance(part, pt.ToolResultPart):
                title = titles.get(part.call_id, part.name)
                blocks.append(tool_block(painter, title, result_text(part), is_error=part.is_error))
    return "".join(blocks)


__all__ = ["call_title", "replay_blocks"]
