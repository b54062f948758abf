"""Unified diffs of a file change, for the permission prompt and for front-ends.

::

    unified_diff(old, new, name)   "--- a/name\\n+++ b/name\\n@@ ... @@\\n..." ("" when equal);
                                   a created file diffs from /dev/null
    diff_stats(diff)               (lines added, lines removed)
    capped_diff(diff)              the diff within display budgets, with a cut marker

Lines are compared without their line endings (a CRLF file diffs like an LF one), so the
diff shows what changed in the text, not the bytes; a missing final newline is marked the
way ``diff -u`` marks it.
"""

from __future__ import annotations

import difflib

from earshot.core.tools._output import cap_text

MAX_DIFF_LINES = 4000
MAX_DIFF_CHARS = 256 * 1024
_NO_EOL = "\\ No newline at end of file"


def _lines(text: str) -> list[str]:
    """Lines without endings; the last one marked when the text lacks a final newline."""
    if not text:
        return []
    parts = text.split("\n")
    ends_with_newline = parts[-1] == ""
    if ends_with_newline:
        parts.pop()
    lines = [p[:-1] if p.endswith("\r") else p for p in parts]
    if not ends_with_newline:
        lines[-1] += "\n" + _NO_EOL
    return lines


def unified_diff(old: str | None, new: str, name: str, *, context: int = 3) -> str:
    """The change from ``old`` to ``new`` (``old`` None: the file is created)."""
    old_lines = _lines(old or "")
    new_lines = _lines(new)
    if old is not None and old_lines == new_lines:
        return ""
    body = list(
        difflib.unified_diff(
            old_lines,
            new_lines,
            fromfile="/dev/null" if old is None else f"a/{name}",
            tofile=f"b/{name}",
            n=context,
            lineterm="",
        )
    )
    if not body:
        return f"--- /dev/null\n+++ b/{name}\n" if old is None else ""
    return "\n".join(body) + "\n"


def diff_stats(diff: str) -> tuple[int, int]:
    """Lines added and removed in a unified diff."""
    added = removed = 0
    in_hunk = False
    for line in diff.splitlines():
        if line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            added += 1
        elif in_hunk and line.startswith("-"):
            removed += 1
    return added, removed


def capped_diff(diff: str) -> str:
    """``diff`` within the display budgets (head and tail kept, a marker between)."""
    return cap_text(
        diff,
        max_chars=MAX_DIFF_CHARS,
        max_lines=MAX_DIFF_LINES,
        hint="the whole change is in the file; read it to see more",
    )


__all__ = ["capped_diff", "diff_stats", "unified_diff"]
