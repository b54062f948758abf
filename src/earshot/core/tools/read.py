"""The ``read`` tool, and how earshot sees a file as text (shared by the file tools).

::

    sniff_image(data)        media type of a PNG / JPEG / GIF / WebP, else None
    describe_binary(data)    "PDF document", "ELF executable", ... or "binary file"
    decode_text(data)        TextFile (text, encoding, BOM, dominant newline), or None if binary
    split_lines(text)        lines as the model sees them: split on "\\n", one trailing "\\r" off
    dominant_newline(text)   "\\r\\n" when at least half the line endings are CRLF, else "\\n"
    with_newline(text, nl)   text with its line endings made ``nl``
    target_path(ctx, path)   the real path a tool reads, writes and records reads under
    missing_message(...)     "no such file", with near names in the same directory
    os_failure(exc, ...)     an OSError as a model-facing ToolError

Text is decoded as UTF-8 (a UTF-8 or UTF-16 BOM is honoured); a file that is not UTF-8
and has no NUL bytes and few control bytes is decoded as cp1252, or latin-1 when cp1252
cannot map a byte, so that re-encoding an edited text gives back every byte not edited.
"""

from __future__ import annotations

import base64
import difflib
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import anyio
import msgspec

from earshot.core.tools._output import cut_marker
from earshot.core.tools._withheld import Withheld
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.providers.types import ImagePart, TextPart

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 256 * 1024
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_IMAGE_BYTES = 3_750_000  # base64 of this stays under the 5 MB vendors accept

DESCRIPTION = f"""
Read a file from the local filesystem. Output is `cat -n` style: line number, tab, line.
Reads up to {DEFAULT_LIMIT} lines from `offset` (1-based, default 1); pass `offset` and
`limit` to page through longer files. Lines longer than {MAX_LINE_CHARS} characters are cut,
and one call returns at most {MAX_OUTPUT_CHARS // 1024} KiB of text; a marker says where to
continue. Images (PNG, JPEG, GIF, WebP) are shown to models that can see images. Binary
files are refused. Use `ls` for directories and `grep` to search large files. Read a file
before changing it with `edit`, `multi_edit` or `write`.
"""


class ReadInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: Annotated[
        str, msgspec.Meta(description="File to read: absolute, or relative to the working dir")
    ]
    offset: Annotated[
        int, msgspec.Meta(ge=1, description="1-based line number to start at (default 1)")
    ] = 1
    limit: Annotated[
        int,
        msgspec.Meta(ge=1, description=f"How many lines to read (default {DEFAULT_LIMIT})"),
    ] = DEFAULT_LIMIT


# --- seeing a file as text -------------------------------------------------------------

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


def size_text(n: int) -> str:
    if n < 1024:
        return f"{n:,} bytes"
    unit = "KiB" if n < 1024 * 1024 else "MiB"
    scaled = n / 1024 if unit == "KiB" else n / (1024 * 1024)
    return f"{n:,} bytes ({scaled:.1f} {unit})"


# --- the tool ----------------------------------------------------------------------------


def _numbered(lines: list[str], offset: int, limit: int, total: int) -> tuple[str, int]:
    """Lines ``offset``.. numbered, within the output cap, with a marker for what follows;
    and the number of the last line shown."""
    out: list[str] = []
    used = 0
    end = min(offset - 1 + limit, total)
    for number in range(offset, end + 1):
        line = lines[number - 1]
        if len(line) > MAX_LINE_CHARS:
            line = (
                line[:MAX_LINE_CHARS]
                + f" [... line cut: {len(line) - MAX_LINE_CHARS:,} more chars;"
                " use grep or bash to see the rest ...]"
            )
        row = f"{number:>6}\t{line}\n"
        if out and used + len(row) > MAX_OUTPUT_CHARS:
            rest = lines[number - 1 : end]
            out.append(
                cut_marker(
                    lines=len(rest),
                    chars=sum(len(r) + 1 for r in rest),
                    hint=f"output capped at {MAX_OUTPUT_CHARS // 1024} KiB; "
                    f"continue with offset={number}",
                )
            )
            return "".join(out), number - 1
        out.append(row)
        used += len(row)
    if end < total:
        rest = lines[end:]
        out.append(
            cut_marker(
                lines=len(rest),
                chars=sum(len(r) + 1 for r in rest),
                hint=f"file has {total:,} lines; continue with offset={end + 1}",
            )
        )
    return "".join(out).rstrip("\n"), end


def _read(args: ReadInput, ctx: ToolContext) -> ToolResult:
    path = target_path(ctx, args.path)
    name = shown_path(ctx, path)
    st = ctx.files.stat(path)
    if st is None:
        raise ToolError(missing_message(ctx, path), f"no such file: {name}")
    if st.is_dir:
        raise ToolError(
            f"{path} is a directory; use ls to list it (or glob to find files in it)",
            f"{name} is a directory",
        )
    if st.size > MAX_FILE_BYTES:
        raise ToolError(
            f"{path} is {size_text(st.size)}, more than the {MAX_FILE_BYTES // 2**20} MiB "
            "read opens; use grep to find the part you need, or bash (head, tail, sed -n)",
            f"{name} is too large to read",
        )
    data = ctx.files.read_bytes(path)
    media_type = sniff_image(data)
    if media_type is not None:
        return _image(ctx, path, name, data, media_type)
    decoded = decode_text(data)
    if decoded is None:
        raise ToolError(
            f"{path} is a {describe_binary(data)} ({size_text(len(data))}), not text; "
            "read shows text files and images only. Inspect it with bash using a tool "
            "made for its format",
            f"{name} is binary",
        )
    ctx.state.record_read(path, data, ctx.files)
    lines = split_lines(decoded.text)
    total = len(lines)
    if total == 0:
        return ToolResult.text(f"{path} is empty (0 lines).", brief=f"Read {name} (empty)")
    if args.offset > total:
        raise ToolError(
            f"offset {args.offset} is past the end of {path}, which has {total:,} lines; "
            f"use an offset from 1 to {total}",
            "offset past end of file",
        )
    body, last = _numbered(lines, args.offset, args.limit, total)
    if decoded.encoding != "utf-8" or decoded.bom:
        body = f"[{decoded.encoding} text{' with BOM' if decoded.bom else ''}]\n" + body
    return ToolResult.text(body, brief=f"Read {name} (lines {args.offset}-{last} of {total:,})")


def _image(ctx: ToolContext, path: Path, name: str, data: bytes, media_type: str) -> ToolResult:
    kind = media_type.removeprefix("image/").upper()
    if not ctx.vision:
        raise ToolError(
            f"{path} is a {kind} image ({size_text(len(data))}); the current model cannot "
            "see images, so read cannot show it. Carry on without its content, or ask the "
            "user to describe it",
            f"{name} is an image (model has no vision)",
        )
    if len(data) > MAX_IMAGE_BYTES:
        raise ToolError(
            f"{path} is a {kind} image of {size_text(len(data))}, larger than the "
            f"{MAX_IMAGE_BYTES:,} bytes an image may be; make a smaller copy (e.g. with bash) "
            "and read that",
            f"{name} is too large an image",
        )
    ctx.state.record_read(path, data, ctx.files)
    return ToolResult(
        content=[
            TextPart(text=f"{path}: {kind} image, {size_text(len(data))}"),
            ImagePart(media_type=media_type, data=base64.b64encode(data).decode("ascii")),
        ],
        brief=f"Read {name} ({kind} image)",
    )


def _read_or_fail(args: ReadInput, ctx: ToolContext) -> ToolResult:
    try:
        return _read(args, ctx)
    except OSError as exc:
        raise os_failure(exc, "read", ctx.resolve(args.path)) from exc


async def _execute(args: ReadInput, ctx: ToolContext) -> ToolResult:
    return await anyio.to_thread.run_sync(partial(_read_or_fail, args, ctx), abandon_on_cancel=True)


def _permission(args: ReadInput, ctx: ToolContext) -> PermissionRequest:
    path = ctx.resolve(args.path)
    return PermissionRequest(tool="read", kind="read", paths=(path,))


TOOL = define_tool(
    name="read",
    description=DESCRIPTION,
    input_type=ReadInput,
    execute=_execute,
    read_only=True,
    permission=_permission,
)

__all__ = [
    "DESCRIPTION",
    "TOOL",
    "ReadInput",
    "TextFile",
    "decode_text",
    "describe_binary",
    "dominant_newline",
    "line_of",
    "missing_message",
    "os_failure",
    "shown_path",
    "size_text",
    "sniff_image",
    "split_lines",
    "target_path",
    "with_newline",
]
