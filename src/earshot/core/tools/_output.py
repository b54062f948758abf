"""Sizing tool output for the model: one capping helper every tool shares.

::

    cap_text(text, max_chars=, max_lines=, hint=, keep="head_tail")
        text unchanged when it fits both budgets; otherwise the head and/or tail that fit,
        with one marker line where the cut was, e.g.
        ``[... 1,234 lines (56,789 chars) cut; use offset/limit to read more ...]``
    cut_marker(lines=, chars=, hint=)
        that marker, for tools that cut by their own rules
    last_lines(text, count)
        the last lines of a running command's output as a terminal would show them, for
        a live view (not for the model)

The marker says what was cut and (through ``hint``) how to see it, so a model never
mistakes a capped result for the whole. The marker is added on top of the budgets.
"""

from __future__ import annotations

import re
from typing import Literal

Keep = Literal["head_tail", "head", "tail"]


def cut_marker(*, lines: int, chars: int, hint: str) -> str:
    """``[... N lines (M chars) cut; hint ...]``; a cut inside one line names chars only."""
    what = (
        f"{lines:,} line{'s' if lines != 1 else ''} ({chars:,} chars)"
        if lines
        else f"{chars:,} chars"
    )
    tail = f"; {hint}" if hint else ""
    return f"[... {what} cut{tail} ...]"


def _take_head(lines: list[str], max_lines: int, max_chars: int) -> str:
    out: list[str] = []
    used = 0
    for line in lines[:max_lines]:
        if used + len(line) > max_chars:
            if not out:
                return line[:max_chars]
            break
        out.append(line)
        used += len(line)
    return "".join(out)


def _take_tail(lines: list[str], max_lines: int, max_chars: int) -> str:
    out: list[str] = []
    used = 0
    for line in reversed(lines[len(lines) - max_lines :] if max_lines > 0 else []):
        if used + len(line) > max_chars:
            if not out and max_chars > 0:
                return line[-max_chars:]
            break
        out.append(line)
        used += len(line)
    return "".join(reversed(out))


def _count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def cap_text(
    text: str,
    *,
    max_chars: int,
    max_lines: int,
    hint: str,
    keep: Keep = "head_tail",
) -> str:
    """``text`` if it has at most ``max_lines`` lines and ``max_chars`` characters; else
    the part that fits (the head, the tail, or half of each budget to both) joined by a
    marker line naming the lines and characters cut and ``hint`` (how to see more).

    Whole lines are kept where they fit; a single line too long for the budget is cut
    by characters. The result is never longer than the budgets plus one marker line.
    """
    lines = text.splitlines(keepends=True)
    if len(lines) <= max_lines and len(text) <= max_chars:
        return text
    max_lines = max(max_lines, 0)
    max_chars = max(max_chars, 0)
    match keep:
        case "head":
            head = _take_head(lines, max_lines, max_chars)
            tail = ""
        case "tail":
            head = ""
            tail = _take_tail(lines, max_lines, max_chars)
        case "head_tail":
            head = _take_head(lines, (max_lines + 1) // 2, (max_chars + 1) // 2)
            rest = text[len(head) :].splitlines(keepends=True)
            tail = _take_tail(rest, max_lines - _count_lines(head), max_chars - len(head))
        case _:  # pragma: no cover - exhaustive over Keep
            raise AssertionError(keep)
    middle = text[len(head) : len(text) - len(tail)]
    lines_cut = _count_lines(middle) if "\n" in middle else 0
    marker = cut_marker(lines=lines_cut, chars=len(middle), hint=hint)
    parts: list[str] = []
    if head:
        parts.append(head if head.endswith("\n") else head + "\n")
    parts.append(marker)
    if tail:
        parts.append("\n" + tail)
    elif text.endswith("\n"):
        parts.append("\n")
    return "".join(parts)


_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def last_lines(text: str, count: int) -> str:
    """The last ``count`` non-blank lines of ``text`` as a terminal would leave them: a
    carriage return starts its line over (a progress bar shows its latest state), escape
    sequences and other control characters are dropped, tabs kept."""
    out: list[str] = []
    for raw in reversed(text.split("\n")):
        line = _CONTROLS.sub("", _ESCAPES.sub("", raw.rstrip("\r").rpartition("\r")[2]))
        if line.strip():
            out.append(line.rstrip())
            if len(out) == count:
                break
    return "\n".join(reversed(out))


__all__ = ["Keep", "cap_text", "cut_marker", "last_lines"]
