"""How a tool call looks to an editor: its ACP kind, title, locations and file diffs.

::

    kind_of(name)                 read | edit | search | execute | fetch | think | other
    title_of(call)                "bash: ls -la", "edit: src/app.py" (replayed calls)
    locations(call, cwd)          the file a call touches, with a line for read

A file change's old and new text come from the tool itself (``PermissionRequest.change``
before it runs, the result's ``FileChange`` after), never worked out again here. The
core's gate and tools stay the authority: nothing here decides or changes anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from earshot.providers.types import JSONObject, ToolCallPart

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


__all__ = [
    "EDIT_TOOLS",
    "KINDS",
    "ToolKind",
    "kind_of",
    "locations",
    "target",
    "title_of",
]
