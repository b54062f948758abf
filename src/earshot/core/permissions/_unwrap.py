"""The wrapper table: which programs run other programs, and ``unwrap`` to find them.

``_wrappers.py`` holds the classic wrappers (env, sudo, xargs, find ...) and the option
scanner; this module adds the programs that run a *string* or their *input* as commands,
or that change who runs them: shells (``bash -c``; fish, tcsh and csh fail closed because
their syntax is not bash's; a shell fed from its input is unreadable), ``source``, ``trap``,
``alias``, ``hash -p``, ``enable -f``, ``mapfile -C``, ``su``/``runuser`` (options anywhere
after the user), ``parallel``, ``flock`` and ``coproc``.
"""

from __future__ import annotations

from earshot.core.permissions._wrappers import (
    Handler,
    Unwrapped,
    Word,
    _command,
    _env,
    _eval,
    _find,
    _inner,
    _names,
    _nice,
    _plain,
    _privileged,
    _scan,
    _sudo,
    _tee,
    _time,
    _timeout,
    _unreadable,
    _watch,
    _xargs,
)

FOREIGN_SHELLS = _names("fish tcsh csh")
SHELLS = _names("bash sh zsh dash ksh mksh ash") | FOREIGN_SHELLS


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


__all__ = ["FOREIGN_SHELLS", "SHELLS", "unwrap"]
