"""Per-session state the tools share: which files were read (and as what), the todo list,
and background shells. One ``ToolState`` per session; subagents get their own."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

import msgspec

from earshot.core.tools.ops import FileOps

TodoStatus = Literal["pending", "in_progress", "completed"]


class ReadRecord(msgspec.Struct, frozen=True):
    mtime_ns: int
    size: int
    digest: str


class Todo(msgspec.Struct, frozen=True):
    content: str
    status: TodoStatus
    id: str = ""


class BackgroundShell(Protocol):
    """A background bash process (see ``core/tools/bash.py``)."""

    @property
    def id(self) -> str: ...

    @property
    def command(self) -> str: ...

    def kill(self) -> None: ...


class ShellSandbox(Protocol):
    """The OS sandbox shell commands run in (see ``core/sandbox/``)."""

    @property
    def active(self) -> bool: ...

    def confines(self) -> bool:
        """Whether commands will really run confined (checks once that the sandbox can
        start); what the gate relies on to ask less."""
        ...

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` confined; raises a ``ToolError`` when commands may not run unconfined
        and there is no sandbox."""
        ...

    def blocked_by(self, output: str) -> str | None:
        """Why a failed command's output looks like the sandbox stopped it, or None."""
        ...

    def tidy(self) -> None: ...

    def take_note(self) -> str:
        """A note for the model, once (the sandbox could not start), else empty."""
        ...


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ToolState(msgspec.Struct):
    """``pass_env`` names credential variables the user lets commands see anyway (the
    ``passEnv`` setting); every other credential earshot uses is kept from them."""

    read_files: dict[Path, ReadRecord] = msgspec.field(default_factory=dict)
    todos: list[Todo] = msgspec.field(default_factory=list)
    shells: dict[str, BackgroundShell] = msgspec.field(default_factory=dict)
    pass_env: frozenset[str] = frozenset()
    sandbox: ShellSandbox | None = None

    def record_read(self, path: Path, data: bytes, files: FileOps) -> None:
        st = files.stat(path)
        if st is not None:
            self.read_files[path] = ReadRecord(st.mtime_ns, st.size, digest(data))

    def stale_reason(self, path: Path, files: FileOps) -> str | None:
        """Why ``path`` may not be changed without reading it first, or None when its
        content is what this session last read (or wrote)."""
        record = self.read_files.get(path)
        if record is None:
            return f"{path} has not been read in this session; read it before changing it"
        st = files.stat(path)
        if st is None:
            return f"{path} no longer exists; it was deleted after it was read"
        # Content decides: a same-size rewrite within the clock's granularity keeps mtime
        # and size, so they cannot prove the file unchanged.
        if st.size == record.size and digest(files.read_bytes(path)) == record.digest:
            return None
        return f"{path} changed on disk since it was read; read it again before changing it"


__all__ = [
    "BackgroundShell",
    "ReadRecord",
    "ShellSandbox",
    "Todo",
    "TodoStatus",
    "ToolState",
    "digest",
]
