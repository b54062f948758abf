"""The ``ls`` tool: one directory's entries, directories marked with a trailing ``/``.

Entries are sorted by name (directories first), filtered by ``ignore`` globs matched
against the entry name (a pattern ending in ``/`` matches directories only), and capped
at ``MAX_ENTRIES`` with a marker naming how many were left out.
"""

from __future__ import annotations

import fnmatch
from typing import Annotated

import msgspec

from earshot.core.tools._files import in_thread, missing_message, shown_path, target_path
from earshot.core.tools._withheld import Withheld
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)

MAX_ENTRIES = 1000

DESCRIPTION = f"""
List one directory, not recursive: directories first (ending in `/`), then files; at most
{MAX_ENTRIES}. Across a tree: `glob`.
"""


class LsInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    path: str = "."
    ignore: Annotated[
        list[str],
        msgspec.Meta(description="Entry-name globs to leave out: `*.pyc`, `node_modules/`"),
    ] = msgspec.field(default_factory=list)


def _ignored(name: str, is_dir: bool, patterns: list[str]) -> bool:
    for pattern in patterns:
        if pattern.endswith("/"):
            if is_dir and fnmatch.fnmatchcase(name, pattern.rstrip("/")):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False


def _ls(args: LsInput, ctx: ToolContext) -> ToolResult:
    path = target_path(ctx, args.path)
    name = shown_path(ctx, path)
    st = ctx.files.stat(path)
    if st is None:
        raise ToolError(missing_message(ctx, path, what="directory"), f"no such directory: {name}")
    if not st.is_dir:
        raise ToolError(
            f"{path} is a file, not a directory; use read to see it", f"{name} is a file"
        )
    dirs: list[str] = []
    files: list[str] = []
    ignored = 0
    withheld = Withheld(ctx, "ls")
    for index, entry in enumerate(ctx.files.list_dir(path)):
        if index % 256 == 0 and ctx.abort.is_set():
            raise ToolError("interrupted while listing", "interrupted")
        if withheld.hides(path / entry):
            continue
        entry_st = ctx.files.stat(path / entry)
        is_dir = entry_st is not None and entry_st.is_dir
        if _ignored(entry, is_dir, args.ignore):
            ignored += 1
        elif is_dir:
            dirs.append(entry + "/")
        else:
            files.append(entry)
    entries = sorted(dirs) + sorted(files)
    counts = f"{len(dirs)} dir{'s' if len(dirs) != 1 else ''}, {len(files)} file"
    counts += "s" if len(files) != 1 else ""
    if ignored:
        counts += f", {ignored} ignored"
    if withheld.total():
        counts += f", {withheld.total()} withheld"
    shown = str(path) if str(path).endswith(("/", "\\")) else f"{path}/"
    header = (
        f"{shown} ({counts})" if entries or ignored or withheld.total() else f"{shown} is empty"
    )
    lines = [header, *entries[:MAX_ENTRIES]]
    if len(entries) > MAX_ENTRIES:
        lines.append(
            f"[... {len(entries) - MAX_ENTRIES:,} more entries cut; list a subdirectory, "
            "add ignore patterns, or use glob with a pattern ...]"
        )
    if withheld.total():
        lines.append(withheld.note())
    return ToolResult.text("\n".join(lines), brief=f"Listed {name} ({counts})")


_execute = in_thread("list", _ls, read_only=True)


def _permission(args: LsInput, ctx: ToolContext) -> PermissionRequest:
    path = ctx.resolve(args.path)
    return PermissionRequest(tool="ls", kind="read", paths=(path,))


TOOL = define_tool(
    name="ls",
    description=DESCRIPTION,
    input_type=LsInput,
    execute=_execute,
    read_only=True,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "MAX_ENTRIES", "TOOL", "LsInput"]
