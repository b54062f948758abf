"""Rules and how one matches: the hot path of the permission gate.

Plain synchronous code over strings (no regular expressions, no msgspec Structs, no
generators, no tree-sitter), so mypyc can compile this module unchanged. The matchers never
backtrack more than once per wildcard: a model-written command cannot make a rule check
slow, however many ``*`` a user's pattern has.

::

    Rule                 one rule: its list (allow|ask|deny), tool, kind, origin, pattern
      kind "tool"        the whole tool: ``Bash``, ``Edit``, ``Bash(*)``, ``WebFetch``
      kind "command"     ``Bash(npm run *)``: ``pattern`` is the canonical command pattern
      kind "path"        ``Read(~/.ssh/**)``: ``globs`` are absolute globs (one per spelling
                         of the place, through symlinks or not) or one name glob; a glob
                         relative to the working directory is kept in ``relative``
      kind "domain"      ``WebFetch(domain:*.example.com)``: ``pattern`` over a host name
      kind "mcp"         ``mcp__server__tool``, ``mcp__server__*``, ``mcp__server``
      kind "exact"       a session grant: exactly this command text, path, host or action
    wildcard()           ``*`` matches any text
    command_matches()    ... and a trailing `` *`` also matches nothing, so ``git log *``
                         matches ``git log`` and ``git log -5``, never ``git logs``
    glob_paths_meet()    whether a glob the shell expands (``> .gi[t]/config``) could name a
                         path a rule glob covers: both are read as patterns, conservatively
    glob_matches()       gitignore-style: ``*``, ``?`` and ``[...]`` within a name, ``**``
                         across directories; a glob matches a path or anything below it; a
                         glob with no ``/`` matches a name at any depth
"""

from __future__ import annotations

import posixpath
import sys
from dataclasses import dataclass
from typing import Literal

Action = Literal["allow", "ask", "deny"]
RuleKind = Literal["tool", "command", "path", "domain", "mcp", "exact"]

CASE_INSENSITIVE_PATHS = sys.platform in ("darwin", "win32")
"""Where file names ignore case, ``Read(.env)`` must also refuse ``.ENV``."""


@dataclass(frozen=True)
class Rule:
    """One rule. ``text`` is the rule as written (``Bash(git log *)``); ``tool`` the rule's
    tool name (``Bash``, ``Read``, ``Edit``, ``Write``, ``WebFetch``, ``mcp``, or an earshot
    tool name for a session grant); ``source`` the file, flag or ``session`` it came from."""

    text: str
    action: Action
    tool: str
    kind: RuleKind
    scope: str
    source: str
    pattern: str = ""
    pieces: tuple[str, ...] = ()
    bare: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
    relative: str = ""
    exact: str = ""


def split_pattern(pattern: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A command pattern's literal pieces (between the ``*``), and those of the pattern
    without its trailing `` *`` (empty when it has none), for ``Rule.pieces`` and
    ``Rule.bare``."""
    bare = tuple(pattern[:-2].split("*")) if pattern.endswith(" *") else ()
    return tuple(pattern.split("*")), bare


def wildcard(pattern: str, text: str) -> bool:
    """``*`` in ``pattern`` matches any text (also ``/`` and newlines); nothing else is
    special. Linear in ``text`` for each literal piece: no backtracking blow-up."""
    return pieces_match(tuple(pattern.split("*")), text)


def pieces_match(pieces: tuple[str, ...], text: str) -> bool:
    """``wildcard`` for a pattern already split at its ``*``."""
    if len(pieces) == 1:
        return text == pieces[0]
    first = pieces[0]
    last = pieces[-1]
    if len(text) < len(first) + len(last):
        return False
    if not text.startswith(first) or not text.endswith(last):
        return False
    position = len(first)
    end = len(text) - len(last)
    for piece in pieces[1:-1]:
        found = text.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def command_matches(pattern: str, text: str) -> bool:
    pieces, bare = split_pattern(pattern)
    return (bool(bare) and pieces_match(bare, text)) or pieces_match(pieces, text)


def _class_width(glob: str, start: int) -> int:
    """The length of the ``[...]`` class at ``start``, or 0 when it is not one."""
    i = start + 1
    if i < len(glob) and glob[i] in "!^":
        i += 1
    if i < len(glob) and glob[i] == "]":
        i += 1
    close = glob.find("]", i)
    return 0 if close < 0 else close - start + 1


def _in_class(body: str, char: str) -> bool:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    found = False
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            found = found or body[i] <= char <= body[i + 2]
            i += 3
        else:
            found = found or body[i] == char
            i += 1
    return found != negate


def _one(glob: str, p: int, char: str) -> int:
    """How much of ``glob`` at ``p`` one ``char`` consumes, or 0 when it does not match."""
    token = glob[p]
    if token == "?":
        return 1
    if token == "[":
        width = _class_width(glob, p)
        if width:
            return width if _in_class(glob[p + 1 : p + width - 1], char) else 0
    return 1 if token == char else 0


def name_matches(glob: str, name: str) -> bool:
    """One path segment against a segment glob: ``*``, ``?``, ``[...]``."""
    p = 0
    n = 0
    star = -1
    mark = 0
    while n < len(name):
        if p < len(glob):
            if glob[p] == "*":
                star = p
                mark = n
                p += 1
                continue
            width = _one(glob, p, name[n])
            if width:
                p += width
                n += 1
                continue
        if star < 0:
            return False
        p = star + 1
        mark += 1
        n = mark
    while p < len(glob) and glob[p] == "*":
        p += 1
    return p == len(glob)


def glob_matches(glob: str, path: str) -> bool:
    """Whether ``glob`` (absolute, or a name glob with no ``/``) covers the absolute,
    normalised POSIX ``path`` or a directory above it."""
    if CASE_INSENSITIVE_PATHS:
        glob = glob.lower()
        path = path.lower()
    parts = path.split("/")
    if "/" not in glob:
        return any(name_matches(glob, part) for part in parts)
    globs = glob.split("/")
    if globs[-1] != "**":
        globs.append("**")  # and everything below it
    g = 0
    s = 0
    star = -1
    mark = 0
    while s < len(parts):
        if g < len(globs):
            if globs[g] == "**":
                star = g
                mark = s
                g += 1
                continue
            if name_matches(globs[g], parts[s]):
                g += 1
                s += 1
                continue
        if star < 0:
            return False
        g = star + 1
        mark += 1
        s = mark
    while g < len(globs) and globs[g] == "**":
        g += 1
    return g == len(globs)


def matches_command(rule: Rule, texts: tuple[str, ...], readable: bool) -> bool:
    """Whether ``rule`` covers a command spelled any of ``texts``. A command earshot cannot
    read only matches rules for the whole tool, and patterns written against its source."""
    return first_command_match((rule,), texts, readable) is not None


def matches_path(rule: Rule, path: str, cwd: str, real_cwd: str) -> bool:
    """Whether ``rule`` covers ``path`` (absolute, normalised, POSIX separators); globs
    relative to the working directory are taken from ``cwd`` and from ``real_cwd``."""
    kind = rule.kind
    if kind == "tool":
        return True
    if kind == "exact":
        return rule.exact == path
    if kind != "path":
        return False
    globs = rule.globs
    if rule.relative:
        globs = (
            posixpath.normpath(posixpath.join(cwd, rule.relative)),
            posixpath.normpath(posixpath.join(real_cwd, rule.relative)),
        )
    return any(glob_matches(glob, path) for glob in globs)


def matches_domain(rule: Rule, host: str | None) -> bool:
    kind = rule.kind
    if kind == "tool":
        return True
    if host is None:
        return False
    host = host.lower().rstrip(".")
    if kind == "exact":
        return rule.exact == host
    return kind == "domain" and wildcard(rule.pattern, host)


def matches_tool(rule: Rule, name: str, subject: str) -> bool:
    """Rules that name a tool rather than what it touches: MCP rules, whole-tool rules, and
    session grants of one exact action (``subject``)."""
    kind = rule.kind
    if kind == "tool":
        return True
    if kind == "exact":
        return rule.exact == subject
    return kind == "mcp" and wildcard(rule.pattern, name)


def first_command_match(
    rules: tuple[Rule, ...], texts: tuple[str, ...], readable: bool
) -> Rule | None:
    """The first of ``rules`` covering a command spelled any of ``texts`` (the canonical
    text first)."""
    for rule in rules:
        kind = rule.kind
        if kind == "tool":
            return rule
        if kind == "exact":
            if readable and rule.exact == texts[0]:
                return rule
            continue
        if kind != "command":
            continue
        bare = rule.bare
        head = bare[0] if bare else rule.pieces[0]  # every match starts with it
        for text in texts:
            if not text.startswith(head):
                continue  # the common case: another program
            if (bare and pieces_match(bare, text)) or pieces_match(rule.pieces, text):
                return rule
    return None


def first_path_match(
    rules: tuple[Rule, ...], paths: tuple[str, ...], cwd: str, real_cwd: str
) -> Rule | None:
    """The first rule covering any of ``paths``."""
    for rule in rules:
        for path in paths:
            if matches_path(rule, path, cwd, real_cwd):
                return rule
    return None


# --- globs a shell expands: which paths could they be? --------------------------------------

_ANY = "\x00any"


def _tokens(glob: str) -> list[str]:
    """A segment glob as tokens: ``_ANY`` for ``*``, ``?`` for one character, ``[...]`` for
    a class, else one literal character."""
    found: list[str] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "*":
            if not found or found[-1] != _ANY:
                found.append(_ANY)
            i += 1
            continue
        if char == "[":
            width = _class_width(glob, i)
            if width:
                found.append(glob[i : i + width])
                i += width
                continue
        found.append(char)
        i += 1
    return found


def _chars_meet(a: str, b: str, first_not_dot: bool) -> bool:
    """Whether one character can satisfy both single-character tokens (``?``, a class or a
    literal); a class against a class is assumed to meet."""
    a_lit = len(a) == 1 and a != "?"
    b_lit = len(b) == 1 and b != "?"
    if a_lit and b_lit:
        return a == b and not (first_not_dot and a == ".")
    if a_lit or b_lit:
        char, other = (a, b) if a_lit else (b, a)
        if first_not_dot and char == ".":
            return False
        return other == "?" or _in_class(other[1:-1], char)
    return True


def segments_meet(shell: str, rule: str, dotglob: bool = True) -> bool:
    """Whether some name matches both segment globs. Unless ``dotglob``, ``shell`` follows
    bash: a name starting with ``.`` matches only where the glob starts with ``.``."""
    a = _tokens(shell)
    b = _tokens(rule)
    not_dot = not dotglob and not (a and a[0] == ".")
    seen: set[tuple[int, int, bool]] = set()
    todo = [(0, 0, True)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        i, j, first = state
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i] == _ANY:
            todo.append((i + 1, j, first))
        if j < len(b) and b[j] == _ANY:
            todo.append((i, j + 1, first))
        if i == len(a) or j == len(b):
            continue
        ta, tb = a[i], b[j]
        guard = first and not_dot
        if ta == _ANY and tb == _ANY:
            todo.append((i, j, False))
            continue
        if ta == _ANY or tb == _ANY:
            single = tb if ta == _ANY else ta
            if not _chars_meet(single, "?", guard):
                continue
            todo.append((i, j + 1, False) if ta == _ANY else (i + 1, j, False))
            continue
        if _chars_meet(ta, tb, guard):
            todo.append((i + 1, j + 1, False))
    return False


def glob_paths_meet(shell: str, rule: str, dotglob: bool) -> bool:
    """Whether a path the shell glob ``shell`` (absolute, normalised) could expand to is
    covered by the rule glob ``rule`` (absolute, or a name glob with no ``/``)."""
    if CASE_INSENSITIVE_PATHS:
        shell = shell.lower()
        rule = rule.lower()
    parts = shell.split("/")
    if "/" not in rule:
        return any(p == "**" or segments_meet(p, rule, dotglob) for p in parts)
    globs = rule.split("/")
    if globs[-1] != "**":
        globs.append("**")
    seen: set[tuple[int, int]] = set()
    todo = [(0, 0)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        i, j = state
        if i == len(parts) and j == len(globs):
            return True
        if j < len(globs) and globs[j] == "**":
            todo.append((i, j + 1))
            if i < len(parts):
                todo.append((i + 1, j))
        if i < len(parts) and parts[i] == "**":
            todo.append((i + 1, j))
            if j < len(globs):
                todo.append((i, j + 1))
        if (
            i < len(parts)
            and j < len(globs)
            and "**" not in (globs[j], parts[i])
            and segments_meet(parts[i], globs[j], dotglob)
        ):
            todo.append((i + 1, j + 1))
    return False


def first_glob_match(
    rules: tuple[Rule, ...], shell: str, cwd: str, real_cwd: str, dotglob: bool
) -> Rule | None:
    """The first path rule covering a path the shell glob ``shell`` could expand to."""
    for rule in rules:
        kind = rule.kind
        if kind == "tool":
            return rule
        if kind != "path":
            continue
        globs = rule.globs
        if rule.relative:
            globs = (
                posixpath.normpath(posixpath.join(cwd, rule.relative)),
                posixpath.normpath(posixpath.join(real_cwd, rule.relative)),
            )
        for glob in globs:
            if glob_paths_meet(shell, glob, dotglob):
                return rule
    return None


__all__ = [
    "CASE_INSENSITIVE_PATHS",
    "Action",
    "Rule",
    "RuleKind",
    "command_matches",
    "first_command_match",
    "first_glob_match",
    "first_path_match",
    "glob_matches",
    "glob_paths_meet",
    "matches_command",
    "matches_domain",
    "matches_path",
    "matches_tool",
    "name_matches",
    "pieces_match",
    "segments_meet",
    "split_pattern",
    "wildcard",
]
