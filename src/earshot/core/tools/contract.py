"""``ScopeContract``: the session's declared goal, path globs and plan steps (see scope.py
for ``declare_scope``, the tool that sets it)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path

import msgspec


class ScopeContract(msgspec.Struct):
    goal: str = ""
    paths: list[str] = msgspec.field(default_factory=list)
    steps: list[str] = msgspec.field(default_factory=list)
    declared: bool = False

    def declare(self, goal: str, paths: Iterable[str], steps: Iterable[str]) -> None:
        self.goal, self.paths, self.steps = goal, list(paths), list(steps)
        self.declared = True

    def widening(self, paths: Iterable[str]) -> list[str]:
        """The globs of ``paths`` the declared ones do not already name (none before the
        first declaration: it only narrows)."""
        if not self.declared:
            return []
        return [p for p in paths if p not in self.paths]

    def covers(self, path: Path, cwd: Path) -> bool:
        """Whether ``path`` (absolute, or relative to ``cwd``) matches a declared glob, both
        as written and with symlinks resolved (a link inside ``src/`` to ``docs/`` is not in
        ``src/**``). Globs are relative to the working directory; ``**`` matches any depth."""
        if not self.declared:
            return True
        full = posixpath.normpath((cwd / path).as_posix())
        base = posixpath.normpath(cwd.as_posix())
        real = os.path.realpath(full)
        real_base = os.path.realpath(base)
        return self._covered(full, base) and self._covered(real, real_base)

    def _covered(self, full: str, base: str) -> bool:
        relative = posixpath.relpath(full, base) if full.startswith(base + "/") else full
        return any(_matches(relative, glob) or _matches(full, glob) for glob in self.paths)

    def outside(self, paths: Iterable[Path], cwd: Path) -> list[str]:
        return [p.as_posix() for p in paths if not self.covers(p, cwd)]

    def text(self) -> str:
        if not self.declared:
            return "no scope declared"
        steps = "".join(f"\n  {n}. {s}" for n, s in enumerate(self.steps, 1))
        return f"goal: {self.goal}\npaths: {', '.join(self.paths) or '(none)'}\nsteps:{steps}"


def _matches(path: str, glob: str) -> bool:
    glob = glob.strip().removeprefix("./")
    if glob.endswith("/**"):
        root = glob[:-3]
        return path == root or path.startswith(root + "/")
    if "**/" in glob:
        # "a/**/b" matches "a/b" and "a/x/y/b"
        if fnmatchcase(path, glob.replace("**/", "")):
            return True
        return fnmatchcase(path, glob.replace("**/", "*/"))
    return fnmatchcase(path, glob) or path == glob.rstrip("/")


__all__ = ["ScopeContract"]
