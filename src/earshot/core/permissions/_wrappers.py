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
                  eval, su -c, watch

Any other program that runs its arguments (``python -c``, ``awk 'BEGIN{system(...)}'``,
``make``) is checked as itself: a rule for ``rm`` cannot see into it, so it needs its own
allow rule (or the mode) to run.

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
FOREIGN_SHELLS = _names("fish tcsh csh")
SHELLS = _names("bash sh zsh dash ksh mksh ash") | FOREIGN_SHELLS


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


_STDIN_PATHS = ("/dev/stdin", "/dev/fd/", "/proc/")


def _reads_stdin(word: Word) -> bool:
    """Whether a script operand is standard input or a pipe (``-``, ``/dev/stdin``,
    ``/dev/fd/N``, ``<(...)``, anything computed)."""
    return not word.literal or word.value == "-" or word.value.startswith(_STDIN_PATHS)


def _shell(program: str, args: list[Word]) -> Unwrapped | None:
    has_c = False
    stdin = False
    i = 0
    while i < len(args):
        word = args[i]
        if not word.literal:
            return _unreadable(program)
        arg = word.value
        if arg in ("--", "-"):
            stdin = stdin or arg == "-"
            i += 1
            break
        if arg in ("--version", "--help"):
            return None
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if arg.startswith("--"):
            i += 1
            continue
        if len(arg) > 1 and arg[0] in "-+":
            has_c = has_c or (arg[0] == "-" and "c" in arg[1:])
            stdin = stdin or (arg[0] == "-" and "s" in arg[1:])
            i += 1
            continue
        break
    rest = args[i:]
    if has_c and program in FOREIGN_SHELLS:
        return Unwrapped(problem=f"{program} -c runs {program} code, which earshot cannot read")
    if has_c:
        if not rest:
            return Unwrapped(problem=f"{program} -c without a command")
        return Unwrapped(script=rest[0])
    if stdin or not rest or _reads_stdin(rest[0]):
        return Unwrapped(
            problem=f"{program} runs commands from its input, which earshot cannot see"
        )
    return None  # a script file: checked as written


def _source(args: list[Word]) -> Unwrapped | None:
    if not args or _reads_stdin(args[0]):
        return Unwrapped(problem="source runs commands from its input, which earshot cannot see")
    return None


def _trap(args: list[Word]) -> Unwrapped | None:
    """``trap HANDLER SIGNAL...``: the handler is code bash runs later."""
    if args and args[0].literal and args[0].value == "--":
        args = args[1:]
    if len(args) < 2 or (
        args[0].literal and (args[0].value == "-" or args[0].value.startswith("-"))
    ):
        return None  # lists, prints or resets traps
    if not args[0].literal:
        return Unwrapped(problem="trap runs a handler computed when it runs")
    return Unwrapped(script=args[0])


def _alias(args: list[Word]) -> Unwrapped | None:
    if any(not w.literal or "=" in w.value for w in args):
        return Unwrapped(problem="alias defines a name bash may expand into another command")
    return None


def _rebinds(program: str, flag: str) -> Handler:
    """``hash -p PATH NAME`` and ``enable -f LIB NAME`` change what a later name runs."""

    def unwrap(args: list[Word]) -> Unwrapped | None:
        for word in args:
            value = word.value
            if not word.literal or (value.startswith("-") and flag in value):
                return Unwrapped(problem=f"{program} -{flag} changes what a command name runs")
        return None

    return unwrap


def _mapfile(args: list[Word]) -> Unwrapped | None:
    for i, word in enumerate(args):
        if word.literal and word.value == "-C" and i + 1 < len(args):
            return Unwrapped(script=args[i + 1])
        if not word.literal or (word.value.startswith("-C") and len(word.value) > 2):
            return Unwrapped(problem="mapfile runs a callback earshot cannot read")
    return None


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


_SU_VALUED = "cgGswu"
_SU_LONG_VALUED = _names(
    "command session-command group supp-group shell whitelist-environment user"
)
_SU_FLAGS = "lmpfP"


def _su(program: str, args: list[Word]) -> Unwrapped | None:
    """``su [options] [-] [user [argument...]]``: options may follow the user name, and the
    arguments after it go to the user's shell; ``runuser -u USER [--] COMMAND`` runs a
    command directly."""
    scripts: list[Word] = []
    operands: list[Word] = []
    user_option = False
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        value = word.value
        if not word.literal:
            return _unreadable(program, keep=True)
        if value == "--":
            if user_option:
                rest = args[i:]
                return Unwrapped(commands=[rest] if rest else [], keep=True)
            operands.extend(args[i:])
            break
        if value == "-" or not value.startswith("-"):
            if user_option and value != "-":
                rest = args[i - 1 :]
                return Unwrapped(commands=[rest], keep=True)
            operands.append(word)
            continue
        if value.startswith("--"):
            name, eq, rest_value = value[2:].partition("=")
            if name in _SU_LONG_VALUED:
                if not eq:
                    if i >= len(args):
                        return _unreadable(program, keep=True)
                    taken = args[i]
                    i += 1
                else:
                    taken = Word(rest_value, True)
                if name in ("command", "session-command"):
                    scripts.append(taken)
                user_option = user_option or name == "user"
            elif name not in ("login", "preserve-environment", "pty"):
                return _unreadable(program, keep=True)
            continue
        for j in range(1, len(value)):
            char = value[j]
            if char in _SU_VALUED:
                if j + 1 < len(value):
                    taken = Word(value[j + 1 :], True)
                elif i < len(args):
                    taken = args[i]
                    i += 1
                else:
                    return _unreadable(program, keep=True)
                if char == "c":
                    scripts.append(taken)
                user_option = user_option or (char == "u" and program == "runuser")
                break
            if char not in _SU_FLAGS:
                return _unreadable(program, keep=True)
    if len(operands) > 1 + (operands[:1] == [Word("-", True)]):
        return Unwrapped(problem=f"{program} passes arguments to the user's shell", keep=True)
    if len(scripts) > 1:
        return Unwrapped(problem=f"{program} is given more than one command", keep=True)
    return Unwrapped(script=scripts[0] if scripts else None, keep=True)


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


_PARALLEL_FLAGS = _names(
    "-k --keep-order -q --quote -v --verbose --dry-run --tag -0 --null --will-cite --bar "
    "--eta --progress --line-buffer --group --ungroup -u -X -m --xargs --halt-on-error"
)
_PARALLEL_VALUED = _names("-j --jobs -n --max-args -N -P --max-procs --halt --delay --timeout")
_PARALLEL_INPUTS = _names("::: :::: :::+ ::::+")


def _parallel(args: list[Word]) -> Unwrapped | None:
    """``parallel [options] COMMAND ::: ARGS``: the command words are run by a shell, once
    per input; with no command, every input line is a command."""
    i = 0
    while i < len(args) and args[i].literal and args[i].value.startswith("-"):
        value = args[i].value
        name = value.partition("=")[0]
        if name in _PARALLEL_VALUED and "=" not in value:
            i += 2
        elif name in _PARALLEL_VALUED or name in _PARALLEL_FLAGS or value[:2] in ("-j", "-P"):
            i += 1
        else:
            return _unreadable("parallel")
    command: list[Word] = []
    for word in args[i:]:
        if word.literal and word.value in _PARALLEL_INPUTS:
            break
        command.append(word)
    if not command:
        return Unwrapped(problem="parallel runs commands read from its input")
    return _eval(command)


def _coproc(args: list[Word]) -> Unwrapped | None:
    """``coproc [NAME] COMMAND``; bash's grammar puts ``coproc NAME { ...; }`` together, the
    parser splits it at the ``;``: the words after ``{`` are read again as commands."""
    for i, word in enumerate(args[:2]):
        if word.literal and word.value == "{":
            return _eval(args[i + 1 :]) or Unwrapped()
    return _inner(args, _scan(args), "coproc")


def _flock(args: list[Word]) -> Unwrapped | None:
    """``flock [options] FILE COMMAND...`` or ``flock [options] FILE -c 'COMMAND'``."""
    options = _scan(
        args,
        flags="sxeunoFv",
        valued="wEc",
        long_flags=_names("shared exclusive unlock nonblock nb close no-fork verbose"),
        long_valued=_names("timeout wait conflict-exit-code command"),
    )
    if options is None:
        return _unreadable("flock")
    scripts = [w for name, w in options.values if name in ("c", "command")]
    rest = args[options.index + 1 :]  # after the lock file
    if rest and rest[0].literal and rest[0].value in ("-c", "--command") and len(rest) > 1:
        scripts.append(rest[1])
        rest = []
    if scripts:
        return Unwrapped(script=scripts[0])
    return Unwrapped(commands=[rest]) if rest else None


_SIMPLE: dict[str, Handler] = {
    "builtin": _plain("builtin"),
    "busybox": _plain("busybox"),
    "coproc": _coproc,
    "exec": _plain("exec", flags="cl", valued="a"),
    "ionice": _plain("ionice", flags="t", valued="cn"),
    "noglob": _plain("noglob"),
    "nohup": _plain("nohup"),
    "setsid": _plain("setsid", flags="cfw"),
    "stdbuf": _plain("stdbuf", valued="ioe"),
    "su": lambda args: _su("su", args),
    "runuser": lambda args: _su("runuser", args),
    "parallel": _parallel,
    "flock": _flock,
    "trap": _trap,
    "alias": _alias,
    "hash": _rebinds("hash", "p"),
    "enable": _rebinds("enable", "f"),
    "source": _source,
    ".": _source,
    "mapfile": _mapfile,
    "readarray": _mapfile,
    "pkexec": _privileged("pkexec", "", _names("user"), 0),
    "chroot": _privileged("chroot", "", _names("userspec groups"), 1),
    "watch": _watch,
    "eval": _eval,
    "env": _env,
    "command": _command,
    "nice": _nice,
    "time": _time,
    "timeout": _timeout,
    "xargs": _xargs,
    "find": _find,
    "tee": _tee,
}


def unwrap(program: str, args: list[Word]) -> Unwrapped | None:
    """What ``program args`` runs besides itself; None when it is no wrapper we know."""
    if program in SHELLS:
        return _shell(program, args)
    if program in ("sudo", "doas"):
        return _sudo(program, args)
    handler = _SIMPLE.get(program)
    return handler(args) if handler is not None else None
