"""The ``read`` tool: a file as numbered lines, or an image, within size limits. How a file
is seen as text (shared by every file tool) lives in ``_files``.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Annotated

import msgspec

from earshot.core.tools._files import (
    decode_text,
    describe_binary,
    in_thread,
    missing_message,
    shown_path,
    sniff_image,
    split_lines,
    target_path,
)
from earshot.core.tools._output import cut_marker
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

DESCRIPTION = """
Read a file as `cat -n` output (line number, tab, line): `limit` lines from line `offset`
(1-based). Long lines and long output are cut, with a marker saying where to continue.
Images are shown to models that can see them. Directories: `ls`.
"""


class ReadInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: str
    offset: Annotated[int, msgspec.Meta(ge=1)] = 1
    limit: Annotated[int, msgspec.Meta(ge=1)] = DEFAULT_LIMIT


# --- seeing a file as text -------------------------------------------------------------


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


_execute = in_thread("read", _read, read_only=True)


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

__all__ = ["DESCRIPTION", "MAX_FILE_BYTES", "TOOL", "ReadInput", "size_text"]
