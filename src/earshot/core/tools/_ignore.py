"""Gitignore-aware file walking, shared by ``glob`` and ``grep``.

::

    translate_glob(pattern, braces=)   a glob as a regex over '/'-separated relative paths
                                       (``*`` ``?`` ``[...]`` ``**`` ``\\x``, ``{a,b}`` if braces)
    parse_gitignore(text)              the patterns of one ignore file, in file order
    Gitignore                          those patterns, relative to the directory they apply to;
                                       ``match(rel, is_dir)`` -> True (ignored), False
                                       (re-included by ``!``) or None (no pattern matches)
    walk(root, files, ...)             the files under ``root`` that git would not ignore,
                                       in path order (a directory's entries sorted by name,
                                       depth first); yields ``WalkEntry``

What is ignored, and why it is the same set ``git ls-files --cached --others
--exclude-standard`` lists and ripgrep searches (``--hidden --no-ignore-dot
--no-ignore-global``; see ``_rg.py``):

- ``.gitignore`` files count only inside a git work tree (a directory with a ``.git``
  entry, found upwards from ``root``), from the work tree's top down to each file: the
  deeper file wins, and in one file the last matching line wins. ``.git/info/exclude``
  (of the common dir, for worktrees) ranks below every ``.gitignore``. The global
  excludes file is not read, so results do not depend on the user's git config.
- A directory that holds a ``.git`` entry starts a fresh set of rules (a nested
  repository or submodule is not governed by the outer ``.gitignore``). ``.git`` itself
  is always skipped.
- An ignored directory is not entered, so ``!`` cannot re-include a file inside it.
- Symlinks are yielded as entries and never followed (``is_symlink`` says which); other
  non-regular files (sockets, fifos, devices) are skipped. Over a ``FileOps`` that is not
  the local one, symlinks cannot be told apart: they are followed, guarded against cycles.
- Matching is case-sensitive (``core.ignorecase`` is not consulted).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from earshot.core.tools.ops import FileOps, LocalFileOps

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


class UnclosedClass(ValueError):
    """A ``[`` with no closing ``]`` (or an unknown ``[:name:]``)."""


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[&~|" else c


def _translate_class(pattern: str, start: int) -> tuple[str, int]:
    """The bracket expression opening at ``pattern[start] == "["`` as a regex that never
    matches ``/``, and the index after its ``]``."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    parts: list[str] = []
    first = True
    while True:
        if i >= len(pattern):
            raise UnclosedClass(pattern)
        c = pattern[i]
        if c == "]" and not first:
            i += 1
            break
        first = False
        if c == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2 : end] if end != -1 else ""
            if name not in _POSIX_CLASSES:
                raise UnclosedClass(pattern)
            parts.append(_POSIX_CLASSES[name])
            i = end + 2
            continue
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        lo = c
        i += 1
        if i + 1 < len(pattern) and pattern[i] == "-" and pattern[i + 1] != "]":
            hi = pattern[i + 1]
            i += 2
            if hi == "\\" and i < len(pattern):
                hi = pattern[i]
                i += 1
            if lo <= hi:
                parts.append(f"{_class_char(lo)}-{_class_char(hi)}")
            continue
        parts.append(_class_char(lo))
    body = "".join(parts)
    if negate:
        return f"[^/{body}]", i
    return (f"(?:(?!/)[{body}])" if body else "(?!)"), i


def _split_braces(pattern: str, start: int) -> tuple[list[str], int] | None:
    """The comma-separated alternatives of the ``{...}`` opening at ``start`` (nesting
    and backslash escapes respected) and the index after its ``}``; None if unclosed."""
    depth = 0
    alternatives: list[str] = []
    current = start + 1
    i = start + 1
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                alternatives.append(pattern[current:i])
                return alternatives, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            alternatives.append(pattern[current:i])
            current = i + 1
        i += 1
    return None


def translate_glob(pattern: str, *, braces: bool) -> str:
    """``pattern`` as a regex (for ``fullmatch``) over a relative path with ``/``
    separators. ``*`` and ``?`` stay within one component; ``**`` as a whole component
    matches any number of directories (``a/**/b`` matches ``a/b``; a trailing ``/**``
    matches everything below); ``[...]`` classes (``!`` or ``^`` negates, ranges, POSIX
    ``[:alpha:]``) never match ``/``; a backslash makes the next character literal; with
    ``braces``, ``{a,b}`` matches either. Raises ``UnclosedClass`` for an unclosed ``[``."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole:
                if j == n:
                    out.append(".*")
                    i = j
                else:
                    out.append("(?:.*/)?")
                    i = j + 1
                continue
            out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, i = _translate_class(pattern, i)
            out.append(cls)
        elif c == "\\":
            out.append(re.escape(pattern[i + 1] if i + 1 < n else "\\"))
            i += 2
        elif c == "{" and braces and (split := _split_braces(pattern, i)) is not None:
            alternatives, i = split
            out.append("(?:" + "|".join(translate_glob(a, braces=True) for a in alternatives) + ")")
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class GitignorePattern:
    """One line of an ignore file: ``regex`` matches a path relative to the file's
    directory (a pattern with no ``/`` but a trailing one matches a name at any depth)."""

    regex: str
    negated: bool
    dir_only: bool


def _trim_trailing_spaces(line: str) -> str:
    """``line`` without its trailing spaces, keeping a space escaped by a backslash."""
    keep = 0
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i = min(i + 2, len(line))
            keep = i
            continue
        i += 1
        if line[i - 1] != " ":
            keep = i
    return line[:keep]


def parse_gitignore(text: str) -> list[GitignorePattern]:
    """The patterns of an ignore file: blank and ``#`` lines skipped, trailing spaces
    dropped unless escaped, ``!`` negates, a trailing ``/`` matches directories only, a
    ``/`` at the start or in the middle anchors the pattern to the file's directory.
    Lines with an unclosed ``[`` match nothing, as in git, and are left out."""
    patterns: list[GitignorePattern] = []
    for raw in text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line or line.startswith("#"):
            continue
        line = _trim_trailing_spaces(line)
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        if dir_only:
            line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        try:
            body = translate_glob(line.lstrip("/") if anchored else line, braces=False)
        except UnclosedClass:
            continue
        regex = body if anchored else f"(?:.*/)?{body}"
        patterns.append(GitignorePattern(regex=regex, negated=negated, dir_only=dir_only))
    return patterns


def _combined(patterns: list[GitignorePattern]) -> tuple[re.Pattern[str] | None, list[bool]]:
    """One regex trying the patterns last first (so the first alternative that matches is
    the line git would apply), one capturing group each, and each group's negation."""
    if not patterns:
        return None, []
    ordered = list(reversed(patterns))
    regex = re.compile("|".join(f"({p.regex})" for p in ordered), re.DOTALL)
    return regex, [p.negated for p in ordered]


class Gitignore:
    """The patterns of one ignore file, applying below the directory ``base`` (a path
    relative to the work tree's top, ``""`` for the top itself)."""

    def __init__(self, patterns: list[GitignorePattern], base: str = "") -> None:
        self.base = base
        self._dirs, self._dirs_negated = _combined(patterns)
        self._files, self._files_negated = _combined([p for p in patterns if not p.dir_only])

    @classmethod
    def from_text(cls, text: str, base: str = "") -> Gitignore:
        return cls(parse_gitignore(text), base)

    def match(self, rel: str, is_dir: bool) -> bool | None:
        """True if the last pattern matching ``rel`` (relative to ``base``) ignores it,
        False if it is a ``!`` pattern, None when no pattern matches."""
        regex, negated = (
            (self._dirs, self._dirs_negated) if is_dir else (self._files, self._files_negated)
        )
        if regex is None:
            return None
        m = regex.fullmatch(rel)
        if m is None or m.lastindex is None:
            return None
        return not negated[m.lastindex - 1]


def is_ignored(rules: tuple[Gitignore, ...], rel: str, is_dir: bool) -> bool:
    """Whether ``rel`` (relative to the work tree's top) is ignored by ``rules`` (lowest
    precedence first)."""
    for rule in reversed(rules):
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            sub = rel[len(rule.base) + 1 :]
        else:
            sub = rel
        decision = rule.match(sub, is_dir)
        if decision is not None:
            return decision
    return False


@dataclass(frozen=True)
class WalkEntry:
    location: str
    """The absolute path, as a string (``path`` gives it as a ``Path``)."""
    rel: str
    """Relative to the walk's root, ``/``-separated."""
    is_symlink: bool

    @property
    def path(self) -> Path:
        return Path(self.location)


Kind = Literal["dir", "file", "link", "other"]


def _read_text(files: FileOps, path: Path) -> str | None:
    try:
        return files.read_bytes(path).decode("utf-8", errors="replace")
    except OSError:
        return None


def _exclude_rules(top: Path, files: FileOps) -> tuple[Gitignore, ...]:
    """``info/exclude`` of the repository whose work tree is ``top``."""
    dot_git = top / ".git"
    st = files.stat(dot_git)
    if st is None:
        return ()
    git_dir = dot_git
    if st.is_file:
        text = _read_text(files, dot_git) or ""
        if not text.startswith("gitdir:"):
            return ()
        git_dir = top / text[len("gitdir:") :].strip()
        common = _read_text(files, git_dir / "commondir")
        if common is not None and common.strip():
            git_dir = git_dir / common.strip()
    exclude = _read_text(files, git_dir / "info" / "exclude")
    return (Gitignore.from_text(exclude),) if exclude else ()


def find_work_tree(path: Path, files: FileOps) -> Path | None:
    """The nearest directory at or above ``path`` holding a ``.git`` entry."""
    for candidate in (path, *path.parents):
        if files.stat(candidate / ".git") is not None:
            return candidate
    return None


def _rules_above(root: Path, files: FileOps) -> tuple[str | None, tuple[Gitignore, ...]]:
    """For a walk starting at ``root``: its path relative to its work tree's top (None
    outside a work tree) and the rules from the top down to ``root``'s parent."""
    top = find_work_tree(root, files)
    if top is None:
        return None, ()
    rules = _exclude_rules(top, files)
    rel_parts = root.relative_to(top).parts
    for depth in range(len(rel_parts)):
        base = "/".join(rel_parts[:depth])
        text = _read_text(files, top.joinpath(*rel_parts[:depth], ".gitignore"))
        if text:
            rules = (*rules, Gitignore.from_text(text, base))
    return "/".join(rel_parts), rules


def _scan_local(directory: str) -> list[tuple[str, Kind]]:
    entries: list[tuple[str, Kind]] = []
    with os.scandir(directory) as it:
        for entry in it:
            kind: Kind
            if entry.is_symlink():
                kind = "link"
            elif entry.is_dir():
                kind = "dir"
            elif entry.is_file():
                kind = "file"
            else:
                kind = "other"
            entries.append((entry.name, kind))
    entries.sort()
    return entries


def _scan_ops(files: FileOps, directory: str) -> list[tuple[str, Kind]]:
    entries: list[tuple[str, Kind]] = []
    for name in sorted(files.list_dir(Path(directory))):
        st = files.stat(Path(directory, name))
        if st is None:
            continue
        entries.append((name, "dir" if st.is_dir else "file" if st.is_file else "other"))
    return entries


@dataclass
class _Frame:
    path: str
    rel: str
    tree_rel: str | None
    """Relative to the enclosing work tree's top; None outside any work tree."""
    rules: tuple[Gitignore, ...]
    entries: Iterator[tuple[str, Kind]]


def _join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


def walk(
    root: Path,
    files: FileOps,
    *,
    max_depth: int | None = None,
    stop: Callable[[], bool] | None = None,
    skip: Callable[[str, bool], bool] | None = None,
) -> Iterator[WalkEntry]:
    """The files under the directory ``root`` that are not ignored, in path order.
    ``max_depth`` bounds how many components an entry's ``rel`` may have. Unreadable
    directories are skipped. ``stop`` is polled once per directory; when it returns
    True the walk ends early. ``skip(path, is_link)`` is asked about each entry the walk
    would yield or enter (``is_link``: the entry is, or may be, a symlink); a skipped
    directory is never listed."""
    local = type(files) is LocalFileOps
    seen: set[Path] = set()

    def scan(directory: str) -> list[tuple[str, Kind]] | None:
        try:
            if local:
                return _scan_local(directory)
            real = files.realpath(Path(directory))
            if real in seen:
                return None
            seen.add(real)
            return _scan_ops(files, directory)
        except OSError:
            return None

    def frame(path: str, rel: str, tree_rel: str | None, rules: tuple[Gitignore, ...]) -> _Frame:
        entries = scan(path) or []
        names = {name for name, _ in entries}
        if rel and ".git" in names:
            tree_rel, rules = "", _exclude_rules(Path(path), files)
        if tree_rel is not None and ".gitignore" in names:
            text = _read_text(files, Path(path, ".gitignore"))
            if text:
                rules = (*rules, Gitignore.from_text(text, tree_rel))
        return _Frame(path, rel, tree_rel, rules, iter(entries))

    tree_rel, rules = _rules_above(root, files)
    stack = [frame(str(root), "", tree_rel, rules)]
    while stack:
        top = stack[-1]
        item = next(top.entries, None)
        if item is None:
            stack.pop()
            continue
        name, kind = item
        if name == ".git" or kind == "other":
            continue
        is_dir = kind == "dir"
        if top.tree_rel is not None and is_ignored(top.rules, _join(top.tree_rel, name), is_dir):
            continue
        rel = _join(top.rel, name)
        depth = rel.count("/") + 1
        if max_depth is not None and depth > max_depth:
            continue
        full = os.path.join(top.path, name)
        # only the local scan tells symlinks apart; through other FileOps any entry may be one
        if skip is not None and skip(full, kind == "link" or not local):
            continue
        if not is_dir:
            yield WalkEntry(full, rel, kind == "link")
            continue
        if max_depth is not None and depth >= max_depth:
            continue
        if stop is not None and stop():
            return
        sub_tree = None if top.tree_rel is None else _join(top.tree_rel, name)
        stack.append(frame(full, rel, sub_tree, top.rules))


def path_key(rel: str) -> tuple[str, ...]:
    """Sort key giving path order: component by component, as a tree walk visits."""
    return tuple(rel.split("/"))


__all__ = [
    "Gitignore",
    "GitignorePattern",
    "UnclosedClass",
    "WalkEntry",
    "find_work_tree",
    "is_ignored",
    "parse_gitignore",
    "path_key",
    "translate_glob",
    "walk",
]
