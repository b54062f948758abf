"""The ``grep`` tool: a regex search over file contents, by ripgrep or in Python.

::

    GrepInput -> Query (regex, filters, mode, window)
        a file     searched in Python
        a dir      ripgrep when ``_rg.find_rg()`` finds one; the Python search when it
                   does not, or when rg cannot run the search (an old rg, a regex its
                   dialect refuses but Python's accepts)
    -> Found (files in path order, or matching files for files_with_matches)
    -> one text, the same whichever engine ran

Both engines search the same files (``_ignore.walk``'s set; symlinks not followed, files
over ``MAX_FILE_BYTES`` skipped), read them the same way (a UTF-8 or UTF-16 byte order
mark decides the encoding, else UTF-8 with bad bytes replaced; a NUL byte makes a file
binary and skipped), and report the same lines: a line matches when part of a match lies
on it; context lines are the lines within ``-B``/``-A`` of a matching line. Known
difference: rg's regex dialect (Rust) and Python's agree on common syntax but not on all.
"""

from __future__ import annotations

import re
import threading
from functools import partial
from pathlib import Path
from typing import Annotated

import anyio
import msgspec

from earshot.core.tools import _rg
from earshot.core.tools._files import shown_path
from earshot.core.tools._grep_search import (
    MAX_FILE_BYTES,
    FileHits,
    Found,
    OutputMode,
    Query,
    decode_text,
    hits_from,
    python_search,
)
from earshot.core.tools._ignore import path_key, translate_glob
from earshot.core.tools._output import cap_text
from earshot.core.tools._withheld import Withheld
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)

DEFAULT_HEAD_LIMIT = 250
MAX_HEAD_LIMIT = 2000
MAX_LINE_CHARS = 500
MAX_OUTPUT_CHARS = 40_000
"""In content mode, lines counted past the shown ones before the search stops."""
_RG_SURE_BYTES = 32 * 1024
"""rg -l has checked this much of a file for NUL bytes before it lists the file."""


TYPES: dict[str, tuple[str, ...]] = {
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"),
    "cs": ("*.cs",),
    "css": ("*.css", "*.scss", "*.sass", "*.less"),
    "dart": ("*.dart",),
    "docker": ("Dockerfile", "Dockerfile.*", "*.dockerfile"),
    "elixir": ("*.ex", "*.exs"),
    "go": ("*.go",),
    "html": ("*.html", "*.htm"),
    "java": ("*.java",),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs"),
    "json": ("*.json", "*.jsonc", "*.jsonl"),
    "kotlin": ("*.kt", "*.kts"),
    "lua": ("*.lua",),
    "make": ("Makefile", "makefile", "GNUmakefile", "*.mk"),
    "md": ("*.md", "*.markdown"),
    "php": ("*.php",),
    "proto": ("*.proto",),
    "py": ("*.py", "*.pyi"),
    "rb": ("*.rb", "*.rake", "*.gemspec", "Gemfile", "Rakefile"),
    "rst": ("*.rst",),
    "rust": ("*.rs",),
    "scala": ("*.scala", "*.sbt"),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "sql": ("*.sql",),
    "swift": ("*.swift",),
    "toml": ("*.toml",),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "txt": ("*.txt",),
    "vue": ("*.vue",),
    "xml": ("*.xml",),
    "yaml": ("*.yaml", "*.yml"),
}
_TYPE_ALIASES = {
    "python": "py",
    "javascript": "js",
    "typescript": "ts",
    "rs": "rust",
    "golang": "go",
    "ruby": "rb",
    "markdown": "md",
    "shell": "sh",
    "bash": "sh",
    "yml": "yaml",
    "c++": "cpp",
    "csharp": "cs",
    "kt": "kotlin",
}
_SIMPLE_NAME_GLOB = re.compile(r"[\w.*{},+-]+")
_NEWLINE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\n|\n")

DESCRIPTION = f"""
Search file contents by regular expression (ripgrep syntax; keep to what Python's `re` also
accepts). Respects .gitignore; skips binary files.
- `output_mode`: `files_with_matches` (newest first), `count`, or `content` (`N:line`;
  `-A`/`-B`/`-C` add context lines after/before/around, as `N-line`).
- Filter with `glob` (a name glob `*.{{ts,tsx}}` or a path glob under `path`; `!` excludes)
  or `type` (py, ts, rust, go, ...).
- Lines are searched one by one: set `multiline` for patterns spanning lines (`.` then
  matches newlines). Escape regex characters for literal text: `interface\\{{\\}}`.
- Shows {DEFAULT_HEAD_LIMIT} entries; page with `head_limit` and `offset`.
"""


_Count = Annotated[int, msgspec.Meta(ge=0)]
_Positive = Annotated[int, msgspec.Meta(ge=1)]


class GrepInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pattern: str
    path: str = "."
    glob: str | None = None
    type: str | None = None
    output_mode: OutputMode = "files_with_matches"
    after: _Count | None = msgspec.field(default=None, name="-A")
    before: _Count | None = msgspec.field(default=None, name="-B")
    context: _Count | None = msgspec.field(default=None, name="-C")
    case_insensitive: bool = False
    multiline: bool = False
    head_limit: _Positive | None = None
    offset: _Count = 0


def _query(args: GrepInput) -> Query:
    if not args.pattern:
        raise ToolError("the pattern is empty; give a regular expression to search for")
    if not args.multiline and _NEWLINE_ESCAPE.search(args.pattern):
        raise ToolError(
            "the pattern contains a newline (\\n), but lines are searched one at a time; "
            "set multiline: true to match across lines",
            "pattern spans lines without multiline",
        )
    name_filter = None
    prune: tuple[str, ...] = ()
    if args.type is not None:
        key = _TYPE_ALIASES.get(args.type.lower(), args.type.lower())
        if key not in TYPES:
            raise ToolError(
                f"unknown type {args.type!r}; known types: {', '.join(sorted(TYPES))}; "
                "or filter with glob (e.g. '*.ext')",
                f"unknown type {args.type}",
            )
        prune = TYPES[key]
        name_filter = re.compile("|".join(translate_glob(g, braces=True) for g in prune))
    path_filter = None
    exclude = False
    glob = ""
    if args.glob:
        glob = args.glob.strip()
        exclude = glob.startswith("!")
        glob = glob.lstrip("!").removeprefix("./")
        path_filter = re.compile(translate_glob(glob.lstrip("/"), braces=True), re.DOTALL)
        if not prune and not exclude and _SIMPLE_NAME_GLOB.fullmatch(glob):
            prune = (glob,)
    around = args.context or 0
    return Query(
        pattern=args.pattern,
        flags=(re.IGNORECASE if args.case_insensitive else 0)
        | (re.MULTILINE | re.DOTALL if args.multiline else 0),
        multiline=args.multiline,
        mode=args.output_mode,
        before=args.before if args.before is not None else around,
        after=args.after if args.after is not None else around,
        offset=args.offset,
        limit=min(args.head_limit or DEFAULT_HEAD_LIMIT, MAX_HEAD_LIMIT),
        name_filter=name_filter,
        path_filter=path_filter,
        filter_on_path="/" in glob,
        exclude=exclude,
        prune=prune,
    )


async def _rg_search(ctx: ToolContext, rg: str, root: Path, query: Query) -> Found | None:
    """The search by rg, or None when rg could not run it."""
    counting = query.mode == "count" and not query.multiline
    argv = _rg.search_argv(
        rg,
        root,
        query.pattern,
        mode="files" if query.mode == "files_with_matches" else "count" if counting else "lines",
        ignore_case=bool(query.flags & re.IGNORECASE),
        multiline=query.multiline,
        name_globs=query.prune,
        before=query.before if query.mode == "content" else 0,
        after=query.after if query.mode == "content" else 0,
        max_filesize_mib=MAX_FILE_BYTES // (1024 * 1024),
    )
    found = Found()
    if query.mode == "files_with_matches":
        paths = await _rg.matching_files(ctx, argv, cwd=root)
        if paths is None:
            return None
        settle = partial(_settle, ctx, root, paths, query)
        found.files = await anyio.to_thread.run_sync(settle, abandon_on_cancel=True)
        return found
    if counting:
        counts = await _rg.matching_counts(ctx, argv, cwd=root)
        if counts is None:
            return None
        for path, count in counts:
            rel = _under(root, path)
            if rel is not None and count and query.wanted(rel):
                found.files.append(FileHits(rel, path, count))
        return found

    def on_file(rg_file: _rg.RgFile) -> bool:
        rel = _under(root, rg_file.path)
        if rel is None or rg_file.binary or not query.wanted(rel):
            return True
        lines = [(k, text, m) for k, (text, m) in sorted(rg_file.lines.items())]
        count = sum(1 for _, _, m in lines if m)
        hits = FileHits(rel, rg_file.path, count, lines if query.mode == "content" else [])
        return not count or found.add(hits, query)

    return found if await _rg.matching_lines(ctx, argv, cwd=root, on_file=on_file) else None


def _under(root: Path, path: Path) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators; None for a path rg should not
    have printed."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _settle(ctx: ToolContext, root: Path, paths: list[Path], query: Query) -> list[FileHits]:
    """The files rg -l listed that the Python search would list too. rg lists a file with
    a match before its first NUL byte; the Python search skips any file holding one, so a
    file too long for rg to have read whole before listing it is checked here."""
    settled: list[FileHits] = []
    for path in paths:
        rel = _under(root, path)
        if rel is None or not query.wanted(rel):
            continue
        st = ctx.files.stat(path)
        if st is None:
            continue
        if st.size > _RG_SURE_BYTES:
            try:
                if decode_text(ctx.files.read_bytes(path)) is None:
                    continue
            except OSError:
                continue
        settled.append(FileHits(rel, path, 1))
    return settled


def _cut(text: str) -> str:
    text = text.removesuffix("\r")
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]} [... {len(text) - MAX_LINE_CHARS:,} chars cut]"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _window(total: int, shown: int, q: Query, word: str) -> str:
    if shown == total:
        return ""
    if not shown:
        return f" (none from offset={q.offset})"
    return f" (showing {word} {q.offset + 1:,}-{q.offset + shown:,})"


def _more(count: int, word: str, q: Query, *, exact: bool = True) -> str:
    amount = f"{count:,} more" if exact else f"more than {count:,}"
    return (
        f"[... {amount} {word} not shown; narrow the pattern, path, glob or type, "
        f"or pass offset={q.offset + q.limit} to see the next ones ...]"
    )


def _render(ctx: ToolContext, found: Found, q: Query) -> tuple[str, str]:
    """The text for the model and a brief for the UI."""
    if q.mode == "files_with_matches":
        dated: list[tuple[int, tuple[str, ...], Path]] = []
        for hits in found.files:
            st = ctx.files.stat(hits.path)
            dated.append((-(st.mtime_ns if st else 0), path_key(hits.rel), hits.path))
        dated.sort()
        total = len(dated)
        newest = dated[q.offset : q.offset + q.limit]
        lines = [f"Found {_plural(total, 'file')}{_window(total, len(newest), q, 'files')}"]
        lines += [shown_path(ctx, path) for _, _, path in newest]
        rest = total - q.offset - len(newest)
        if rest > 0:
            lines.append(_more(rest, "files", q))
        return "\n".join(lines), f"{_plural(total, 'file')} match"
    files = sorted(found.files, key=lambda h: path_key(h.rel))
    if q.mode == "count":
        total_lines = sum(h.count for h in files)
        window = files[q.offset : q.offset + q.limit]
        head = f"Found {_plural(total_lines, 'matching line')} in {_plural(len(files), 'file')}"
        lines = [head + _window(len(files), len(window), q, "files")]
        lines += [f"{shown_path(ctx, h.path)}:{h.count}" for h in window]
        rest = len(files) - q.offset - len(window)
        if rest > 0:
            lines.append(_more(rest, "files", q))
        return "\n".join(lines), f"{_plural(total_lines, 'matching line')}"
    blocks: list[str] = []
    shown = 0
    for hits in files:
        block = [shown_path(ctx, hits.path)]
        previous = None
        for number, text, is_match in hits.lines:
            if previous is not None and number > previous + 1 and (q.before or q.after):
                block.append("--")
            block.append(f"{number}{':' if is_match else '-'}{_cut(text)}")
            previous = number
            shown += 1
        blocks.append("\n".join(block))
    text = "\n\n".join(blocks)
    rest = found.lines_seen - q.offset - shown
    if not shown:
        text = f"No lines from offset={q.offset}; the search found {found.lines_seen:,} lines"
    if rest > 0:
        text += "\n" + _more(rest, "lines", q, exact=found.complete)
    return text, f"{_plural(shown, 'line')} shown"


def _nothing(ctx: ToolContext, args: GrepInput, target: Path, note: str) -> ToolResult:
    where = shown_path(ctx, target)
    where = "the working directory" if where == "." else where
    filters = "".join(
        f" {name}={value!r}" for name, value in (("glob", args.glob), ("type", args.type)) if value
    )
    return ToolResult.text(
        f"No matches for {args.pattern!r} in {where}{filters}. (Files ignored by .gitignore, "
        "binary files and files over 32 MiB are not searched.)" + (f"\n{note}" if note else ""),
        brief="no matches",
    )


def _search_file(ctx: ToolContext, path: Path, rel: str, query: Query) -> Found:
    st = ctx.files.stat(path)
    if st is not None and st.size > MAX_FILE_BYTES:
        raise ToolError(
            f"{path} is larger than 32 MiB; too big to search here: use bash (grep -n) instead",
            "file too large",
        )
    text = decode_text(ctx.files.read_bytes(path))
    if text is None:
        raise ToolError(f"{path} is a binary file; grep searches text", "binary file")
    matcher = query.compile()
    lines, numbers = matcher.lines(text, first_only=query.mode == "files_with_matches")
    found = Found()
    if numbers:
        found.add(hits_from(rel, path, lines, numbers, query), query)
    return found


async def _in_thread(ctx: ToolContext, root: Path, query: Query, withheld: Withheld) -> Found:
    matcher = query.compile()
    stop = threading.Event()
    skip = withheld.skip if withheld.active else None
    try:
        return await anyio.to_thread.run_sync(
            partial(python_search, ctx, root, query, matcher, stop, skip), abandon_on_cancel=True
        )
    finally:
        stop.set()


async def _search(ctx: ToolContext, target: Path, query: Query, withheld: Withheld) -> Found:
    """Search ``target`` (a real path) with rg when it is a directory and rg is found, and
    no deny rule could withhold a file below it: rg would open the files itself, so then the
    Python search walks the tree and leaves out what ``withheld`` hides."""
    st = ctx.files.stat(target)
    if st is None:
        raise ToolError(
            f"no such file or directory: {target}; to filter files by name, give a directory "
            "as path and the name pattern as glob",
            "no such path",
        )
    if not st.is_dir:
        return await anyio.to_thread.run_sync(
            partial(_search_file, ctx, target, target.name, query), abandon_on_cancel=True
        )
    rg = None if withheld.active else _rg.find_rg()
    found = None if rg is None else await _rg_search(ctx, rg, target, query)
    if found is None:
        found = await _in_thread(ctx, target, query, withheld)
    if ctx.abort.is_set():
        raise ToolError("grep was interrupted before it finished", "interrupted")
    return found


async def _execute(args: GrepInput, ctx: ToolContext) -> ToolResult:
    query = _query(args)
    target = ctx.files.realpath(ctx.resolve(args.path))
    withheld = Withheld(ctx, "grep")
    try:
        found = await _search(ctx, target, query, withheld)
        if not found.files and not found.lines_seen:
            return _nothing(ctx, args, target, withheld.note())
        render = partial(_render, ctx, found, query)
        text, brief = await anyio.to_thread.run_sync(render, abandon_on_cancel=True)
    except OSError as exc:
        raise ToolError(f"searching {target} failed: {exc.strerror or exc}") from exc
    capped = cap_text(
        text,
        max_chars=MAX_OUTPUT_CHARS,
        max_lines=MAX_HEAD_LIMIT + 100,
        hint="narrow the search, lower head_limit, or page with offset",
        keep="head",
    )
    if withheld.total():
        capped += f"\n{withheld.note()}"
    return ToolResult.text(capped, brief=f"grep {args.pattern!r}: {brief}")


def _permission(args: GrepInput, ctx: ToolContext) -> PermissionRequest:
    path = ctx.resolve(args.path)
    return PermissionRequest(tool="grep", kind="read", paths=(path,))


TOOL = define_tool(
    name="grep",
    description=DESCRIPTION,
    input_type=GrepInput,
    execute=_execute,
    read_only=True,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "TOOL", "TYPES", "GrepInput"]
