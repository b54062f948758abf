"""Finding bash, reading a process's output, and the background shells of a session.

::

    detect_bash(platform=, env=, which=, exists=, read_registry=) -> ShellChoice
        pure: the shell commands run with, or ToolError with an install pointer
    find_bash()                 detect_bash over this machine
    child_env(pass_env)         the environment a command gets: ours without the provider
                                credentials earshot uses (unless passed), plus EARSHOT=1
    pump_output(process, sink)  stdout and stderr read concurrently, decoded, handed to one
                                sink in arrival order, until both reach end of file
    ShellProcess                one background shell (a ``BackgroundShell``): its process,
                                a bounded buffer of unread output, a reader task, a status
    start_background(...)       spawn a command and register it as ``bash_N``
    get_shell(state, shell_id)  a registered shell, or ToolError naming the ones there are
    close_all(state)            kill every background shell of a session and reap it

Where bash comes from: on POSIX the ``bash`` on PATH, else ``/bin/sh`` (with a note). On
Windows Git Bash only: the install root of the ``git`` on PATH, then the usual install
locations, then the Git for Windows registry entry; never WSL's ``System32\\bash.exe``,
which would run the command in a Linux VM with other paths and tools.

Where a background reader runs: it must outlive the ``bash`` call that starts it, and no
task group that lives longer than a tool call is reachable from one. So the reader is a
task on the running asyncio event loop (the one earshot runs on), created with
``loop.create_task`` and held by its ``ShellProcess`` (a strong reference, so it is not
collected while running). It ends by itself once the process has exited and both pipes
are at end of file; ``close_all`` (called by the loop when the session ends) kills every
shell's process group, waits briefly for its reader, cancels a reader still blocked (a
detached grandchild can hold a pipe open), and closes the process.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import shutil
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path, PureWindowsPath
from typing import TYPE_CHECKING

import anyio
import msgspec

from earshot.core.tools.base import ToolError
from earshot.core.tools.ops import ProcessOps
from earshot.core.tools.state import BackgroundShell, ToolState
from earshot.providers.registry import is_credential_var

if TYPE_CHECKING:
    from anyio.abc import ByteReceiveStream, Process

GIT_FOR_WINDOWS_URL = "https://git-scm.com/download/win"
BACKGROUND_BUFFER_CHARS = 1024 * 1024
"""Unread output a background shell keeps; beyond it the oldest unread output is dropped."""
CLOSE_GRACE_S = 2.0


# --- finding bash ----------------------------------------------------------------------


class ShellChoice(msgspec.Struct, frozen=True):
    """The shell to run ``<path> -c <command>`` with; ``note`` tells the model about a
    fallback (empty when it is bash)."""

    path: str
    note: str = ""


_GIT_BIN_PARENTS = {"mingw64", "mingw32", "clangarm64"}
_SYSTEM_DIRS = {"system32", "syswow64", "sysnative", "windowsapps"}


def _git_roots(git: str) -> Iterator[PureWindowsPath]:
    """Install roots a ``git.exe`` at ``git`` implies: ``<root>\\cmd\\git.exe``,
    ``<root>\\bin\\git.exe`` or ``<root>\\mingw64\\bin\\git.exe``."""
    parent = PureWindowsPath(git).parent
    name = parent.name.lower()
    if name == "bin" and parent.parent.name.lower() in _GIT_BIN_PARENTS:
        yield parent.parent.parent
    if name in {"cmd", "bin"}:
        yield parent.parent


def _windows_candidates(
    env: Mapping[str, str],
    which: Callable[[str], str | None],
    read_registry: Callable[[], str | None],
) -> Iterator[PureWindowsPath]:
    """Where Git Bash may be, most specific first; the registry is read only if reached."""
    upper = {key.upper(): value for key, value in env.items()}
    git = which("git")
    if git:
        for root in _git_roots(git):
            yield root / "bin" / "bash.exe"
            yield root / "usr" / "bin" / "bash.exe"
    for var in ("PROGRAMFILES", "PROGRAMW6432", "PROGRAMFILES(X86)"):
        if upper.get(var):
            yield PureWindowsPath(upper[var], "Git", "bin", "bash.exe")
    if upper.get("LOCALAPPDATA"):
        yield PureWindowsPath(upper["LOCALAPPDATA"], "Programs", "Git", "bin", "bash.exe")
    yield PureWindowsPath("C:/Program Files/Git/bin/bash.exe")
    install = read_registry()
    if install:
        yield PureWindowsPath(install, "bin", "bash.exe")
        yield PureWindowsPath(install, "usr", "bin", "bash.exe")


def _is_windows_system_bash(path: PureWindowsPath) -> bool:
    """WSL's launcher (``System32\\bash.exe`` and its aliases) is never Git Bash."""
    return any(part.lower() in _SYSTEM_DIRS for part in path.parent.parts)


def detect_bash(
    *,
    platform: str,
    env: Mapping[str, str],
    which: Callable[[str], str | None],
    exists: Callable[[str], bool],
    read_registry: Callable[[], str | None],
) -> ShellChoice:
    """The shell for ``platform`` (a ``sys.platform`` value), found only through the given
    callables, so it can be decided over a fake filesystem on any OS."""
    if platform != "win32":
        found = which("bash")
        if found:
            return ShellChoice(found)
        if exists("/bin/sh"):
            return ShellChoice(
                "/bin/sh",
                note="bash was not found on PATH, so this ran with /bin/sh: "
                "use POSIX sh syntax (no arrays, [[ ]], or other bash-only features)",
            )
        raise ToolError(
            "bash was not found on PATH and /bin/sh does not exist, so commands cannot run; "
            "ask the user to install bash or add it to PATH",
            "bash not found",
        )
    looked: list[str] = []
    for candidate in _windows_candidates(env, which, read_registry):
        if _is_windows_system_bash(candidate) or str(candidate) in looked:
            continue
        looked.append(str(candidate))
        if exists(str(candidate)):
            return ShellChoice(str(candidate))
    raise ToolError(
        "Git Bash was not found, and on Windows earshot runs commands only with Git Bash "
        f"(looked in: {'; '.join(looked)}; WSL's bash.exe is not used). Ask the user to "
        f"install Git for Windows from {GIT_FOR_WINDOWS_URL} and restart earshot; until "
        "then use the file tools (read, edit, grep, glob, ls) instead of commands.",
        "Git Bash not found",
    )


if sys.platform == "win32":

    def _read_git_install_path() -> str | None:
        """``InstallPath`` of ``SOFTWARE\\GitForWindows`` (machine, then user; both views)."""
        import winreg

        for hive in (winreg.HKEY_LOCAL_MACHINE, winreg.HKEY_CURRENT_USER):
            for view in (winreg.KEY_WOW64_64KEY, winreg.KEY_WOW64_32KEY):
                try:
                    with winreg.OpenKey(
                        hive, r"SOFTWARE\GitForWindows", 0, winreg.KEY_READ | view
                    ) as key:
                        value, _kind = winreg.QueryValueEx(key, "InstallPath")
                except OSError:
                    continue
                if isinstance(value, str) and value:
                    return value
        return None

else:

    def _read_git_install_path() -> str | None:
        return None


_found: tuple[str, ShellChoice] | None = None
"""The last ``find_bash`` answer and the PATH it was found on."""


def find_bash() -> ShellChoice:
    """The shell on this machine (see ``detect_bash``). Every command asks: the answer is
    kept while PATH is the same and the shell is still an executable file there (one
    ``access`` call instead of a search of PATH); otherwise it is looked up afresh."""
    global _found
    path = os.environ.get("PATH", "")
    if _found is not None and _found[0] == path and os.access(_found[1].path, os.X_OK):
        return _found[1]
    choice = detect_bash(
        platform=sys.platform,
        env=os.environ,
        which=shutil.which,
        exists=os.path.isfile,
        read_registry=_read_git_install_path,
    )
    _found = (path, choice)
    return choice


def child_env(pass_env: Collection[str] = ()) -> dict[str, str]:
    """The environment of a command: earshot's own minus the credentials earshot itself
    uses (every key variable of the provider registry and ``EARSHOT_*`` secrets; see
    ``registry.is_credential_var``) except those named in ``pass_env``, plus ``EARSHOT=1``.
    Nothing else of the user's environment changes."""
    passed = {name.upper() for name in pass_env}
    env = {
        name: value
        for name, value in os.environ.items()
        if name.upper() in passed or not is_credential_var(name)
    }
    env["EARSHOT"] = "1"
    return env


# --- reading output --------------------------------------------------------------------


async def _pump_one(stream: ByteReceiveStream, sink: Callable[[str], None]) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    try:
        async for chunk in stream:
            text = decoder.decode(chunk)
            if text:
                sink(text)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    rest = decoder.decode(b"", final=True)
    if rest:
        sink(rest)


async def pump_output(process: Process, sink: Callable[[str], None]) -> None:
    """Read the process's stdout and stderr concurrently until both reach end of file,
    handing decoded text (UTF-8, bad bytes replaced) to ``sink`` as it arrives, so the two
    streams are merged in arrival order."""
    async with anyio.create_task_group() as tg:
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                tg.start_soon(_pump_one, stream, sink)


class UnreadBuffer:
    """Output not yet read, at most ``limit`` chars: beyond that the oldest is dropped and
    counted, so a reader can say what it missed."""

    def __init__(self, limit: int = BACKGROUND_BUFFER_CHARS) -> None:
        self._limit = limit
        self._chunks: deque[str] = deque()
        self._size = 0
        self._dropped_chars = 0
        self._dropped_lines = 0

    def append(self, text: str) -> None:
        self._chunks.append(text)
        self._size += len(text)
        while self._size > self._limit:
            first = self._chunks[0]
            excess = self._size - self._limit
            if len(first) <= excess:
                cut = self._chunks.popleft()
            else:
                cut, self._chunks[0] = first[:excess], first[excess:]
            self._size -= len(cut)
            self._dropped_chars += len(cut)
            self._dropped_lines += cut.count("\n")

    def take(self) -> tuple[str, int, int]:
        """The unread text, then the chars and lines dropped before it; all reset."""
        text = "".join(self._chunks)
        taken = (text, self._dropped_chars, self._dropped_lines)
        self._chunks.clear()
        self._size = self._dropped_chars = self._dropped_lines = 0
        return taken


# --- background shells -----------------------------------------------------------------


class ShellProcess:
    """A command running in the background. Its reader (see the module docstring) keeps
    draining both pipes into an ``UnreadBuffer`` after the ``bash`` call has returned."""

    def __init__(
        self,
        *,
        shell_id: str,
        command: str,
        description: str,
        process: Process,
        procs: ProcessOps,
        buffer_limit: int = BACKGROUND_BUFFER_CHARS,
    ) -> None:
        self._id = shell_id
        self._command = command
        self.description = description
        self._process = process
        self._procs = procs
        self._unread = UnreadBuffer(buffer_limit)
        self._killed = False
        self._task: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self._id

    @property
    def command(self) -> str:
        return self._command

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process.returncode is None

    def status(self) -> str:
        """``running``, ``killed``, ``exited with code N`` or ``terminated by signal N``."""
        code = self._process.returncode
        if code is None:
            return "running"
        if self._killed:
            return "killed"
        if code < 0:
            return f"terminated by signal {-code}"
        return f"exited with code {code}"

    def take_output(self) -> tuple[str, int, int]:
        """Output since the last call, and the chars and lines dropped from it."""
        return self._unread.take()

    def kill(self) -> None:
        """Kill the process group (if still running); the reader then reaps it."""
        if self._process.returncode is None:
            self._killed = True
            self._procs.kill_tree(self._process)

    async def wait(self) -> int:
        """The exit code, once the process has exited."""
        return await self._process.wait()

    async def settle(self, grace: float = CLOSE_GRACE_S) -> None:
        """Once the process has exited, give the reader up to ``grace`` seconds to read
        what is left in the pipes, so a last look at the shell sees all of it."""
        task = self._task
        if self._process.returncode is not None and task is not None and not task.done():
            await asyncio.wait({task}, timeout=grace)

    def start_reader(self, loop: asyncio.AbstractEventLoop) -> None:
        self._task = loop.create_task(self._read(), name=f"earshot {self._id} output")

    async def _read(self) -> None:
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump_output, self._process, self._unread.append)
                await self._process.wait()
            await self._process.aclose()
        except Exception as exc:  # the task has no awaiter: record the failure, don't lose it
            self._unread.append(f"\n[earshot could not read more output: {exc!r}]\n")

    async def aclose(self, grace: float = CLOSE_GRACE_S) -> None:
        """Kill, let the reader finish (or cancel it), and close the process."""
        self.kill()
        with anyio.CancelScope(shield=True):
            task = self._task
            if task is not None and not task.done():
                await asyncio.wait({task}, timeout=grace)
                if not task.done():
                    task.cancel()
                    await asyncio.wait({task})
            with anyio.move_on_after(grace):
                await self._process.aclose()


def _next_id(state: ToolState) -> str:
    n = len(state.shells) + 1
    while f"bash_{n}" in state.shells:
        n += 1
    return f"bash_{n}"


async def start_background(
    state: ToolState,
    procs: ProcessOps,
    *,
    argv: list[str],
    cwd: Path,
    command: str,
    description: str,
) -> ShellProcess:
    """Spawn ``argv`` and register it in ``state.shells`` under the next ``bash_N``.
    Raises ToolError when not on an asyncio loop; OSError when it cannot start."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError as exc:
        raise ToolError(
            "run_in_background is unavailable here (it needs an asyncio event loop); "
            "run the command in the foreground",
            "background shells unavailable",
        ) from exc
    process = await procs.spawn(argv, cwd=cwd, env=child_env(state.pass_env))
    shell = ShellProcess(
        shell_id=_next_id(state),
        command=command,
        description=description,
        process=process,
        procs=procs,
    )
    shell.start_reader(loop)
    state.shells[shell.id] = shell
    return shell


def get_shell(state: ToolState, shell_id: str) -> ShellProcess:
    shell = state.shells.get(shell_id)
    if isinstance(shell, ShellProcess):
        return shell
    known = [s for s in state.shells.values() if isinstance(s, ShellProcess)]
    listing = (
        "the shells of this session are: "
        + "; ".join(f"{s.id} ({s.status()}): {_one_line(s.command)}" for s in known)
        if known
        else "no background shells have been started in this session"
    )
    raise ToolError(f"no background shell {shell_id!r}; {listing}", f"no shell {shell_id}")


def _one_line(command: str, limit: int = 80) -> str:
    line = " ".join(command.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


async def close_all(state: ToolState) -> None:
    """Kill every background shell of the session, reap it, and forget it. The loop calls
    this when the session ends; safe to call more than once."""
    shells = list(state.shells.values())
    state.shells.clear()
    for shell in shells:
        shell.kill()
    for shell in shells:
        if isinstance(shell, ShellProcess):
            await shell.aclose()


if TYPE_CHECKING:
    _shell_conforms: type[BackgroundShell] = ShellProcess

__all__ = [
    "BACKGROUND_BUFFER_CHARS",
    "GIT_FOR_WINDOWS_URL",
    "ShellChoice",
    "ShellProcess",
    "UnreadBuffer",
    "child_env",
    "close_all",
    "detect_bash",
    "find_bash",
    "get_shell",
    "pump_output",
    "start_background",
]
