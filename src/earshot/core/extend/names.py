"""Claude Code's tool names and ours, for files written for either: hook matchers and a
command's ``allowed-tools`` name ``Bash`` or ``bash`` alike."""

from __future__ import annotations

import re

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
    "Task": "task",
}
OURS_TO_CLAUDE = {ours: theirs for theirs, ours in CLAUDE_NAMES.items()}


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


__all__ = ["CLAUDE_NAMES", "OURS_TO_CLAUDE", "matches", "tool_aliases"]
