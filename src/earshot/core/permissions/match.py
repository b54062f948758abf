"""Rules and how one matches: the hot path of the permission gate.

Plain synchronous code over strings and compiled regular expressions (no msgspec Structs,
no generators, no tree-sitter), so mypyc can compile this module unchanged.

::

    Rule                 one rule: its list (allow|ask|deny), tool, kind, origin, matcher
      kind "tool"        the whole tool: ``Bash``, ``Edit``, ``Bash(*)``, ``WebFetch``
      kind "command"     ``Bash(npm run *)``: a regex over a command's canonical text
      kind "path"        ``Read(~/.ssh/**)``: a regex over an absolute path; a glob that is
                         relative to the working directory is kept in ``relative`` and
                         compiled (once per directory) when it is matched
      kind "domain"      ``WebFetch(domain:*.example.com)``: a regex over a host name
      kind "mcp"         ``mcp__server__tool``, ``mcp__server__*``, ``mcp__server``
      kind "exact"       a session grant: exactly this command text, path, host or action
    command_regex()      ``*`` matches any text; a trailing `` *`` also matches nothing, so
                         ``git log *`` matches ``git log`` and ``git log -5``, never ``git logs``
    path_regex()         gitignore-style: ``*`` and ``?`` within a segment, ``**`` across
                         segments, ``[...]`` classes; a glob matches a path or any directory
                         above it; a glob with no ``/`` matches a name at any depth
"""

from __future__ import annotations

import posixpath
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
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
    regex: re.Pattern[str] | None = None
    relative: str = ""
    exact: str = ""


def command_regex(pattern: str) -> re.Pattern[str]:
    """The regex for a canonical Bash pattern (see the module docstring)."""
    trailing = pattern.endswith(" *")
    body = pattern[:-2] if trailing else pattern
    regex = ".*".join(re.escape(piece) for piece in body.split("*"))
    if trailing:
        regex += "(?: .*)?"
    return re.compile(regex, re.DOTALL)


def _segment(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = glob[i + 1 : end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _glob_source(glob: str) -> str:
    if "/" not in glob:
        return "(?:.*/)?" + _segment(glob) + "(?:/.*)?"
    segments = glob.split("/")
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(".*" if last else "(?:.*/)?")
        else:
            parts.append(_segment(segment) + ("" if last else "/"))
    return "".join(parts) + "(?:/.*)?"


def path_regex(*globs: str) -> re.Pattern[str]:
    """The regex matching any of ``globs``: absolute globs (``/...``) or name globs (no
    ``/``). Several spellings of one place (through a symlink and not) give one regex."""
    flags = re.DOTALL | (re.IGNORECASE if CASE_INSENSITIVE_PATHS else 0)
    sources = [_glob_source(glob) for glob in dict.fromkeys(globs)]
    return re.compile("|".join("(?:" + source + ")" for source in sources), flags)


@lru_cache(maxsize=512)
def _relative_regex(relative: str, cwd: str, real_cwd: str) -> re.Pattern[str]:
    return path_regex(
        posixpath.normpath(posixpath.join(cwd, relative)),
        posixpath.normpath(posixpath.join(real_cwd, relative)),
    )


def domain_regex(pattern: str) -> re.Pattern[str]:
    regex = ".*".join(re.escape(piece) for piece in pattern.lower().split("*"))
    return re.compile(regex, re.DOTALL)


def tool_regex(pattern: str) -> re.Pattern[str]:
    """``mcp__server__tool`` exactly, ``*`` as any text, ``mcp__server`` as all its tools."""
    if pattern.count("__") == 1:
        pattern += "__*"
    return re.compile(".*".join(re.escape(piece) for piece in pattern.split("*")), re.DOTALL)


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
    regex = rule.regex if rule.relative == "" else _relative_regex(rule.relative, cwd, real_cwd)
    return regex is not None and regex.fullmatch(path) is not None


def matches_domain(rule: Rule, host: str | None) -> bool:
    kind = rule.kind
    if kind == "tool":
        return True
    if host is None:
        return False
    host = host.lower().rstrip(".")
    if kind == "exact":
        return rule.exact == host
    return kind == "domain" and rule.regex is not None and rule.regex.fullmatch(host) is not None


def matches_tool(rule: Rule, name: str, subject: str) -> bool:
    """Rules that name a tool rather than what it touches: MCP rules, whole-tool rules, and
    session grants of one exact action (``subject``)."""
    kind = rule.kind
    if kind == "tool":
        return True
    if kind == "exact":
        return rule.exact == subject
    return kind == "mcp" and rule.regex is not None and rule.regex.fullmatch(name) is not None


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
        regex = rule.regex
        if kind != "command" or regex is None:
            continue
        for text in texts:
            if regex.fullmatch(text) is not None:
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


__all__ = [
    "CASE_INSENSITIVE_PATHS",
    "Action",
    "Rule",
    "RuleKind",
    "command_regex",
    "domain_regex",
    "first_command_match",
    "first_path_match",
    "matches_command",
    "matches_domain",
    "matches_path",
    "matches_tool",
    "path_regex",
    "tool_regex",
]
