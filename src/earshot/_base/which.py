"""``which``: where a program on PATH is, found as ``shutil.which`` finds it, without
loading ``shutil`` (and the compression modules it imports) on every start: a session
looks up ``git`` (undo) and ``bwrap`` (the sandbox) before its first model request."""

from __future__ import annotations

import os
import sys


def which(name: str) -> str | None:
    """The first executable file ``name`` in PATH's directories, or None. Names with a
    directory, a missing PATH and Windows (PATHEXT) go to ``shutil.which``."""
    path = os.environ.get("PATH")
    if path is None or sys.platform == "win32" or os.path.dirname(name):
        import shutil

        return shutil.which(name)
    if not path:
        return None
    seen: set[str] = set()
    for directory in path.split(os.pathsep):
        if directory in seen:
            continue
        seen.add(directory)
        candidate = os.path.join(directory, name)
        if (
            os.path.exists(candidate)
            and os.access(candidate, os.F_OK | os.X_OK)
            and not os.path.isdir(candidate)
        ):
            return candidate
    return None


__all__ = ["which"]
