"""The built-in tools, as an explicit list (no loading by module name).

``BUILTIN`` is what every session offers, in the order the model sees them; extra tools
(MCP, extensions) arrive through ``AgentSession.open(extra_tools=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from earshot.core.tools import (
    ask_user,
    bash,
    bash_output,
    edit,
    glob,
    grep,
    kill_shell,
    ls,
    multi_edit,
    read,
    scope,
    todo_write,
    web_fetch,
    write,
)
from earshot.core.tools.base import AnyTool

BUILTIN: tuple[AnyTool, ...] = (
    read.TOOL,
    write.TOOL,
    edit.TOOL,
    multi_edit.TOOL,
    ls.TOOL,
    glob.TOOL,
    grep.TOOL,
    bash.TOOL,
    bash_output.TOOL,
    kill_shell.TOOL,
    web_fetch.TOOL,
    todo_write.TOOL,
    ask_user.TOOL,
    scope.TOOL,
)
BUILTIN_TOOLS: tuple[str, ...] = tuple(tool.name for tool in BUILTIN)


def builtin_tools(names: Sequence[str] = BUILTIN_TOOLS) -> list[AnyTool]:
    """The built-in tools named, in the order named (tests pick a few)."""
    by_name = {tool.name: tool for tool in BUILTIN}
    return [by_name[name] for name in names]


__all__ = ["BUILTIN", "BUILTIN_TOOLS", "builtin_tools"]
