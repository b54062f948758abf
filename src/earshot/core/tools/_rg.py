"""Finding and running ripgrep for ``grep``.

::

    find_rg(environ)       the rg to run, or None: ``EARSHOT_NO_RG=1`` disables it,
                           ``EARSHOT_RG`` names a binary, then a bundled one, then PATH
    bundled_rg()           the binary a distribution may ship at ``earshot/_bin/rg[.exe]``
    BASE_FLAGS             what makes rg search the files ``_ignore.walk`` yields
    search_argv(...)       the command line of one search
    run_rg(ctx, argv, ...) runs rg through ``ctx.procs``, feeding stdout to a callback
                           that can stop it early; honours ``ctx.abort``
    matching_files(...)    ``--files-with-matches``: the paths rg listed
    matching_counts(...)   ``--count``: matching lines per file (rg prints nothing for a
                           file in which it met a NUL byte)
    matching_lines(...)    ``--json``: one ``RgFile`` per file with its match and context
                           lines, handed to a callback that can stop the search

rg has no say in what a search means: ``grep`` builds the arguments, and anything rg
cannot do (an unknown flag on an old rg, a regex its dialect refuses) comes back as a
non-zero ``RgRun`` for ``grep`` to hand to its pure-Python search.
"""

from __future__ import annotations

import base64
import functools
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio
import msgspec

from earshot.core.tools.base import ToolContext, ToolError

DISABLE_ENV = "EARSHOT_NO_RG"
BINARY_ENV = "EARSHOT_RG"

BASE_FLAGS = (
    "--no-config",  # no RIPGREP_CONFIG_PATH flags
    "--hidden",  # dotfiles are searched, as git lists them
    "--no-ignore-dot",  # .ignore / .rgignore are not git's
    "--no-ignore-global",  # neither is the user's global excludes file (see _ignore.py)
    "--glob=!.git",  # --hidden would otherwise enter .git
    "--no-messages",  # unreadable files are skipped quietly, as the walker does
    "--no-mmap",  # binary detection reads the file rather than sampling a map
)

_STDERR_LIMIT = 16 * 1024


def _exe(name: str) -> str:
    return f"{name}.exe" if sys.platform == "win32" else name


@functools.cache
def bundled_rg() -> Path | None:
    """The rg shipped inside the installed package, if a distribution put one there."""
    candidate = Path(__file__).resolve().parents[2] / "_bin" / _exe("rg")
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def find_rg(environ: Mapping[str, str] | None = None) -> str | None:
    """The ripgrep binary ``grep`` should run, or None to use its Python search."""
    env = os.environ if environ is None else environ
    if env.get(DISABLE_ENV, "").strip() not in ("", "0"):
        return None
    named = env.get(BINARY_ENV, "").strip()
    if named and Path(named).is_file() and os.access(named, os.X_OK):
        return named
    bundled = bundled_rg()
    if bundled is not None:
        return str(bundled)
    return shutil.which("rg", path=env.get("PATH"))


def search_argv(
    rg: str,
    root: Path,
    pattern: str,
    *,
    mode: Literal["files", "count", "lines"],
    ignore_case: bool = False,
    multiline: bool = False,
    name_globs: tuple[str, ...] = (),
    before: int = 0,
    after: int = 0,
    max_filesize_mib: int = 32,
) -> list[str]:
    """rg's arguments for one search of the directory ``root``. ``name_globs`` (file
    name globs) let rg skip files early through a type of its own: unlike ``--glob``, a
    type never brings back an ignored file."""
    argv = [rg, *BASE_FLAGS, f"--max-filesize={max_filesize_mib}M"]
    if ignore_case:
        argv.append("--ignore-case")
    if multiline:
        argv += ["--multiline", "--multiline-dotall"]
    if name_globs:
        argv += [f"--type-add=earshot:{g}" for g in name_globs] + ["--type=earshot"]
    if mode == "files":
        argv += ["--files-with-matches", "--null"]
    elif mode == "count":
        argv += ["--count", "--null"]
    else:
        argv += ["--json", "--sort=path", f"--before-context={before}", f"--after-context={after}"]
    return [*argv, "--regexp", pattern, "--", str(root)]


@dataclass
class RgRun:
    returncode: int | None
    """rg's exit status: 0 found, 1 found nothing, 2 an error (None if it was stopped)."""
    stderr: str
    stopped: bool
    """The consumer had enough and rg was killed."""

    @property
    def failed(self) -> bool:
        """rg could not do the search (a bad flag, a regex it refuses). An exit status of
        2 with nothing on stderr only means files it could not read (``--no-messages``)."""
        if self.stopped or self.returncode in (0, 1):
            return False
        return bool(self.stderr) or self.returncode != 2


async def run_rg(
    ctx: ToolContext, argv: list[str], *, cwd: Path, on_output: Callable[[bytes], bool]
) -> RgRun:
    """Run ``argv`` (rg and its arguments) and feed its stdout to ``on_output`` chunk by
    chunk; when that returns False rg is killed and ``stopped`` is set. Raises
    ``ToolError`` when ``ctx.abort`` is set first. The process is always reaped; one
    that cannot be started is a failed run."""
    try:
        process = await ctx.procs.spawn(argv, cwd=cwd)
    except OSError as exc:
        return RgRun(returncode=None, stderr=f"cannot run {argv[0]}: {exc}", stopped=False)
    stderr = bytearray()
    stopped = False
    aborted = False
    try:
        async with anyio.create_task_group() as outer:

            async def watch_abort() -> None:
                nonlocal aborted
                await ctx.abort.wait()
                aborted = True
                outer.cancel_scope.cancel()

            async def drain_stderr() -> None:
                if process.stderr is None:
                    return
                async for chunk in process.stderr:
                    if len(stderr) < _STDERR_LIMIT:
                        stderr.extend(chunk)

            outer.start_soon(watch_abort)
            async with anyio.create_task_group() as streams:
                streams.start_soon(drain_stderr)
                if process.stdout is not None:
                    async for chunk in process.stdout:
                        if not on_output(chunk):
                            stopped = True
                            ctx.procs.kill_tree(process)
                            break
            await process.wait()
            outer.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            ctx.procs.kill_tree(process)
        with anyio.CancelScope(shield=True):
            await process.aclose()
    if aborted:
        raise ToolError("grep was interrupted before it finished", "interrupted")
    return RgRun(
        returncode=None if stopped else process.returncode,
        stderr=stderr.decode("utf-8", errors="replace"),
        stopped=stopped,
    )


class LineSplitter:
    """Bytes in, complete ``\\n``-terminated lines out (the last one on ``finish``).
    A line longer than a chunk is joined once, when its end arrives."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        if b"\n" not in chunk:
            self._parts.append(chunk)
            return []
        head, *middle, tail = chunk.split(b"\n")
        first = b"".join([*self._parts, head])
        self._parts = [tail] if tail else []
        return [first, *middle]

    def finish(self) -> list[bytes]:
        rest = b"".join(self._parts)
        self._parts = []
        return [rest] if rest else []


class _Data(msgspec.Struct):
    """rg's text, or (when not UTF-8) its bytes in base64."""

    text: str | None = None
    raw: str | None = msgspec.field(default=None, name="bytes")

    def decoded(self) -> str:
        if self.text is not None:
            return self.text
        return base64.b64decode(self.raw or "").decode("utf-8", errors="replace")

    def as_path(self) -> Path:
        if self.text is not None:
            return Path(self.text)
        return Path(os.fsdecode(base64.b64decode(self.raw or "")))


class _LinesData(msgspec.Struct):
    path: _Data
    lines: _Data
    line_number: int | None = None


class _EndData(msgspec.Struct):
    path: _Data
    binary_offset: int | None = None


class _Begin(msgspec.Struct, tag_field="type", tag="begin"):
    data: msgspec.Raw


class _Match(msgspec.Struct, tag_field="type", tag="match"):
    data: _LinesData


class _Context(msgspec.Struct, tag_field="type", tag="context"):
    data: _LinesData


class _End(msgspec.Struct, tag_field="type", tag="end"):
    data: _EndData


class _Summary(msgspec.Struct, tag_field="type", tag="summary"):
    data: msgspec.Raw


_Event = _Begin | _Match | _Context | _End | _Summary
_DECODER = msgspec.json.Decoder(_Event)


@dataclass
class RgFile:
    """One searched file: its lines rg reported, by number, each with whether it is part
    of a match (else context). ``binary`` when rg met a NUL byte in it."""

    path: Path
    lines: dict[int, tuple[str, bool]] = field(default_factory=dict)
    binary: bool = False


class EventReader:
    """Turns rg ``--json`` lines into one ``RgFile`` per file, handed to ``on_file`` when
    the file's ``end`` arrives; ``on_file`` returns False to stop."""

    def __init__(self, on_file: Callable[[RgFile], bool]) -> None:
        self._on_file = on_file
        self._current: RgFile | None = None

    def feed(self, line: bytes) -> bool:
        if not line.strip():
            return True
        event = _DECODER.decode(line)
        match event:
            case _Match(data=data) | _Context(data=data):
                if self._current is None:
                    self._current = RgFile(path=data.path.as_path())
                is_match = isinstance(event, _Match)
                first = data.line_number or 1
                texts = data.lines.decoded().split("\n")
                if len(texts) > 1 and texts[-1] == "":
                    texts.pop()
                for number, text in enumerate(texts, start=first):
                    known = self._current.lines.get(number)
                    self._current.lines[number] = (text, is_match or bool(known and known[1]))
                return True
            case _End(data=data):
                done = self._current or RgFile(path=data.path.as_path())
                done.binary = data.binary_offset is not None
                self._current = None
                return self._on_file(done)
            case _Begin() | _Summary():
                return True


async def matching_files(ctx: ToolContext, argv: list[str], *, cwd: Path) -> list[Path] | None:
    """The files an ``--files-with-matches --null`` search listed, or None if rg failed."""
    listed = bytearray()

    def on_output(chunk: bytes) -> bool:
        listed.extend(chunk)
        return True

    run = await run_rg(ctx, argv, cwd=cwd, on_output=on_output)
    if run.failed:
        return None
    return [Path(os.fsdecode(raw)) for raw in bytes(listed).split(b"\0") if raw.strip()]


async def matching_counts(
    ctx: ToolContext, argv: list[str], *, cwd: Path
) -> list[tuple[Path, int]] | None:
    """The ``path NUL count`` lines of a ``--count --null`` search, or None if rg failed."""
    printed = bytearray()

    def on_output(chunk: bytes) -> bool:
        printed.extend(chunk)
        return True

    run = await run_rg(ctx, argv, cwd=cwd, on_output=on_output)
    if run.failed:
        return None
    counts: list[tuple[Path, int]] = []
    for line in bytes(printed).split(b"\n"):
        path, sep, count = line.rpartition(b"\0")
        if sep and count.strip().isdigit():
            counts.append((Path(os.fsdecode(path)), int(count)))
    return counts


async def matching_lines(
    ctx: ToolContext, argv: list[str], *, cwd: Path, on_file: Callable[[RgFile], bool]
) -> bool:
    """Run a ``--json`` search, handing each file to ``on_file`` (False stops rg);
    False if rg failed or printed JSON this reader does not understand."""
    splitter = LineSplitter()
    reader = EventReader(on_file)
    garbled = False

    def on_output(chunk: bytes) -> bool:
        nonlocal garbled
        try:
            return all(reader.feed(line) for line in splitter.feed(chunk))
        except msgspec.DecodeError:
            garbled = True
            return False

    run = await run_rg(ctx, argv, cwd=cwd, on_output=on_output)
    if run.failed or garbled:
        return False
    if not run.stopped:
        try:
            for line in splitter.finish():
                reader.feed(line)
        except msgspec.DecodeError:
            return False
    return True


__all__ = [
    "BASE_FLAGS",
    "BINARY_ENV",
    "DISABLE_ENV",
    "EventReader",
    "LineSplitter",
    "RgFile",
    "RgRun",
    "bundled_rg",
    "find_rg",
    "matching_counts",
    "matching_files",
    "matching_lines",
    "run_rg",
    "search_argv",
]
