"""How each built-in tool is loaded: its module imported on demand, by explicit imports.

``registry.py`` offers the tools from their generated specs and loads one through here the
first time a call to it is prepared; ``scripts/gen_tool_specs.py`` loads them all to write
the specs (this module does not depend on them, so it works while they are stale).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earshot.core.tools.base import AnyTool


def _read() -> AnyTool:
    from earshot.core.tools import read

    return read.TOOL


def _write() -> AnyTool:
    from earshot.core.tools import write

    return write.TOOL


def _edit() -> AnyTool:
    from earshot.core.tools import edit

    return edit.TOOL


def _multi_edit() -> AnyTool:
    from earshot.core.tools import multi_edit

    return multi_edit.TOOL


def _ls() -> AnyTool:
    from earshot.core.tools import ls

    return ls.TOOL


def _glob() -> AnyTool:
    from earshot.core.tools import glob

    return glob.TOOL


def _grep() -> AnyTool:
    from earshot.core.tools import grep

    return grep.TOOL


def _bash() -> AnyTool:
    from earshot.core.tools import bash

    return bash.TOOL


def _bash_output() -> AnyTool:
    from earshot.core.tools import bash_output

    return bash_output.TOOL


def _kill_shell() -> AnyTool:
    from earshot.core.tools import kill_shell

    return kill_shell.TOOL


def _web_fetch() -> AnyTool:
    from earshot.core.tools import web_fetch

    return web_fetch.TOOL


def _todo_write() -> AnyTool:
    from earshot.core.tools import todo_write

    return todo_write.TOOL


def _ask_user() -> AnyTool:
    from earshot.core.tools import ask_user

    return ask_user.TOOL


def _scope() -> AnyTool:
    from earshot.core.tools import scope

    return scope.TOOL


LOADERS: dict[str, Callable[[], AnyTool]] = {
    "read": _read,
    "write": _write,
    "edit": _edit,
    "multi_edit": _multi_edit,
    "ls": _ls,
    "glob": _glob,
    "grep": _grep,
    "bash": _bash,
    "bash_output": _bash_output,
    "kill_shell": _kill_shell,
    "web_fetch": _web_fetch,
    "todo_write": _todo_write,
    "ask_user": _ask_user,
    "declare_scope": _scope,
}
"""Each built-in tool's name and how to load it, in the order the model sees them."""


def loaded_builtins() -> list[AnyTool]:
    """Every built-in tool as its module defines it, in ``BUILTIN``'s order (importing
    them all): what ``_specs.py`` is generated from."""
    return [load() for load in LOADERS.values()]


__all__ = ["LOADERS", "loaded_builtins"]
