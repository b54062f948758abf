"""The session file on disk: a locked appender and a forgiving reader.

Writing (``TranscriptWriter``):

- The file is opened for appending and locked with an OS lock (``flock`` on POSIX, a byte
  range far past the end with ``msvcrt`` on Windows) before anything is written; a second
  writer, in this process or another, gets ``SessionLockedError``. The OS drops the lock
  when the process dies, however it dies.
- Each entry is one ``write`` of one complete line (retried only for the rest of a short
  write), so a reader sees whole lines or a torn last line. Nothing is buffered in-process:
  a line is in the OS once ``append`` returns. ``sync`` fsyncs (once per turn).
- A file that does not end in a newline (a crash mid-line, or a failed write) gets one
  before the next line, so a torn fragment never swallows a good entry.

Reading (``read_transcript``) never rewrites the file and never fails for damage: see
``codec.parse`` for what is skipped and reported.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec

from earshot._base.errors import UserError
from earshot.core.session.codec import FORMAT_VERSION, Parsed, Problem, encode_line, parse
from earshot.core.session.entries import Entry, FormatMark, Header, Line, UnknownEntry
from earshot.core.session.tree import Tree


class SessionError(UserError):
    """A session earshot cannot open or find; ``str()`` says what to do."""


class SessionLockedError(SessionError):
    """Another writer holds the session's lock."""


_WINDOWS_LOCK_OFFSET = 1 << 62


def _lock(fd: int) -> bool:
    if sys.platform == "win32":
        import msvcrt

        position = os.lseek(fd, 0, os.SEEK_CUR)
        try:
            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            os.lseek(fd, position, os.SEEK_SET)
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


class TranscriptWriter:
    """Exclusive appender of one session file (see the module docstring)."""

    def __init__(self, path: Path, *, header: Header | None = None) -> None:
        """Open ``path`` for appending. With ``header`` the file must not exist yet and the
        header is written as its first line; like every line, it is fsynced with the end of
        the turn (``Session.end_turn``), or by ``write_transcript`` for a whole file, not
        here: a new session's first model request does not wait for the disk."""
        self.path = path
        flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0)
        if header is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            flags |= os.O_CREAT | os.O_EXCL
        try:
            self._fd = os.open(path, flags, 0o600)
        except FileNotFoundError:
            raise SessionError(f"session file {path} does not exist") from None
        if not _lock(self._fd):
            os.close(self._fd)
            raise SessionLockedError(
                f"session {path.stem} is open in another earshot process; wait for it to "
                "finish, or branch from it with --fork-session"
            )
        self._open = True
        self._needs_newline = False
        if header is not None:
            self.append(header)
        else:
            size = os.fstat(self._fd).st_size
            if size:
                with path.open("rb") as handle:
                    handle.seek(size - 1)
                    self._needs_newline = handle.read(1) != b"\n"

    @property
    def closed(self) -> bool:
        return not self._open

    def append(self, line: Line | UnknownEntry) -> None:
        """Write one line. On an error, what reached the file is at worst a torn line,
        which the next append terminates."""
        if not self._open:
            raise SessionError(f"session {self.path.stem} is closed")
        data = encode_line(line)
        if self._needs_newline:
            data = b"\n" + data
        self._needs_newline = True
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        self._needs_newline = False

    def sync(self) -> None:
        if self._open:
            os.fsync(self._fd)

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        try:
            _unlock(self._fd)
        finally:
            os.close(self._fd)


class Transcript(msgspec.Struct):
    """A session file as read: its header, its entry tree and what was wrong with it."""

    path: Path
    header: Header
    tree: Tree
    problems: list[Problem] = msgspec.field(default_factory=list)
    version: int = FORMAT_VERSION
    terminated: bool = True

    @property
    def id(self) -> str:
        return self.header.id

    def warnings(self) -> list[str]:
        return [p.describe(self.path) for p in self.problems]


def read_transcript(path: Path) -> Transcript:
    """Read a session file (see ``codec.parse``). A file with no readable header gets a
    stand-in header named after the file, so its entries are still usable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SessionError(f"session file {path} does not exist") from None
    with _collector_paused():
        return _build(path, parse(data))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Building a large tree allocates hundreds of thousands of objects and no cycles;
    the cyclic collector would rescan the growing heap many times over (half the load
    time of a 100,000-entry session), so it waits until the tree is built, and the tree
    is then frozen out of its reach (``gc.freeze``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # The tree lives as long as the session: move it (and whatever else is alive) out
        # of the collector's generations, or the first collection after this walks every
        # object just built (about as long again as building it) and later full
        # collections walk them all again.
        gc.freeze()
        if was_enabled:
            gc.enable()


def _build(path: Path, parsed: Parsed) -> Transcript:
    header = parsed.header or Header(
        version=parsed.version,
        id=path.stem,
        timestamp="",
        cwd="",
        earshot_version="",
    )
    tree, notes = Tree.of(parsed.entries)
    problems = list(parsed.problems)
    numbers = parsed.line_numbers
    problems += [Problem(numbers[index], "orphan", note) for index, note in notes]
    problems.sort(key=lambda p: p.line)
    return Transcript(
        path=path,
        header=header,
        tree=tree,
        problems=problems,
        version=parsed.version,
        terminated=parsed.terminated,
    )


def write_transcript(path: Path, header: Header, entries: list[Entry]) -> None:
    """Create a complete session file (fork, import) and fsync it. The file must not
    exist; it is locked while written."""
    writer = TranscriptWriter(path, header=header)
    try:
        for entry in entries:
            writer.append(entry)
        writer.sync()
    finally:
        writer.close()


def format_mark_needed(transcript: Transcript) -> FormatMark | None:
    """The line a writer must append before new entries to an older-format file."""
    if transcript.version < FORMAT_VERSION:
        return FormatMark(version=FORMAT_VERSION)
    return None


__all__ = [
    "SessionError",
    "SessionLockedError",
    "Transcript",
    "TranscriptWriter",
    "format_mark_needed",
    "read_transcript",
    "write_transcript",
]
