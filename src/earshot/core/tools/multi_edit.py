"""The ``multi_edit`` tool: several exact find/replace edits to one file, all or nothing.

Edits apply in order to the file's text in memory, each to the result of the ones before;
the file is written once, only when every edit applied. The matching rules are ``edit``'s
(``apply_edit``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from earshot.core.tools._diff import diff_stats, unified_diff
from earshot.core.tools._files import in_thread
from earshot.core.tools._output import cap_text
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.edit import (
    apply_edit,
    change_of,
    load_for_change,
    preview_request,
    save_change,
)

DESCRIPTION = """
Several `edit`s of one file (`read` in this session, unchanged since), each applied to the
text the ones before left; all or none.
"""

_MAX_RESULT_DIFF_LINES = 80


class EditSpec(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    old_string: str
    new_string: str
    replace_all: bool = False


class MultiEditInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: str
    edits: Annotated[
        list[EditSpec],
        msgspec.Meta(min_length=1),
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
        display=change_of(loaded, loaded.file.text, text, diff),
    )


_execute = in_thread("edit", _multi_edit, read_only=False)


def _permission(args: MultiEditInput, ctx: ToolContext) -> PermissionRequest:
    edits = [(e.old_string, e.new_string, e.replace_all) for e in args.edits]
    return preview_request(ctx, "multi_edit", args.path, edits)


TOOL = define_tool(
    name="multi_edit",
    description=DESCRIPTION,
    input_type=MultiEditInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "TOOL", "EditSpec", "MultiEditInput"]
