"""The ``glob`` tool: the files under a directory whose paths match a glob, newest first.

The pattern's leading plain directories (``src/earshot`` in ``src/earshot/**/*.py``)
choose where the walk starts; the rest is matched against each file's path below it
(``_ignore.translate_glob``). Without a ``**`` the walk goes no deeper than the pattern.
Files come from ``_ignore.walk`` (gitignored files and ``.git`` left out, symlinks listed
but not followed) and are ordered by modification time, newest first, then by path;
at most ``MAX_RESULTS`` are shown, with a marker naming how many more matched.
"""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

import anyio
import msgspec

from earshot.core.tools._files import shown_path
from earshot.core.tools._ignore import UnclosedClass, path_key, translate_glob, walk
from earshot.core.tools._withheld import Withheld
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)

MAX_RESULTS = 200

DESCRIPTION = f"""
Find files under `path` by pattern, newest first: `**/*.py`, `src/**/*.{{ts,tsx}}`; `*` stays
in one directory, `**` spans any depth. Leaves out .gitignored files and `.git` unless the
pattern names an ignored directory. At most {MAX_RESULTS} paths.
"""


class GlobInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pattern: str
    path: str = "."


_MAGIC = frozenset("*?[{\\")


def _split(base: Path, pattern: str) -> tuple[Path, str]:
    """The directory to walk (``base`` joined with the pattern's leading plain
    directories) and the rest of the pattern, matched below it."""
    parts = pattern.split("/")
    if Path(pattern).is_absolute():
        base = Path(Path(pattern).anchor)
        parts = list(Path(pattern).relative_to(base).as_posix().split("/"))
    static: list[str] = []
    while len(parts) > 1 and not _MAGIC.intersection(parts[0]):
        head = parts.pop(0)
        if head not in ("", "."):
            static.append(head)
    return Path(os.path.normpath(base.joinpath(*static))), "/".join(parts)


def _glob(args: GlobInput, ctx: ToolContext) -> ToolResult:
    pattern = args.pattern.strip()
    if not pattern:
        raise ToolError("the pattern is empty; give a glob such as **/*.py", "empty pattern")
    base = ctx.files.realpath(ctx.resolve(args.path))
    st = ctx.files.stat(base)
    if st is None:
        raise ToolError(f"no such directory: {base}", "no such directory")
    if not st.is_dir:
        raise ToolError(
            f"{base} is a file, not a directory; give its directory as path and the name "
            "as pattern, or use read to see it",
            "path is a file",
        )
    if pattern.endswith("/"):
        pattern += "**"
    start, rest = _split(base, pattern)
    try:
        regex = re.compile(translate_glob(rest, braces=True), re.DOTALL)
    except UnclosedClass as exc:
        raise ToolError(
            f"the pattern {pattern!r} has a [ without its closing ]; close it, or write \\[ "
            "for a literal bracket",
            "unclosed [ in pattern",
        ) from exc
    root = ctx.files.realpath(start)
    found: list[tuple[int, tuple[str, ...], Path]] = []
    root_st = ctx.files.stat(root)
    withheld = Withheld(ctx, "glob")
    if root_st is not None and root_st.is_dir:
        depth = None if "**" in rest or "{" in rest else rest.count("/") + 1
        skip = withheld.skip if withheld.active else None
        walked = walk(root, ctx.files, max_depth=depth, stop=ctx.abort.is_set, skip=skip)
        for entry in walked:
            if regex.fullmatch(entry.rel) is None:
                continue
            entry_st = ctx.files.stat(entry.path)
            found.append((-(entry_st.mtime_ns if entry_st else 0), path_key(entry.rel), entry.path))
    if ctx.abort.is_set():
        raise ToolError("glob was interrupted before it finished", "interrupted")
    if not found:
        where = shown_path(ctx, base)
        where = "the working directory" if where == "." else where
        hint = ""
        if "/" not in pattern:
            hint = f" A pattern without / matches only directly in the directory: try **/{pattern}"
        note = f"\n{withheld.note()}" if withheld.total() else ""
        return ToolResult.text(
            f"No files match {pattern!r} in {where} (gitignored files are not listed).{hint}"
            + note,
            brief=f"no files match {pattern}",
        )
    found.sort()
    lines = [shown_path(ctx, path) for _, _, path in found[:MAX_RESULTS]]
    if len(found) > MAX_RESULTS:
        lines.append(
            f"[... {len(found) - MAX_RESULTS:,} more files not shown (older ones); narrow the "
            "pattern or search a subdirectory ...]"
        )
    if withheld.total():
        lines.append(withheld.note())
    count = f"{len(found):,} file{'s' if len(found) != 1 else ''}"
    return ToolResult.text("\n".join(lines), brief=f"{count} match {pattern}")


async def _execute(args: GlobInput, ctx: ToolContext) -> ToolResult:
    try:
        return await anyio.to_thread.run_sync(partial(_glob, args, ctx), abandon_on_cancel=True)
    except OSError as exc:
        raise ToolError(f"glob failed: {exc.strerror or exc}", "glob failed") from exc


def _permission(args: GlobInput, ctx: ToolContext) -> PermissionRequest:
    """The directory given and the one the walk starts from (an absolute pattern, or its
    leading plain directories, move it), found exactly as ``_glob`` finds it."""
    given = ctx.resolve(args.path)
    pattern = args.pattern.strip()
    try:
        start, _ = _split(ctx.files.realpath(given), pattern)
        root = ctx.files.realpath(start)
    except (OSError, ValueError):
        root = given
    paths = (given,) if root == given else (given, root)
    return PermissionRequest(tool="glob", kind="read", paths=paths)


TOOL = define_tool(
    name="glob",
    description=DESCRIPTION,
    input_type=GlobInput,
    execute=_execute,
    read_only=True,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "MAX_RESULTS", "TOOL", "GlobInput"]
