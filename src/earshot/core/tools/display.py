"""What a tool result shows a person, besides its text: a tagged union, one kind per shape.

::

    FileChange   write, edit, multi_edit: the path, the unified diff (capped for display),
                 and the whole text before and after (old None: the file is new; both None
                 when the file is too large to carry whole)
    TodoList     todo_write: the list as it now stands
    ShellExit    bash in the foreground: the command, its exit code and how it ended
    ShellStatus  bash in the background, bash_output, kill_shell: the shell and its status
    Fetched      web_fetch: the final URL, the HTTP status, the media type
    Answered     ask_user: the question, the answer, the choices offered
    ScopeView    declare_scope: the session's scope contract as it now stands
    None         nothing to show but the text

Front-ends match on the type (the TUI draws the diff, ACP sends the file change and the
plan); the model never sees any of it.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from earshot.core.tools.state import Todo

MAX_WHOLE_CHARS = 1024 * 1024
"""A file change carries the whole texts only up to this size (each)."""


class FileChange(msgspec.Struct, tag="file_change", frozen=True, kw_only=True):
    path: str
    diff: str
    old: str | None = None
    new: str | None = None


class TodoList(msgspec.Struct, tag="todos", frozen=True, kw_only=True):
    todos: list[Todo]


class ShellExit(msgspec.Struct, tag="shell_exit", frozen=True, kw_only=True):
    command: str
    exit_code: int | None
    outcome: str


class ShellStatus(msgspec.Struct, tag="shell_status", frozen=True, kw_only=True):
    shell_id: str
    status: str
    command: str = ""


class Fetched(msgspec.Struct, tag="fetched", frozen=True, kw_only=True):
    url: str
    status: int
    content_type: str


class Answered(msgspec.Struct, tag="answered", frozen=True, kw_only=True):
    question: str
    answer: str
    choices: list[str] = []


class ScopeView(msgspec.Struct, tag="scope", frozen=True, kw_only=True):
    goal: str
    paths: list[str]
    steps: list[str] = []


Display: TypeAlias = (
    FileChange | TodoList | ShellExit | ShellStatus | Fetched | Answered | ScopeView | None
)


def file_change(path: str, old: str | None, new: str, diff: str) -> FileChange:
    """A change, with the whole texts when both are small enough to carry."""
    if len(new) > MAX_WHOLE_CHARS or (old is not None and len(old) > MAX_WHOLE_CHARS):
        return FileChange(path=path, diff=diff)
    return FileChange(path=path, diff=diff, old=old, new=new)


__all__ = [
    "MAX_WHOLE_CHARS",
    "Answered",
    "Display",
    "Fetched",
    "FileChange",
    "ScopeView",
    "ShellExit",
    "ShellStatus",
    "TodoList",
    "file_change",
]
