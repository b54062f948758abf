"""The pure-Python side of ``grep``: the query, the matcher and the search over files.

Its output must match ripgrep's as ``grep`` renders it (``tests/tools/test_grep.py`` runs
both engines against the same tree).
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

from earshot.core.tools._ignore import walk
from earshot.core.tools.base import ToolContext, ToolError

MAX_FILE_BYTES = 32 * 1024 * 1024
OVERFLOW_LINES = 10_000
OutputMode = Literal["files_with_matches", "content", "count"]
_LOOKAROUND = ("\\A", "\\Z", "(?=", "(?!", "(?<=", "(?<!")


@dataclass(frozen=True)
class Query:
    pattern: str
    flags: int
    multiline: bool
    mode: OutputMode
    before: int
    after: int
    offset: int
    limit: int
    name_filter: re.Pattern[str] | None
    path_filter: re.Pattern[str] | None
    filter_on_path: bool
    """``path_filter`` applies to the path under the search root, not the file name."""
    exclude: bool
    prune: tuple[str, ...]
    """Globs on file names rg may use to skip files early (its --type-add)."""

    def wanted(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        if self.name_filter is not None and self.name_filter.fullmatch(name) is None:
            return False
        if self.path_filter is None:
            return True
        subject = rel if self.filter_on_path else name
        return (self.path_filter.fullmatch(subject) is None) == self.exclude

    def compile(self) -> Matcher:
        try:
            regex = re.compile(self.pattern, self.flags)
        except re.error as exc:
            raise ToolError(
                f"invalid regex {self.pattern!r}: {exc}; fix the syntax, or escape characters "
                "meant literally with a backslash (\\( \\[ \\{ \\. \\* \\+ \\?)",
                f"invalid regex: {exc}",
            ) from exc
        prefilter = None
        if not self.multiline and not any(s in self.pattern for s in _LOOKAROUND):
            prefilter = re.compile(self.pattern, self.flags | re.MULTILINE)
        return Matcher(regex, self.multiline, prefilter)


@dataclass(frozen=True)
class Matcher:
    regex: re.Pattern[str]
    multiline: bool
    prefilter: re.Pattern[str] | None
    """Whole-text search that must succeed for any line to match (None: not safe)."""

    def lines(self, text: str, *, first_only: bool = False) -> tuple[list[str], list[int]]:
        """The text's lines (split on ``\\n``, no empty last line) and the 1-based
        numbers of the matching ones."""
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not self.multiline:
            if self.prefilter is not None and self.prefilter.search(text) is None:
                return lines, []
            found: list[int] = []
            for number, line in enumerate(lines, start=1):
                if self.regex.search(line) is not None:
                    found.append(number)
                    if first_only:
                        break
            return lines, found
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        matched: set[int] = set()
        for m in self.regex.finditer(text):
            start, end = m.span()
            if start >= len(text) and (not text or text.endswith("\n")):
                break
            first = bisect.bisect_right(starts, start)
            last = bisect.bisect_right(starts, max(start, end - 1))
            matched.update(range(first, last + 1))
            if first_only:
                break
        return lines, sorted(matched)


def decode_text(data: bytes) -> str | None:
    """A file's text as both engines read it, or None when it is binary."""
    for bom, encoding in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            return None if "\0" in text else text
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


@dataclass
class FileHits:
    rel: str
    path: Path
    count: int
    lines: list[tuple[int, str, bool]] = field(default_factory=list)


@dataclass
class Found:
    """What a search found: ``files`` in path order (content, count) or any order (files
    mode). In content mode ``files`` holds only the lines inside the offset/limit window,
    ``lines_seen`` counts all lines found, and ``complete`` is False when the search
    stopped early, ``OVERFLOW_LINES`` past the window."""

    files: list[FileHits] = field(default_factory=list)
    lines_seen: int = 0
    complete: bool = True

    def add(self, hits: FileHits, query: Query) -> bool:
        if query.mode != "content":
            self.files.append(hits)
            return True
        start, end = query.offset, query.offset + query.limit
        first = self.lines_seen
        self.lines_seen += len(hits.lines)
        if self.lines_seen > start and first < end:
            lo, hi = max(start - first, 0), min(end - first, len(hits.lines))
            self.files.append(FileHits(hits.rel, hits.path, hits.count, hits.lines[lo:hi]))
        if self.lines_seen > end + OVERFLOW_LINES:
            self.complete = False
            return False
        return True


def hits_from(rel: str, path: Path, lines: list[str], found: list[int], q: Query) -> FileHits:
    if q.mode != "content":
        return FileHits(rel, path, len(found))
    shown: dict[int, bool] = {}
    for number in found:
        for k in range(max(1, number - q.before), min(len(lines), number + q.after) + 1):
            shown.setdefault(k, False)
        shown[number] = True
    return FileHits(rel, path, len(found), [(k, lines[k - 1], m) for k, m in sorted(shown.items())])


def _halted(stop: threading.Event, ctx: ToolContext) -> bool:
    return stop.is_set() or ctx.abort.is_set()


def python_search(
    ctx: ToolContext,
    root: Path,
    query: Query,
    matcher: Matcher,
    stop: threading.Event,
    skip: Callable[[str, bool], bool] | None = None,
) -> Found:
    """``skip`` (``_ignore.walk``'s) leaves out files and directories unopened."""
    found = Found()
    halt = partial(_halted, stop, ctx)
    for entry in walk(root, ctx.files, stop=halt, skip=skip):
        if entry.is_symlink or not query.wanted(entry.rel):
            continue
        path = entry.path
        st = ctx.files.stat(path)
        if st is None or st.size > MAX_FILE_BYTES:
            continue
        try:
            text = decode_text(ctx.files.read_bytes(path))
        except OSError:
            continue
        if text is None:
            continue
        first_only = query.mode == "files_with_matches"
        lines, numbers = matcher.lines(text, first_only=first_only)
        if numbers and not found.add(hits_from(entry.rel, path, lines, numbers, query), query):
            break
    return found


__all__ = [
    "MAX_FILE_BYTES",
    "OVERFLOW_LINES",
    "FileHits",
    "Found",
    "Matcher",
    "OutputMode",
    "Query",
    "decode_text",
    "hits_from",
    "python_search",
]
