"""The operations tools are given: files and processes. Local defaults; a sandbox, a remote
or a test can pass its own (``ToolContext.files`` / ``ToolContext.procs``).

File writes are atomic (temp file in the same directory, fsync, ``os.replace``) and keep
the existing file's permission bits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVarTuple

import anyio
import msgspec

from earshot.core.tools._child import can_start_here, start_child
from earshot.core.tools._reaper import REAPER, Ledger

if TYPE_CHECKING:
    from anyio.abc import Process


class FileStat(msgspec.Struct, frozen=True):
    size: int
    mtime_ns: int
    is_dir: bool
    is_file: bool


class FileOps(Protocol):
    def stat(self, path: Path) -> FileStat | None: ...

    def read_bytes(self, path: Path) -> bytes: ...

    def write_bytes(self, path: Path, data: bytes) -> None: ...

    def list_dir(self, path: Path) -> list[str]: ...

    def realpath(self, path: Path) -> Path: ...


class ProcessOps(Protocol):
    async def spawn(
        self, argv: list[str], *, cwd: Path, env: Mapping[str, str] | None = None
    ) -> Process:
        """Start ``argv`` in its own process group (session on POSIX), stdin closed,
        stdout and stderr piped."""
        ...

    def kill_tree(self, process: Process) -> None:
        """Kill the process and everything it started."""
        ...


class LocalFileOps:
    def stat(self, path: Path) -> FileStat | None:
        try:
            st = path.stat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        return FileStat(
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            is_dir=path.is_dir(),
            is_file=path.is_file(),
        )

    def read_bytes(self, path: Path) -> bytes:
        return path.read_bytes()

    def write_bytes(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode: int | None = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = None
        import tempfile  # with shutil and random: loaded by the first write

        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".earshot-tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if mode is not None:
                os.chmod(tmp, mode)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def list_dir(self, path: Path) -> list[str]:
        return sorted(os.listdir(path))

    def realpath(self, path: Path) -> Path:
        return Path(os.path.realpath(path))


_child_watch_checked = False
_Ts = TypeVarTuple("_Ts")


def _watch_children_in_the_loop() -> None:
    """On Python 3.11 asyncio waits for each child process on a thread started for it (a
    thread start per command, between a tool call and its result); 3.12 watches the
    child's pidfd in the event loop instead, where the kernel has pidfds. Give 3.11 the
    same, once per process."""
    global _child_watch_checked
    if _child_watch_checked:
        return
    _child_watch_checked = True
    if sys.version_info >= (3, 12) or not sys.platform.startswith("linux"):
        return
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return  # a kernel before 5.3: keep the thread per child
    import asyncio

    class PidfdWatcher(asyncio.AbstractChildWatcher):
        """Each child's pidfd, watched by the event loop that started it (whichever loop,
        on whichever thread: 3.11's own pidfd watcher serves one attached loop)."""

        def __init__(self) -> None:
            self._waiting: dict[int, tuple[asyncio.AbstractEventLoop, int]] = {}

        def add_child_handler(
            self, pid: int, callback: Callable[[int, int, *_Ts], object], *args: *_Ts
        ) -> None:
            loop = asyncio.get_running_loop()
            pidfd = os.pidfd_open(pid)
            self._waiting[pid] = (loop, pidfd)
            loop.add_reader(pidfd, self._exited, pid, callback, args)

        def _exited(
            self,
            pid: int,
            callback: Callable[[int, int, *_Ts], object],
            args: tuple[*_Ts],
        ) -> None:
            loop, pidfd = self._waiting.pop(pid)
            loop.remove_reader(pidfd)
            try:
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                code = 255  # reaped elsewhere: what asyncio's own watchers report
            finally:
                os.close(pidfd)
            callback(pid, code, *args)

        def remove_child_handler(self, pid: int) -> bool:
            found = self._waiting.pop(pid, None)
            if found is None:
                return False
            found[0].remove_reader(found[1])
            os.close(found[1])
            return True

        def attach_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
            pass

        def is_active(self) -> bool:
            return True

        def close(self) -> None:
            pass

        def __enter__(self) -> PidfdWatcher:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    asyncio.set_child_watcher(PidfdWatcher())


class LocalProcessOps:
    """Processes on this machine (on Linux watched by the event loop directly: see
    ``_child``). On POSIX every group is handed to the watchdog
    (``_reaper.REAPER``) so it dies with earshot, and recorded in ``ledger`` (when given)
    so a resumed session can kill what a killed earshot left."""

    def __init__(self, ledger: Ledger | None = None) -> None:
        self.ledger = ledger

    async def spawn(
        self, argv: list[str], *, cwd: Path, env: Mapping[str, str] | None = None
    ) -> Process:
        if sys.platform == "win32":
            return await anyio.open_process(
                argv,
                cwd=cwd,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                creationflags=subprocess.CREATE_NEW_PROCESS_GROUP,
            )
        _watch_children_in_the_loop()  # for the processes others start through asyncio
        process: Process
        if can_start_here():
            process = start_child(argv, cwd=cwd, env=env)
        else:
            process = await anyio.open_process(
                argv,
                cwd=cwd,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        gone = REAPER.watch(process.pid)
        if self.ledger is not None:
            self.ledger.update(add=process.pid, remove=gone)
        return process

    def kill_tree(self, process: Process) -> None:
        if sys.platform == "win32":
            if process.returncode is not None:
                return
            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(process.pid)],
                capture_output=True,
                check=False,
            )
            return
        # The group outlives its leader: kill it even when the shell itself has exited, so
        # nothing a command left running survives it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        REAPER.forget(process.pid)
        if self.ledger is not None:
            self.ledger.forget(process.pid)


__all__ = ["FileOps", "FileStat", "LocalFileOps", "LocalProcessOps", "ProcessOps"]
