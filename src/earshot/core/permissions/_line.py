"""The shell-only parts of the decision: reads through the shell, globs bash expands, inline
code, and lines of read-only programs.

::

    read_denial(...)      the Read deny rule covering a file argument of a command, if any
    naming_rules(...)     the allow rules that may allow inline code: those naming its flag
    absolute_globs(...)   a glob word as absolute patterns, one per brace alternative
    glob_escapes(...)     why a glob write target could leave the working directory or land
                          in a protected place ("" when it cannot)
"""

from __future__ import annotations

import glob as globbing
import itertools
import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from earshot.core.permissions import match as m
from earshot.core.permissions import paths
from earshot.core.permissions._programs import INLINE_STDIN
from earshot.core.permissions.rules import RuleSet
from earshot.core.permissions.shell import ParsedLine, ShellWrite

READ_ONLY_REASON = "read-only commands never prompt"
_GLOBBY = re.compile(r"[*?\[]")
_BRACES = re.compile(r"\{[^{}]*\}")
_EXTGLOB = re.compile(r"[?*+@!]\([^()]*\)")
_EXPANSION_LIMIT = 200
_BRACE_ROUNDS = 8


def read_denial(
    rules: RuleSet, cwd: str, real_cwd: str, parsed: ParsedLine, read: ShellWrite
) -> m.Rule | None:
    """The Read deny rule covering the file argument ``read``, if any."""
    denying = rules.select("deny", "read")
    if not denying or not read.literal:
        return None
    target = os.path.expanduser(read.target) if read.tilde else read.target
    if read.glob:
        for pattern in absolute_globs(target, cwd):
            expanded = tuple(
                Path(os.path.realpath(found)).as_posix()
                for found in itertools.islice(globbing.iglob(pattern), _EXPANSION_LIMIT)
            )
            rule = m.first_path_match(denying, expanded, cwd, real_cwd)
            if rule is None and "*" not in pattern.split("/"):
                # a bare * is judged by what it matches now, not by every name it could
                rule = m.first_glob_match(denying, pattern, cwd, real_cwd, parsed.dotglob)
            if rule is not None:
                return rule
        return None
    bases = [cwd]
    if parsed.changes_dir and not target.startswith("/"):
        bases.extend(posixpath.join(cwd, os.path.expanduser(d)) for d in parsed.directories)
    forms: dict[str, None] = {}
    for base in bases:
        literal = paths.lexical(base, target)
        forms[literal] = None
        forms[_resolved(literal, posixpath.join(base, target), cwd, real_cwd)] = None
    return paths.first_match(denying, tuple(forms), cwd, real_cwd)


def _resolved(literal: str, joined: str, cwd: str, real_cwd: str) -> str:
    """The path as the kernel opens it; a name directly in the working directory that is
    not a symlink costs one ``lstat`` (most arguments are not files at all)."""
    parent, _, name = literal.rpartition("/")
    if parent == cwd and joined == literal and name and not os.path.islink(literal):
        return f"{real_cwd.rstrip('/')}/{name}"
    return paths.resolved(joined)


def inline_reason(inline: str) -> str:
    """Why auto mode (or no rule) leaves inline code to a person."""
    if inline == INLINE_STDIN:
        return (
            "it runs a program read from its input; only an allow rule for exactly this "
            "command allows that, and auto mode prompts"
        )
    if inline.startswith("-"):
        return (
            f"it runs code given with {inline}; only an allow rule naming {inline} allows "
            "that, and auto mode prompts"
        )
    return (
        "its program text can run commands or write files; only an allow rule naming that "
        "text allows it, and auto mode prompts"
    )


def denied_below(rules: RuleSet, cwd: str, real_cwd: str, parsed: ParsedLine) -> bool:
    """Whether a recursive search of the line could read a file a Read deny rule covers:
    then the line is not read-only, and the rules and the mode decide it."""
    denying = rules.select("deny", "read")
    for searched in parsed.below if denying else ():
        if not searched.literal:
            return True
        target = os.path.expanduser(searched.target) if searched.tilde else searched.target
        for base in absolute_globs(target, cwd):
            if m.first_glob_match(denying, base.rstrip("/") + "/**", cwd, real_cwd, True):
                return True
    return False


def naming_rules(rules: tuple[m.Rule, ...], inline: str) -> tuple[m.Rule, ...]:
    """The allow rules that name the code's flag (``Bash(python3 -c *)``), or for code with
    no flag the program text itself; an exact session grant always does."""
    return tuple(
        r for r in rules if r.kind == "exact" or (r.kind == "command" and _names(r, inline))
    )


def _names(rule: m.Rule, inline: str) -> bool:
    pattern = rule.pattern
    if inline == INLINE_STDIN:
        return "*" not in pattern
    if inline.startswith("-"):
        return any(word.startswith(inline) for word in pattern.split(" ")[1:])
    return inline in pattern


def absolute_globs(target: str, cwd: str) -> list[str]:
    """``target`` as absolute globs, one per brace alternative (``{a,b}``); a sequence
    (``{1..9}``), too many alternatives or an extended-glob group becomes ``*``."""
    found = [target]
    for _ in range(_BRACE_ROUNDS):
        expanded: list[str] = []
        for glob in found:
            group = _BRACES.search(glob)
            if group is None or "," not in group.group(0):
                expanded.append(glob if group is None else _BRACES.sub("*", glob, count=1))
                continue
            head, tail = glob[: group.start()], glob[group.end() :]
            expanded.extend(head + alt + tail for alt in group.group(0)[1:-1].split(","))
        if len(expanded) > _EXPANSION_LIMIT:
            expanded = [_BRACES.sub("*", target)]
        if expanded == found:
            break
        found = expanded
    return [
        posixpath.normpath(posixpath.join(cwd, _EXTGLOB.sub("*", _BRACES.sub("*", glob))))
        for glob in found
    ]


def glob_escapes(
    glob: str,
    roots: tuple[str, ...],
    protected_directories: Iterable[Path],
    protected_names: Iterable[str],
    startup_files: Iterable[str],
) -> str:
    """Why a file the glob could expand to is outside ``roots`` or protected ("" if none
    can be): every segment is read as a pattern, and what exists now is expanded too."""
    parts = glob.split("/")
    fixed = list(itertools.takewhile(lambda p: not _GLOBBY.search(p), parts))
    prefix = "/".join(fixed) or "/"
    if any(m.segments_meet(p, "..", dotglob=False) for p in parts[len(fixed) :]):
        return f"{glob} could name a path outside the working directory"
    reals = [Path(os.path.realpath(prefix)).as_posix()]
    reals.extend(
        Path(os.path.realpath(found)).as_posix()
        for found in itertools.islice(globbing.iglob(glob), _EXPANSION_LIMIT)
    )
    for real in reals:
        if not any(real == root or real.startswith(root.rstrip("/") + "/") for root in roots):
            return f"{glob} could name {real}, outside the working directory"
    for name in protected_names:
        if any(m.segments_meet(p, name) for p in parts):
            return f"{glob} could name a file in {name}/, which is protected"
    for name in startup_files:
        if m.segments_meet(parts[-1], name):
            return f"{glob} could name a shell start-up file, which is protected"
    for directory in protected_directories:
        if m.glob_paths_meet(glob, directory.as_posix(), dotglob=True):
            return f"{glob} could name earshot's own settings, which are protected"
    return ""


__all__ = [
    "READ_ONLY_REASON",
    "absolute_globs",
    "denied_below",
    "glob_escapes",
    "inline_reason",
    "naming_rules",
    "read_denial",
]
