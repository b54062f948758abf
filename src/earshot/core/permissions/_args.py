"""Options and operands of a program's arguments, and what inspecting them finds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from earshot.core.permissions._wrappers import Word


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


INLINE_STDIN = "<stdin>"
"""``inline`` for an interpreter that reads its program from standard input."""


@dataclass
class Effects:
    """What a program does with its arguments (see ``_programs.py``)."""

    writes: list[Word] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)
    read_only: bool = False
    inline: str = ""
    normal: list[Word] | None = None
    problem: str = ""
    below: list[Word] = field(default_factory=list)


@dataclass
class _Args:
    options: list[tuple[str, Word | None]] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)


def _split(args: list[Word], valued: str = "", long_valued: frozenset[str] = frozenset()) -> _Args:
    """GNU-style options anywhere before ``--`` (options and operands may mix); ``valued``
    short options and ``long_valued`` long ones take a value. A computed word is an operand."""
    found = _Args()
    i = 0
    done = False
    while i < len(args):
        word = args[i]
        i += 1
        value = word.value
        if done or not word.literal or not value.startswith("-") or value == "-":
            found.operands.append(word)
            continue
        if value == "--":
            done = True
            continue
        if value.startswith("--"):
            name, eq, rest = value[2:].partition("=")
            if eq:
                found.options.append((name, Word(rest, True)))
            elif name in long_valued and i < len(args):
                found.options.append((name, args[i]))
                i += 1
            else:
                found.options.append((name, None))
            continue
        for j in range(1, len(value)):
            char = value[j]
            if char in valued:
                if j + 1 < len(value):
                    found.options.append((char, Word(value[j + 1 :], True)))
                elif i < len(args):
                    found.options.append((char, args[i]))
                    i += 1
                break
            found.options.append((char, None))
    return found


def _values(parsed: _Args, *names: str) -> list[Word]:
    return [w for name, w in parsed.options if name in names and w is not None]


def _has(parsed: _Args, *names: str) -> bool:
    return any(name in names for name, _ in parsed.options)


Handler = Callable[[list[Word]], Effects]


__all__ = ["INLINE_STDIN", "Effects", "Handler"]
