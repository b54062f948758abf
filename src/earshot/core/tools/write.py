"""The ``write`` tool: create a file, or replace one read in this session.

A new file is written as UTF-8, as given. An existing file keeps its encoding and BOM, and
a CRLF file keeps CRLF line endings (``\\n`` in the content is written as ``\\r\\n``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from earshot.core.tools._diff import capped_diff, diff_stats, unified_diff
from earshot.core.tools._files import (
    TextFile,
    decode_text,
    in_thread,
    shown_path,
    split_lines,
    target_path,
    with_newline,
)
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.display import file_change

DESCRIPTION = """
Create a file (and missing parents) or replace a whole one, which must have been `read` in
this session, unchanged since. Keeps encoding, BOM and CRLF. To change part of a file use
`edit` or `multi_edit`.
"""


class WriteInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: str
    content: str


@dataclass(frozen=True)
class _Plan:
    path: Path
    name: str
    old: TextFile | None  # None: a new file, or one that was not text
    existed: bool
    text: str
    data: bytes


def _plan(args: WriteInput, ctx: ToolContext) -> _Plan:
    """What writing would put on disk; refuses a directory. Staleness is not checked."""
    path = target_path(ctx, args.path)
    name = shown_path(ctx, path)
    st = ctx.files.stat(path)
    if st is not None and st.is_dir:
        raise ToolError(f"{path} is a directory; give a file path", f"{name} is a directory")
    if st is None:
        return _Plan(path, name, None, False, args.content, args.content.encode("utf-8"))
    old = decode_text(ctx.files.read_bytes(path))
    if old is None:
        return _Plan(path, name, None, True, args.content, args.content.encode("utf-8"))
    text = args.content
    if old.newline == "\r\n":
        text = with_newline(text, "\r\n")
    return _Plan(path, name, old, True, text, old.encode(text))


def _write(args: WriteInput, ctx: ToolContext) -> ToolResult:
    path = target_path(ctx, args.path)
    st = ctx.files.stat(path)
    if st is not None and not st.is_dir:
        stale = ctx.state.stale_reason(path, ctx.files)
        if stale is not None:
            raise ToolError(stale, f"{shown_path(ctx, path)} not read, or changed since")
    plan = _plan(args, ctx)
    if ctx.abort.is_set():
        raise ToolError(f"interrupted before writing; {plan.path} is unchanged", "interrupted")
    ctx.files.write_bytes(plan.path, plan.data)
    ctx.state.record_read(plan.path, plan.data, ctx.files)
    lines = len(split_lines(plan.text))
    diff = unified_diff(plan.old.text if plan.old else None, plan.text, plan.name)
    added, removed = diff_stats(diff)
    s = "" if lines == 1 else "s"
    if plan.existed:
        text = f"Overwrote {plan.name} ({lines} line{s}; +{added} -{removed} lines changed)."
        brief = f"Wrote {plan.name} (+{added} -{removed})"
    else:
        text = f"Created {plan.name} ({lines} line{s})."
        brief = f"Created {plan.name} ({lines} line{s})"
    old_text = plan.old.text if plan.old else None
    change = file_change(str(plan.path), old_text, plan.text, capped_diff(diff))
    return ToolResult.text(text, brief=brief, display=change)


_execute = in_thread("write", _write, read_only=False)


def _permission(args: WriteInput, ctx: ToolContext) -> PermissionRequest:
    path = ctx.resolve(args.path)
    try:
        plan = _plan(args, ctx)
    except (ToolError, OSError):
        detail = unified_diff(None, args.content, shown_path(ctx, path))
        return PermissionRequest(tool="write", kind="edit", paths=(path,), detail=detail)
    old_text = plan.old.text if plan.old else None
    detail = unified_diff(old_text, plan.text, plan.name)
    change = file_change(str(plan.path), old_text, plan.text, capped_diff(detail))
    return PermissionRequest(tool="write", kind="edit", paths=(path,), detail=detail, change=change)


TOOL = define_tool(
    name="write",
    description=DESCRIPTION,
    input_type=WriteInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "TOOL", "WriteInput"]
