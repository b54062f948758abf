"""How a tool call looks to an editor: its ACP kind, title, locations and file diffs.

::

    kind_of(name)                 read | edit | search | execute | fetch | think | other
    title_of(call)                "bash: ls -la", "edit: src/app.py" (replayed calls)
    locations(call, cwd)          the file a call touches, with a line for read
    FileChange / proposed(...)    the whole old and new text of a write, edit or multi_edit
                                  before it runs (for the permission prompt); None when it
                                  cannot be worked out (then the unified diff in the prompt's
                                  rawInput.detail is what the person sees)
    current_text(path)            a file's text now, for the diff after a call

The core's gate and tools stay the authority: nothing here decides or changes anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from earshot.core.tools.base import ToolError
from earshot.core.tools.edit import apply_edit
from earshot.providers.types import JSONObject, JSONValue, ToolCallPart

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]

KINDS: dict[str, ToolKind] = {
    "read": "read",
    "write": "edit",
    "edit": "edit",
    "multi_edit": "edit",
    "ls": "search",
    "glob": "search",
    "grep": "search",
    "bash": "execute",
    "bash_output": "execute",
    "kill_shell": "execute",
    "web_fetch": "fetch",
    "todo_write": "think",
    "task": "think",
    "ask_user": "other",
}
EDIT_TOOLS = frozenset({"write", "edit", "multi_edit"})
MAX_DIFF_BYTES = 1024 * 1024


def kind_of(name: str) -> ToolKind:
    return KINDS.get(name, "other")


def _args(call: ToolCallPart) -> JSONObject:
    return call.input if isinstance(call.input, dict) else {}


def _text(args: JSONObject, key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) and value else None


def title_of(call: ToolCallPart) -> str:
    args = _args(call)
    for key in ("command", "path", "url", "pattern", "question"):
        value = _text(args, key)
        if value is not None:
            return f"{call.name}: {value.splitlines()[0][:120]}"
    return call.name


def target(call: ToolCallPart, cwd: Path) -> Path | None:
    path = _text(_args(call), "path")
    if path is None:
        return None
    p = Path(path).expanduser()
    return p if p.is_absolute() else cwd / p


def locations(call: ToolCallPart, cwd: Path) -> list[tuple[str, int | None]]:
    """``(absolute path, line)`` pairs; empty for a call that names no file."""
    path = target(call, cwd)
    if path is None:
        return []
    offset = _args(call).get("offset")
    line = offset if call.name == "read" and isinstance(offset, int) else None
    return [(str(path), line)]


def current_text(path: Path) -> str | None:
    """The file's text, line endings kept; None when it is missing, too large for a diff,
    or not UTF-8 text."""
    try:
        if path.stat().st_size > MAX_DIFF_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


@dataclass(frozen=True)
class FileChange:
    path: Path
    old: str | None  # None: the file does not exist yet
    new: str


def _edits(args: JSONObject) -> list[tuple[str, str, bool]] | None:
    raw: JSONValue = args.get("edits")
    if not isinstance(raw, list):
        return None
    edits: list[tuple[str, str, bool]] = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        old, new = item.get("old_string"), item.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        edits.append((old, new, item.get("replace_all") is True))
    return edits


def proposed(call: ToolCallPart, cwd: Path) -> FileChange | None:
    """What a file tool call would leave in its file, worked out without running it."""
    if call.name not in EDIT_TOOLS:
        return None
    path = target(call, cwd)
    if path is None:
        return None
    args = _args(call)
    exists = path.exists()
    old = current_text(path) if exists else None
    if exists and old is None:
        return None
    if call.name == "write":
        content = args.get("content")
        return FileChange(path, old, content) if isinstance(content, str) else None
    if old is None:
        return None
    if call.name == "edit":
        find, put = _text(args, "old_string"), args.get("new_string")
        edits = (
            [(find, put, args.get("replace_all") is True)]
            if find and isinstance(put, str)
            else None
        )
    else:
        edits = _edits(args)
    if not edits:
        return None
    text = old
    try:
        for find, put, replace_all in edits:
            text = apply_edit(text, find, put, replace_all=replace_all).text
    except ToolError:
        return None
    return FileChange(path, old, text)


__all__ = [
    "EDIT_TOOLS",
    "KINDS",
    "MAX_DIFF_BYTES",
    "FileChange",
    "ToolKind",
    "current_text",
    "kind_of",
    "locations",
    "proposed",
    "target",
    "title_of",
]
