"""The ``multi_edit`` tool: several exact find/replace edits to one file, all or nothing.

Edits apply in order to the file's text in memory, each to the result of the ones before;
the file is written once, only when every edit applied. The matching rules are ``edit``'s
(``apply_edit``).
"""

from __future__ import annotations

from functools import partial
from typing import Annotated

import anyio
import msgspec

from earshot.core.tools._diff import capped_diff, diff_stats, unified_diff
from earshot.core.tools._output import cap_text
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.edit import apply_edit, load_for_change, preview_diff, save_change
from earshot.core.tools.read import os_failure

DESCRIPTION = """
Make several exact find/replace edits to one file in one step. Edits apply in order, each
to the text left by the ones before (so line numbers in an error refer to that text); if
any edit fails, none is written and the error names the edit. Each `old_string` must match
exactly once unless its `replace_all` is set. The file must have been read in this session
and not changed since. Line endings, BOM and encoding are kept. Use `edit` for a single
change and `write` to create a file.
"""

_MAX_RESULT_DIFF_LINES = 80


class EditSpec(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    old_string: Annotated[
        str, msgspec.Meta(description="Exact text to find (must match once unless replace_all)")
    ]
    new_string: Annotated[
        str, msgspec.Meta(description="Text to put in its place (must differ from old_string)")
    ]
    replace_all: Annotated[
        bool, msgspec.Meta(description="Replace every occurrence instead of exactly one")
    ] = False


class MultiEditInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: Annotated[
        str, msgspec.Meta(description="File to change: absolute, or relative to the working dir")
    ]
    edits: Annotated[
        list[EditSpec],
        msgspec.Meta(min_length=1, description="Edits to apply in order, all or none"),
    ]


def _multi_edit(args: MultiEditInput, ctx: ToolContext) -> ToolResult:
    loaded = load_for_change(ctx, args.path)
    text = loaded.file.text
    counts: list[int] = []
    total = len(args.edits)
    for number, spec in enumerate(args.edits, start=1):
        try:
            replaced = apply_edit(
                text, spec.old_string, spec.new_string, replace_all=spec.replace_all
            )
        except ToolError as exc:
            raise ToolError(
                f"edit {number} of {total} failed: {exc.message}. No edit was applied; "
                f"{loaded.path} is unchanged",
                f"edit {number} of {total} failed: {exc.brief}",
            ) from exc
        text = replaced.text
        counts.append(replaced.count)
    save_change(ctx, loaded, text)
    diff = unified_diff(loaded.file.text, text, loaded.name)
    added, removed = diff_stats(diff)
    replaced_total = sum(counts)
    summary = (
        f"Edited {loaded.name}: applied {total} edit{'s' if total != 1 else ''} "
        f"({replaced_total} replacement{'s' if replaced_total != 1 else ''}, "
        f"+{added} -{removed} lines). The change:\n"
    )
    shown = cap_text(
        diff,
        max_chars=16 * 1024,
        max_lines=_MAX_RESULT_DIFF_LINES,
        hint="read the file to see the rest",
        keep="head",
    )
    return ToolResult.text(
        summary + shown.rstrip("\n"),
        brief=f"Edited {loaded.name} (+{added} -{removed})",
        display={"diff": capped_diff(diff)},
    )


def _multi_edit_or_fail(args: MultiEditInput, ctx: ToolContext) -> ToolResult:
    try:
        return _multi_edit(args, ctx)
    except OSError as exc:
        raise os_failure(exc, "edit", ctx.resolve(args.path)) from exc


async def _execute(args: MultiEditInput, ctx: ToolContext) -> ToolResult:
    return await anyio.to_thread.run_sync(partial(_multi_edit_or_fail, args, ctx))


def _permission(args: MultiEditInput, ctx: ToolContext) -> PermissionRequest:
    return PermissionRequest(
        tool="multi_edit",
        kind="edit",
        paths=(ctx.resolve(args.path),),
        reads=(ctx.resolve(args.path),),
        detail=preview_diff(
            ctx, args.path, [(e.old_string, e.new_string, e.replace_all) for e in args.edits]
        ),
    )


TOOL = define_tool(
    name="multi_edit",
    description=DESCRIPTION,
    input_type=MultiEditInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "TOOL", "EditSpec", "MultiEditInput"]
