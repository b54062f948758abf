"""Paths as the operating system will open them, and the path rules that cover them.

::

    forms(cwd, path)          the path as written (absolute, ``//`` and ``/./`` collapsed,
                              trailing ``/`` dropped, ``..`` applied as written)
                              and as the kernel resolves it (every symlink at every level
                              followed before the ``..`` after it)
    ignores_case(path)        whether the file system holding ``path`` compares names without
                              case (probed: a Linux casefold directory, a FAT stick, macOS)
    first_match(...)          the first path rule covering any form; where the file system
                              ignores case, rules and forms are compared case-folded
    read_denial(...)          the deny rule that keeps ``tool`` from reading ``path``: what
                              grep, glob and ls ask before they open or list a file

A rule is matched against every form, so neither a symlink, a ``..``, a doubled slash nor a
change of case can lead a tool to a file a deny rule names. What no path check can see: a
hard link (another name for the same file, which the rule does not name) and files a
program opens by itself (``python script.py`` reading ``.env``); docs/permissions.md says
what the OS sandbox (docs/sandbox.md) does about those.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from earshot.core.permissions import match as m
from earshot.core.permissions.rules import RuleSet


def lexical(cwd: str, path: str) -> str:
    """``path`` made absolute against ``cwd`` and normalised as written: ``.``, repeated and
    trailing slashes dropped, ``..`` applied to the text. POSIX keeps a leading ``//``
    apart; Linux and macOS treat it as ``/``, and so does this. A ``~`` is a name here: the
    tools expand it (``ToolContext.resolve``) and the shell parser does, before the gate."""
    joined = posixpath.normpath(posixpath.join(cwd, path))
    if joined.startswith("//"):
        joined = "/" + joined.lstrip("/")
    return joined


def resolved(path: str) -> str:
    """``path`` (absolute) with every symlink followed, as the kernel opens it."""
    return Path(os.path.realpath(path)).as_posix()


def forms(cwd: str, path: str) -> tuple[str, str]:
    """The path as written and as resolved (see the module docstring)."""
    # realpath of the joined text, not of the normalised one: the kernel follows a symlink
    # before it applies the ".." after it
    return lexical(cwd, path), resolved(posixpath.join(cwd, path))


def _swapped(name: str) -> str:
    return name.swapcase()


def ignores_case(path: str) -> bool:
    """Whether names under ``path``'s directory are compared without case: the nearest
    existing ancestor with a cased name is looked up under its name with the case swapped
    (same file: the file system ignores case)."""
    if m.CASE_INSENSITIVE_PATHS:
        return True
    current = path
    while current not in ("/", ""):
        parent, name = posixpath.split(current)
        if name != _swapped(name):
            try:
                here = os.lstat(current)
            except OSError:
                current = parent
                continue
            try:
                other = os.lstat(posixpath.join(parent, _swapped(name)))
            except OSError:
                return False
            return (here.st_dev, here.st_ino) == (other.st_dev, other.st_ino)
        current = parent
    return False


def _cased(rules: tuple[m.Rule, ...]) -> bool:
    return any(text != text.lower() for r in rules for text in (*r.globs, r.relative, r.exact))


@lru_cache(maxsize=128)
def _folded(rules: tuple[m.Rule, ...]) -> tuple[m.Rule, ...]:
    return tuple(
        replace(
            r,
            globs=tuple(g.lower() for g in r.globs),
            relative=r.relative.lower(),
            exact=r.exact.lower(),
        )
        for r in rules
    )


def first_match(
    rules: tuple[m.Rule, ...], paths: tuple[str, ...], cwd: str, real_cwd: str
) -> m.Rule | None:
    """The first of ``rules`` covering any of ``paths``; case-folded where the file system
    holding the path ignores case (probed only when folding would change the answer)."""
    found = m.first_path_match(rules, paths, cwd, real_cwd)
    if found is not None or not rules or m.CASE_INSENSITIVE_PATHS:
        return found
    if all(p == p.lower() for p in paths) and not _cased(rules):
        return None  # nothing to fold: the answer cannot change
    folded = _folded(rules)
    lower = tuple(p.lower() for p in paths)
    for index, rule in enumerate(folded):
        if m.first_path_match((rule,), lower, cwd.lower(), real_cwd.lower()) is None:
            continue
        if any(ignores_case(p) for p in paths):
            return rules[index]
        return None
    return None


def read_denial(
    rules: RuleSet,
    cwd: Path,
    tool: str,
    path: Path,
    *,
    real: bool = False,
    real_cwd: str = "",
) -> m.Rule | None:
    """The deny rule that keeps ``tool`` from reading ``path`` (absolute), or None.
    ``real``: the path is known to have no symlink in it (a walk below a resolved root);
    ``real_cwd``: the working directory resolved, when the caller has it already."""
    deny = rules.select("deny", tool)
    if not deny:
        return None
    base = lexical("/", cwd.as_posix())
    real_cwd = real_cwd or resolved(base)
    text = path.as_posix()
    every = (lexical(base, text),) if real else forms(base, text)
    return first_match(deny, every, base, real_cwd)


__all__ = ["first_match", "forms", "ignores_case", "lexical", "read_denial", "resolved"]
