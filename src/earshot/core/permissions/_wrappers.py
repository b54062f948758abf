"""Commands that run other commands, and how to find the command inside.

::

    transparent   the inner command is what runs; only it is checked
                  env, command, builtin, exec, nohup, nice, time, timeout, coproc, xargs,
                  stdbuf, setsid, ionice, noglob, busybox
    kept          the wrapper changes what the inner command may do; both are checked
                  sudo, doas, su, runuser, pkexec, chroot (who or where it runs), find (its
                  own -delete, -fprint), tee (writes), env with an assignment that is not
                  in SAFE_ASSIGNMENTS
    script        the inner commands are a string to parse again: bash|sh|zsh|dash|ksh -c,
                  eval, su -c, watch, trap, parallel, flock -c (see ``_unwrap.py``)

This module holds the option scanner and the classic wrappers; ``_unwrap.py`` holds the
table and the programs that run strings or their input. Interpreters with inline code
(``python3 -c``, ``awk 'BEGIN{system(...)}'``) are in ``_interpreters.py``: only a rule
naming the flag allows them. Any other program (``make``) is checked as itself.

A wrapper whose options cannot be read (an unknown flag, a computed word where an option
belongs) yields a ``problem``: the command is then unreadable and is never allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Prefix assignments that cannot change which program runs or what it executes; any other
# (PATH, LD_PRELOAD, GIT_SSH_COMMAND, PAGER ...) stays part of the command rules must match.
SAFE_ASSIGNMENTS = _names(
    "LANG LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES TZ NO_COLOR FORCE_COLOR CLICOLOR TERM COLUMNS "
    "LINES CI RUST_BACKTRACE RUST_LOG PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE PYTHONHASHSEED "
    "NODE_ENV"
)

_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")


@dataclass(frozen=True)
class Word:
    """One shell word. ``value`` is what bash passes when ``literal``; otherwise it is the
    source text of a word bash computes at run time. ``glob`` marks unquoted ``* ? [ {``;
    ``tilde`` a leading unquoted ``~``; ``marker`` a word earshot added (xargs' input)."""

    value: str
    literal: bool
    glob: bool = False
    tilde: bool = False
    marker: bool = False


@dataclass
class Unwrapped:
    commands: list[list[Word]] = field(default_factory=list)
    script: Word | None = None
    keep: bool = False
    appends: bool = False
    writes: list[Word] = field(default_factory=list)
    problem: str = ""


Handler = Callable[[list[Word]], "Unwrapped | None"]


@dataclass
class _Options:
    index: int
    flags: set[str] = field(default_factory=set)
    values: list[tuple[str, Word]] = field(default_factory=list)


def _scan(
    args: list[Word],
    *,
    flags: str = "",
    valued: str = "",
    attached: str = "",
    long_flags: frozenset[str] = frozenset(),
    long_valued: frozenset[str] = frozenset(),
) -> _Options | None:
    """Options up to the first operand, or None for one we do not know.

    ``valued`` short options take the rest of their word or the next word; ``attached``
    ones take only the rest of their word (``xargs -i{}``); ``long_valued`` take ``=VALUE``
    or the next word, and may appear bare when also in ``long_flags``.
    """
    seen = _Options(0)
    i = 0
    while i < len(args):
        word = args[i]
        if not word.literal:
            return None
        arg = word.value
        if arg == "--":
            seen.index = i + 1
            return seen
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            if eq and name in long_valued:
                seen.flags.add(name)
                seen.values.append((name, Word(value, True)))
                i += 1
            elif not eq and name in long_flags:
                seen.flags.add(name)
                i += 1
            elif not eq and name in long_valued and i + 1 < len(args):
                seen.flags.add(name)
                seen.values.append((name, args[i + 1]))
                i += 2
            else:
                return None
            continue
        if not arg.startswith("-") or arg == "-":
            break
        i += 1
        for j in range(1, len(arg)):
            char = arg[j]
            seen.flags.add(char)
            if char in valued:
                if j + 1 < len(arg):
                    seen.values.append((char, Word(arg[j + 1 :], True)))
                elif i < len(args):
                    seen.values.append((char, args[i]))
                    i += 1
                else:
                    return None
                break
            if char in attached:
                break
            if char not in flags:
                return None
    seen.index = i
    return seen


def _unreadable(program: str, keep: bool = False) -> Unwrapped:
    return Unwrapped(keep=keep, problem=f"earshot cannot read the options of {program}")


def _inner(args: list[Word], options: _Options | None, program: str) -> Unwrapped | None:
    if options is None:
        return _unreadable(program)
    rest = args[options.index :]
    return Unwrapped(commands=[rest]) if rest else None


def _eval(args: list[Word]) -> Unwrapped | None:
    if not args:
        return Unwrapped()
    if not all(w.literal for w in args):
        return Unwrapped(problem="eval runs text computed when it runs")
    return Unwrapped(script=Word(" ".join(w.value for w in args), True))


def _env(args: list[Word]) -> Unwrapped | None:
    options = _scan(
        args,
        flags="i0v",
        valued="uCS",
        long_flags=_names("ignore-environment null debug"),
        long_valued=_names("unset chdir split-string"),
    )
    if options is None:
        return _unreadable("env")
    if options.flags & {"S", "split-string"}:
        return Unwrapped(problem="env -S splits a string earshot does not read")
    keep = False
    i = options.index
    while i < len(args):
        match = _ASSIGNMENT.match(args[i].value)
        if match is None:
            break
        keep = keep or match.group(1) not in SAFE_ASSIGNMENTS
        i += 1
    rest = args[i:]
    if not rest:
        return None  # prints the environment
    return Unwrapped(commands=[rest], keep=keep)


def _command(args: list[Word]) -> Unwrapped | None:
    options = _scan(args, flags="pvV")
    if options is not None and options.flags & {"v", "V"}:
        return None  # looks a name up; runs nothing
    return _inner(args, options, "command")


def _nice(args: list[Word]) -> Unwrapped | None:
    options = _scan(args, flags="0123456789", valued="n", long_valued=_names("adjustment"))
    return _inner(args, options, "nice")


def _time(args: list[Word]) -> Unwrapped | None:
    options = _scan(
        args,
        flags="pvqa",
        valued="fo",
        long_flags=_names("portability verbose quiet append"),
        long_valued=_names("format output"),
    )
    found = _inner(args, options, "time")
    if options is not None and found is not None:
        found.writes = [w for name, w in options.values if name in ("o", "output")]
    return found


def _timeout(args: list[Word]) -> Unwrapped | None:
    options = _scan(
        args,
        flags="v",
        valued="sk",
        long_flags=_names("preserve-status foreground verbose"),
        long_valued=_names("signal kill-after"),
    )
    if options is None:
        return _unreadable("timeout")
    rest = args[options.index + 1 :]  # after the duration
    return Unwrapped(commands=[rest]) if rest else None


_SUDO_LONG_FLAGS = _names(
    "askpass background edit help list login non-interactive preserve-env preserve-groups "
    "remove-timestamp reset-timestamp set-home shell stdin validate version"
)
_SUDO_LONG_VALUED = _names(
    "chdir chroot close-from command-timeout group host other-user preserve-env prompt role "
    "type user"
)


def _sudo(program: str, args: list[Word]) -> Unwrapped | None:
    if program == "doas":
        options = _scan(args, flags="nsL", valued="uC")
        runs_nothing = {"C", "L"}
    else:
        options = _scan(
            args,
            flags="AbBEHiKklnPSsVve",
            valued="CDghprRtTUu",
            long_flags=_SUDO_LONG_FLAGS,
            long_valued=_SUDO_LONG_VALUED,
        )
        runs_nothing = {"e", "l", "v", "V", "K", "edit", "list", "validate", "version"}
    if options is None:
        return _unreadable(program, keep=True)
    rest = args[options.index :]
    if options.flags & runs_nothing or not rest:
        return Unwrapped(keep=True)
    return Unwrapped(commands=[rest], keep=True)


def _xargs(args: list[Word]) -> Unwrapped | None:
    options = _scan(
        args,
        flags="0oprtx",
        valued="adEILnPs",
        attached="eil",
        long_flags=_names(
            "null open-tty interactive no-run-if-empty verbose exit show-limits eof replace "
            "max-lines"
        ),
        long_valued=_names(
            "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var"
        ),
    )
    if options is None:
        return _unreadable("xargs")
    rest = args[options.index :] or [Word("echo", True)]
    replaces = bool(options.flags & {"I", "i", "replace"})
    return Unwrapped(commands=[rest], appends=not replaces)


_FIND_EXEC = _names("-exec -execdir -ok -okdir")
_FIND_WRITES = _names("-fprint -fprint0 -fls -fprintf")


def _find(args: list[Word]) -> Unwrapped | None:
    found = Unwrapped(keep=True)
    i = 0
    while i < len(args):
        arg = args[i].value if args[i].literal else ""
        if arg in _FIND_WRITES and i + 1 < len(args):
            found.writes.append(args[i + 1])
        if arg not in _FIND_EXEC:
            i += 1
            continue
        end = i + 1
        while end < len(args) and not (args[end].literal and args[end].value in (";", "+")):
            end += 1
        if end >= len(args):
            return Unwrapped(keep=True, problem=f"find {arg} without a closing ';' or '+'")
        found.commands.append(args[i + 1 : end])
        i = end + 1
    return found


def _tee(args: list[Word]) -> Unwrapped | None:
    found = Unwrapped(keep=True)
    options_done = False
    for word in args:
        arg = word.value
        if word.literal and not options_done and arg.startswith("-") and arg != "-":
            if arg == "--":
                options_done = True
            elif not (
                arg in ("--append", "--ignore-interrupts", "--output-error")
                or arg.startswith("--output-error=")
                or (not arg.startswith("--") and set(arg[1:]) <= set("aip"))
            ):
                return _unreadable("tee", keep=True)
            continue
        found.writes.append(word)
    return found


def _plain(
    program: str, flags: str = "", valued: str = ""
) -> Callable[[list[Word]], Unwrapped | None]:
    def unwrap(args: list[Word]) -> Unwrapped | None:
        return _inner(args, _scan(args, flags=flags, valued=valued), program)

    return unwrap


def _privileged(program: str, flags: str, long_valued: frozenset[str], operands: int) -> Handler:
    """Wrappers that change who or where the inner command runs: both are checked."""

    def unwrap(args: list[Word]) -> Unwrapped | None:
        options = _scan(
            args,
            flags=flags,
            long_flags=_names("skip-chdir disable-internal-agent keep-cwd"),
            long_valued=long_valued,
        )
        if options is None:
            return _unreadable(program, keep=True)
        rest = args[options.index + operands :]
        return Unwrapped(commands=[rest] if rest else [], keep=True)

    return unwrap


def _watch(args: list[Word]) -> Unwrapped | None:
    options = _scan(
        args,
        flags="bcCdegprtwx",
        valued="nq",
        long_flags=_names(
            "beep color no-color differences errexit chgexit exec precise no-title no-wrap no-rerun"
        ),
        long_valued=_names("interval equexit"),
    )
    if options is None:
        return _unreadable("watch")
    rest = args[options.index :]
    if not rest:
        return None
    if options.flags & {"x", "exec"}:
        return Unwrapped(commands=[rest])
    return _eval(rest)  # watch hands its words to sh -c, joined by spaces
