"""A tool's child process on Linux, watched by the event loop without asyncio's subprocess
layer.

::

    can_start_here()      Linux with pidfds, on an asyncio event loop
    start_child(...)      ``Popen`` the command, in a session of its own, stdin closed,
                          stdout and stderr piped; returns an ``anyio.abc.Process``

Every command a tool runs passes through here, between a model's reply and the next
request. asyncio's subprocess transports cost about a millisecond of CPU per command on top
of the fork and exec (protocols, transports, futures, a stream reader per pipe); this is the
same job with the event loop's own readers: the child's pidfd says when it exited (it is
reaped at once, so it never lingers as a zombie), and each pipe is read with non-blocking
``os.read`` when the loop says it is readable.

It behaves as anyio's process does: ``returncode`` is None until the child is reaped, a
negative code names the signal that ended it, ``aclose`` closes the pipes and then waits
(killing the child when that wait is cancelled), and a signal to a child already reaped
raises ``ProcessLookupError`` (its number may belong to another process by then).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from signal import SIGKILL, SIGTERM, Signals

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

_READ_SIZE = 65536


def can_start_here() -> bool:
    """Whether ``start_child`` works here: Linux with pidfds, on an asyncio event loop."""
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return _pidfds_work()


_pidfds: bool | None = None


def _pidfds_work() -> bool:
    """Whether this kernel has pidfds (5.3 and later); asked once."""
    global _pidfds
    if _pidfds is None:
        try:
            os.close(os.pidfd_open(os.getpid()))
            _pidfds = True
        except OSError:
            _pidfds = False
    return _pidfds


class _Pipe(ByteReceiveStream):
    """The read end of a child's output pipe, non-blocking, read when the loop says so."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        os.set_blocking(fd, False)
        self._fd: int | None = fd
        self._loop = loop
        self._waiting: asyncio.Future[None] | None = None

    async def receive(self, max_bytes: int = _READ_SIZE) -> bytes:
        while True:
            fd = self._fd
            if fd is None:
                raise anyio.ClosedResourceError
            try:
                data = os.read(fd, max_bytes)
            except BlockingIOError:
                await self._readable(fd)
                continue
            if not data:
                raise anyio.EndOfStream
            return data

    async def _readable(self, fd: int) -> None:
        ready: asyncio.Future[None] = self._loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        self._loop.add_reader(fd, wake)
        self._waiting = ready
        try:
            await ready
        finally:
            self._waiting = None
            if self._fd == fd:
                self._loop.remove_reader(fd)

    async def aclose(self) -> None:
        """Close the pipe; a reader waiting on it gets ``ClosedResourceError``."""
        fd, self._fd = self._fd, None
        if fd is not None:
            self._loop.remove_reader(fd)
            os.close(fd)
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            waiting.set_exception(anyio.ClosedResourceError())


class Child(Process):
    """A running command (see the module docstring)."""

    def __init__(
        self, popen: subprocess.Popen[bytes], out: int, err: int, loop: asyncio.AbstractEventLoop
    ) -> None:
        self._popen = popen
        self._loop = loop
        self._code: int | None = None
        self._exited = asyncio.Event()
        self._stdout = _Pipe(out, loop)
        self._stderr = _Pipe(err, loop)
        self._pidfd = os.pidfd_open(popen.pid)
        loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        try:
            _, status = os.waitpid(self._popen.pid, 0)
            code = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            code = 255  # reaped elsewhere: what asyncio reports then
        self._code = self._popen.returncode = code
        self._exited.set()

    async def wait(self) -> int:
        await self._exited.wait()
        assert self._code is not None
        return self._code

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            await self._stdout.aclose()
            await self._stderr.aclose()
        try:
            await self.wait()
        except BaseException:
            with anyio.CancelScope(shield=True):
                if self._code is None:
                    self.kill()
                await self.wait()
            raise

    def send_signal(self, signal: Signals) -> None:
        if self._code is not None:
            raise ProcessLookupError  # as asyncio's: the number may be someone else's now
        os.kill(self._popen.pid, signal)

    def terminate(self) -> None:
        self.send_signal(SIGTERM)

    def kill(self) -> None:
        self.send_signal(SIGKILL)

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._code

    @property
    def stdin(self) -> ByteSendStream | None:
        return None

    @property
    def stdout(self) -> ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> ByteReceiveStream:
        return self._stderr


def start_child(argv: list[str], *, cwd: Path, env: Mapping[str, str] | None) -> Child:
    """Start ``argv`` (see the module docstring); OSError when it cannot start. Call only
    where ``can_start_here()``."""
    loop = asyncio.get_running_loop()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=out_write,
            stderr=err_write,
            start_new_session=True,
        )
    except BaseException:
        for fd in (out_read, err_read):
            os.close(fd)
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    try:
        return Child(popen, out_read, err_read, loop)
    except BaseException:
        popen.kill()
        popen.wait()
        for fd in (out_read, err_read):
            os.close(fd)
        raise


__all__ = ["Child", "can_start_here", "start_child"]
