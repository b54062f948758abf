"""How earshot sees a file as text, shared by the file tools (read, write, edit, multi_edit,
ls, glob, grep).

::

    sniff_image(data)        media type of a PNG / JPEG / GIF / WebP, else None
    describe_binary(data)    "PDF document", "ELF executable", ... or "binary file"
    decode_text(data)        TextFile (text, encoding, BOM, dominant newline), or None if binary
    split_lines(text)        lines as the model sees them: split on "\\n", one trailing "\\r" off
    dominant_newline(text)   "\\r\\n" when at least half the line endings are CRLF, else "\\n"
    with_newline(text, nl)   text with its line endings made ``nl``
    line_of(text, index)     the 1-based line of a character
    target_path(ctx, path)   the real path a tool reads, writes and records reads under
    shown_path(ctx, path)    the path as the model and the user see it
    missing_message(...)     "no such file", with near names in the same directory
    os_failure(exc, ...)     an OSError as a model-facing ToolError
    in_thread(doing, work)   a file tool's execute: work on a thread, OSErrors for the model

Text is decoded as UTF-8 (a UTF-8 or UTF-16 BOM is honoured); a file that is not UTF-8
and has no NUL bytes and few control bytes is decoded as cp1252, or latin-1 when cp1252
cannot map a byte, so that re-encoding an edited text gives back every byte not edited.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol, TypeVar

import anyio

from earshot.core.tools._withheld import Withheld
from earshot.core.tools.base import ToolContext, ToolError, ToolResult


class _PathArgs(Protocol):
    @property
    def path(self) -> str: ...


A = TypeVar("A", bound=_PathArgs)

_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

_BINARY_KINDS = (
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (or a docx/xlsx/jar built on one)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable or library"),
    (b"\xca\xfe\xba\xbe", "Java class file or Mach-O universal binary"),
    (b"MZ", "Windows executable or DLL"),
    (b"\x00asm", "WebAssembly module"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"BM", "BMP image"),
    (b"II*\x00", "TIFF image"),
    (b"MM\x00*", "TIFF image"),
    (b"\x00\x00\x01\x00", "ICO image"),
)

_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")
_LONE_LF = re.compile(r"(?<!\r)\n")


def sniff_image(data: bytes) -> str | None:
    """The media type of an image a model can be shown, by its magic bytes."""
    for magic, media_type in _IMAGES:
        if data.startswith(magic):
            return media_type
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def describe_binary(data: bytes) -> str:
    for magic, kind in _BINARY_KINDS:
        if data.startswith(magic):
            return kind
    return "binary file"


def dominant_newline(text: str) -> str:
    """``"\r\n"`` when at least half the line endings of ``text`` are CRLF, else ``"\n"``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def with_newline(text: str, newline: str) -> str:
    """``text`` with its line endings as ``newline``: lone LFs become CRLF, or CRLFs LF."""
    return _LONE_LF.sub("\r\n", text) if newline == "\r\n" else text.replace("\r\n", "\n")


def os_failure(exc: OSError, doing: str, path: Path) -> ToolError:
    """An ``OSError`` as a model-facing error: what failed, on what, and why."""
    why = exc.strerror or str(exc)
    return ToolError(f"{doing} {path} failed: {why}", f"{doing} failed: {why}")


@dataclass(frozen=True)
class TextFile:
    """A decoded text file. ``text`` keeps the file's own line endings; ``encode`` gives
    back bytes in the same encoding with the same BOM."""

    text: str
    encoding: str
    bom: bytes = b""

    @property
    def newline(self) -> str:
        return dominant_newline(self.text)

    def encode(self, text: str) -> bytes:
        """``text`` as this file's bytes; ``ToolError`` naming the first character the
        encoding cannot hold."""
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start : exc.end]
            raise ToolError(
                f"the new text contains {bad!r}, which the file's encoding ({self.encoding}) "
                "cannot represent; use characters the file can hold (or an escape the "
                "language allows)",
                "character not representable in the file's encoding",
            ) from exc


def decode_text(data: bytes) -> TextFile | None:
    """``data`` as text, or None when it looks binary (NUL bytes, or not UTF-8 and more
    than one byte in ten a control character)."""
    for bom, encoding in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom) and not data.startswith(b"\xff\xfe\x00\x00"):
            try:
                return TextFile(data[len(bom) :].decode(encoding), encoding, bom)
            except UnicodeDecodeError:
                return None
    if b"\x00" in data:
        return None
    try:
        return TextFile(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    head = data[:8192]
    controls = sum(1 for b in head if (b < 0x20 and b not in _TEXT_CONTROLS) or b == 0x7F)
    if controls * 10 > len(head):
        return None
    try:
        return TextFile(data.decode("cp1252"), "cp1252")
    except UnicodeDecodeError:
        return TextFile(data.decode("latin-1"), "latin-1")


def split_lines(text: str) -> list[str]:
    """Lines split on ``"\\n"`` only (as editors and ``line_of`` count them), each without
    its line ending; no empty last line for a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def line_of(text: str, index: int) -> int:
    """The 1-based line number of character ``index`` of ``text``."""
    return text.count("\n", 0, index) + 1


def target_path(ctx: ToolContext, path: str) -> Path:
    """The real path (symlinks resolved) behind ``path``: what is read, written, and
    recorded in ``ctx.state``, so a symlink is edited in place rather than replaced."""
    return ctx.files.realpath(ctx.resolve(path))


def shown_path(ctx: ToolContext, path: Path) -> str:
    """``path`` relative to the working directory when it is inside it, else absolute."""
    try:
        return path.relative_to(ctx.files.realpath(ctx.cwd)).as_posix() or "."
    except ValueError:
        return str(path)


def missing_message(ctx: ToolContext, path: Path, *, what: str = "file") -> str:
    """``no such file: X``, with names in the same directory that are close to it."""
    message = f"no such {what}: {path}"
    parent = ctx.files.stat(path.parent)
    if parent is None or not parent.is_dir:
        return f"{message} (the directory {path.parent} does not exist either)"
    try:
        names = ctx.files.list_dir(path.parent)
    except OSError:
        return message
    withheld = Withheld(ctx, "read")  # a near name a deny rule covers is not suggested
    names = [n for n in names if not withheld.hides(path.parent / n)]
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    if close:
        message += "; did you mean " + ", ".join(str(path.parent / n) for n in close) + "?"
    return message


def in_thread(
    doing: str, work: Callable[[A, ToolContext], ToolResult], *, read_only: bool
) -> Callable[[A, ToolContext], Awaitable[ToolResult]]:
    """A file tool's ``execute``: ``work`` on a worker thread, an ``OSError`` turned into a
    ToolError naming the path (``os_failure``). A read-only one is abandoned when the turn
    is interrupted; a change is never left half done."""

    def guarded(args: A, ctx: ToolContext) -> ToolResult:
        try:
            return work(args, ctx)
        except OSError as exc:
            raise os_failure(exc, doing, ctx.resolve(args.path)) from exc

    async def execute(args: A, ctx: ToolContext) -> ToolResult:
        return await anyio.to_thread.run_sync(
            partial(guarded, args, ctx), abandon_on_cancel=read_only
        )

    return execute


__all__ = [
    "TextFile",
    "decode_text",
    "describe_binary",
    "dominant_newline",
    "in_thread",
    "line_of",
    "missing_message",
    "os_failure",
    "shown_path",
    "sniff_image",
    "split_lines",
    "target_path",
    "with_newline",
]
