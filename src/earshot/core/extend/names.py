"""Claude Code's tool names and ours, for files written for either: hook matchers and a
command's ``allowed-tools`` name ``Bash`` or ``bash`` alike."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TypeVar

CLAUDE_NAMES: dict[str, str] = {
    "Bash": "bash",
    "BashOutput": "bash_output",
    "KillShell": "kill_shell",
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "multi_edit",
    "LS": "ls",
    "Glob": "glob",
    "Grep": "grep",
    "WebFetch": "web_fetch",
    "TodoWrite": "todo_write",
    "AskUserQuestion": "ask_user",
    "Skill": "skill",
}
OURS_TO_CLAUDE = {ours: theirs for theirs, ours in CLAUDE_NAMES.items()}

T = TypeVar("T")


def tool_aliases(name: str) -> tuple[str, ...]:
    """The names a tool answers to: ours, and Claude Code's (``mcp__...`` stays as it is)."""
    theirs = OURS_TO_CLAUDE.get(name)
    return (name, theirs) if theirs else (name,)


def matches(pattern: str, tool: str) -> bool:
    """Whether a hook matcher (a regex; empty or ``*`` matches all) matches ``tool``."""
    if pattern in ("", "*"):
        return True
    try:
        compiled = re.compile(pattern)
    except re.error:
        return pattern in tool_aliases(tool)
    return any(compiled.fullmatch(alias) for alias in tool_aliases(tool))


def narrowed(tools: Mapping[str, T], allowed: Sequence[str]) -> dict[str, T]:
    """The tools ``allowed`` names (``Bash(git add:*)`` names ``Bash``); never more than
    ``tools``."""
    names = {entry.split("(", 1)[0].strip() for entry in allowed}
    names = {CLAUDE_NAMES.get(n, n) for n in names}
    return {name: tool for name, tool in tools.items() if name in names}


__all__ = ["CLAUDE_NAMES", "OURS_TO_CLAUDE", "matches", "narrowed", "tool_aliases"]
