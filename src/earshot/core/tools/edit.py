"""The ``edit`` tool: one exact find/replace in a file; and the editing core that
``multi_edit`` shares.

::

    apply_edit(text, old, new, replace_all)   -> Replaced (new text, count, where), or
                                                 ToolError saying why (no match and the
                                                 nearest loose match; how many matches, where)
    load_for_change(ctx, path)                -> Loaded (path, decoded file), refusing a file
                                                 not read this session or changed on disk since
    save_change(ctx, loaded, text)            encodes as the file was (encoding, BOM), writes
                                              atomically, records the new content as read
    change_result(...)                        the model's summary: a numbered snippet around
                                              the change; the FileChange as display
    preview_request(ctx, tool, path, edits)   the permission request: diff and FileChange

Matching is exact, against the file's own line endings: in a CRLF file, ``\\n`` in the find
and replace strings stands for ``\\r\\n`` (and the reverse in an LF file), so what the model
read is what it can match, and every line ending not edited stays as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

from earshot.core.tools._diff import capped_diff, diff_stats, unified_diff
from earshot.core.tools._files import (
    TextFile,
    decode_text,
    describe_binary,
    dominant_newline,
    in_thread,
    line_of,
    missing_message,
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
from earshot.core.tools.display import FileChange, file_change

DESCRIPTION = """
Replace exact text in a file (`read` in this session, unchanged since). `old_string` must
match exactly (indentation included, without `read`'s line-number prefix) and once unless
`replace_all`: if it matches more often, add surrounding lines. `new_string` must differ.
Several changes to one file: `multi_edit`.
"""

_SNIPPET_CONTEXT = 3
_SNIPPET_MAX_LINES = 40
_MAX_LISTED = 20
_LINE_NUMBER_PREFIX = re.compile(r"^ *\d+\t")


class EditInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: str
    old_string: str
    new_string: str
    replace_all: bool = False


# --- the editing core ----------------------------------------------------------------------


@dataclass(frozen=True)
class Replaced:
    text: str
    count: int
    spans: tuple[tuple[int, int], ...]  # character ranges of the new text that were put in


def _find_all(text: str, needle: str, *, overlapping: bool = False) -> list[int]:
    """Where ``needle`` starts in ``text``: the occurrences ``str.replace`` would replace,
    or with ``overlapping`` every start (so "aa" in "aaa" counts twice)."""
    found: list[int] = []
    step = 1 if overlapping else len(needle)
    at = text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + step)
    return found


def _squash(text: str) -> tuple[str, list[int]]:
    """``text`` with every whitespace run as one space, and where each kept char came from."""
    out: list[str] = []
    where: list[int] = []
    in_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if not in_space:
                out.append(" ")
                where.append(i)
            in_space = True
        else:
            out.append(ch)
            where.append(i)
            in_space = False
    return "".join(out), where


def _loose_lines(text: str, old: str) -> list[int]:
    """Lines where ``old`` matches when whitespace differences are ignored."""
    needle = _squash(old)[0].strip()
    if not needle:
        return []
    squashed, where = _squash(text)
    return sorted({line_of(text, where[i]) for i in _find_all(squashed, needle)[:_MAX_LISTED]})


def _listed(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:_MAX_LISTED])
    return shown + (f" and {len(lines) - _MAX_LISTED} more" if len(lines) > _MAX_LISTED else "")


def _not_found(text: str, old: str) -> str:
    message = "old_string was not found in the file (it must match exactly, whitespace included)"
    nonblank = [line for line in old.split("\n") if line.strip()]
    if nonblank and all(_LINE_NUMBER_PREFIX.match(line) for line in nonblank):
        return (
            message + "; it seems to include the line-number prefixes of read output: send "
            "only the file's text, without the number and tab before each line"
        )
    loose = _loose_lines(text, old)
    if loose:
        where = "line " if len(loose) == 1 else "lines "
        return (
            message + f"; text matching it apart from whitespace starts at {where}"
            f"{_listed(loose)}: copy it exactly from a fresh read (indentation, tabs, "
            "trailing spaces) and retry"
        )
    return message + "; read the file again and copy the text to change exactly"


def apply_edit(text: str, old: str, new: str, *, replace_all: bool) -> Replaced:
    """``text`` with ``old`` replaced by ``new``: exactly once, or everywhere with
    ``replace_all``. ``ToolError`` (for the model) when that cannot be done unambiguously."""
    if old == "":
        raise ToolError(
            "old_string is empty; give the exact text to replace (to create or overwrite a "
            "whole file use write)",
            "empty old_string",
        )
    if old == new:
        raise ToolError(
            "old_string and new_string are identical, so nothing would change; send the "
            "text as it should become in new_string",
            "old_string equals new_string",
        )
    newline = dominant_newline(text)
    found = _find_all(text, old)
    if not found:
        adjusted = with_newline(old, newline)
        if adjusted != old:
            old = adjusted
            found = _find_all(text, old)
    if not found:
        raise ToolError(_not_found(text, old), "no match for old_string")
    if not replace_all and len(found) == 1:
        found_overlapping = _find_all(text, old, overlapping=True)
        if len(found_overlapping) > 1:
            found = found_overlapping
    if len(found) > 1 and not replace_all:
        lines = [line_of(text, i) for i in found]
        raise ToolError(
            f"old_string matches {len(found)} times (starting at lines {_listed(lines)}); "
            "include more surrounding lines so it matches exactly once, or set replace_all "
            "to change every occurrence",
            f"{len(found)} matches for old_string",
        )
    new = with_newline(new, newline)
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    last = 0
    length = 0
    for at in found:
        pieces.append(text[last:at])
        length += at - last
        pieces.append(new)
        spans.append((length, length + len(new)))
        length += len(new)
        last = at + len(old)
    pieces.append(text[last:])
    result = "".join(pieces)
    if result == text:
        raise ToolError(
            "old_string and new_string differ only in line endings, which edit keeps as the "
            "file has them; nothing would change",
            "edit changes nothing",
        )
    return Replaced(result, len(found), tuple(spans))


@dataclass(frozen=True)
class Loaded:
    path: Path
    name: str
    file: TextFile


def load_for_change(ctx: ToolContext, raw_path: str, *, check_read: bool = True) -> Loaded:
    """The file to change, decoded; refused when missing, a directory, binary, or (with
    ``check_read``) not read in this session or changed on disk since."""
    path = target_path(ctx, raw_path)
    name = shown_path(ctx, path)
    st = ctx.files.stat(path)
    if st is None:
        raise ToolError(
            missing_message(ctx, path) + "; use write to create a new file",
            f"no such file: {name}",
        )
    if st.is_dir:
        raise ToolError(f"{path} is a directory, not a file", f"{name} is a directory")
    if check_read:
        stale = ctx.state.stale_reason(path, ctx.files)
        if stale is not None:
            raise ToolError(stale, f"{name} not read, or changed since")
    data = ctx.files.read_bytes(path)
    decoded = decode_text(data)
    if decoded is None:
        raise ToolError(
            f"{path} is a {describe_binary(data)}, not text; it cannot be edited as text",
            f"{name} is binary",
        )
    return Loaded(path, name, decoded)


def save_change(ctx: ToolContext, loaded: Loaded, text: str) -> None:
    """Write ``text`` as the file was encoded, then record it as read (a follow-up edit
    needs no new read)."""
    data = loaded.file.encode(text)
    if ctx.abort.is_set():
        raise ToolError(f"interrupted before writing; {loaded.path} is unchanged", "interrupted")
    ctx.files.write_bytes(loaded.path, data)
    ctx.state.record_read(loaded.path, data, ctx.files)


def snippet(text: str, start: int, end: int) -> str:
    """Numbered lines (``cat -n`` style) around characters ``start``..``end`` of ``text``."""
    lines = split_lines(text)
    first = max(line_of(text, start) - _SNIPPET_CONTEXT, 1)
    last = min(line_of(text, max(end - 1, start)) + _SNIPPET_CONTEXT, len(lines))
    rows = [f"{n:>6}\t{lines[n - 1]}" for n in range(first, last + 1)]
    if len(rows) > _SNIPPET_MAX_LINES:
        cut = len(rows) - _SNIPPET_MAX_LINES
        rows = [*rows[:_SNIPPET_MAX_LINES], f"[... {cut} more lines of the change ...]"]
    return "\n".join(rows)


def change_of(loaded: Loaded, old_text: str, new_text: str, diff: str) -> FileChange:
    """The change as a front-end shows it (the diff capped, the whole texts if small)."""
    return file_change(str(loaded.path), old_text, new_text, capped_diff(diff))


def change_result(loaded: Loaded, old_text: str, replaced: Replaced, summary: str) -> ToolResult:
    diff = unified_diff(old_text, replaced.text, loaded.name)
    added, removed = diff_stats(diff)
    start, end = replaced.spans[0]
    body = f"{summary}\n{snippet(replaced.text, start, end)}"
    if replaced.count > 1:
        more = [line_of(replaced.text, s) for s, _ in replaced.spans[1:]]
        body += f"\n(also changed at lines {_listed(more)})"
    return ToolResult.text(
        body,
        brief=f"Edited {loaded.name} (+{added} -{removed})",
        display=change_of(loaded, old_text, replaced.text, diff),
    )


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def preview_request(
    ctx: ToolContext, tool: str, raw_path: str, edits: list[tuple[str, str, bool]]
) -> PermissionRequest:
    """What the gate and a person approving see of ``edits``: the diff they would make and
    the whole change. Never raises: when the edits cannot apply, the find and replace
    strings themselves are shown as a diff (and there is no change to show)."""
    paths = (ctx.resolve(raw_path),)
    try:
        loaded = load_for_change(ctx, raw_path, check_read=False)
        text = loaded.file.text
        for old, new, replace_all in edits:
            text = apply_edit(text, old, new, replace_all=replace_all).text
        diff = unified_diff(loaded.file.text, text, loaded.name)
        change = change_of(loaded, loaded.file.text, text, diff)
        return PermissionRequest(
            tool=tool, kind="edit", paths=paths, reads=paths, detail=diff, change=change
        )
    except (ToolError, OSError):
        name = shown_path(ctx, ctx.resolve(raw_path))
        diff = "".join(unified_diff(_ended(old), _ended(new), name) for old, new, _ in edits)
        return PermissionRequest(tool=tool, kind="edit", paths=paths, reads=paths, detail=diff)


# --- the tool ------------------------------------------------------------------------------


def _edit(args: EditInput, ctx: ToolContext) -> ToolResult:
    loaded = load_for_change(ctx, args.path)
    replaced = apply_edit(
        loaded.file.text, args.old_string, args.new_string, replace_all=args.replace_all
    )
    save_change(ctx, loaded, replaced.text)
    s = "" if replaced.count == 1 else "s"
    summary = f"Edited {loaded.name}: replaced {replaced.count} occurrence{s}. Now:"
    return change_result(loaded, loaded.file.text, replaced, summary)


_execute = in_thread("edit", _edit, read_only=False)


def _permission(args: EditInput, ctx: ToolContext) -> PermissionRequest:
    edits = [(args.old_string, args.new_string, args.replace_all)]
    return preview_request(ctx, "edit", args.path, edits)


TOOL = define_tool(
    name="edit",
    description=DESCRIPTION,
    input_type=EditInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = [
    "DESCRIPTION",
    "TOOL",
    "EditInput",
    "Loaded",
    "Replaced",
    "apply_edit",
    "change_of",
    "change_result",
    "load_for_change",
    "preview_request",
    "save_change",
    "snippet",
]
