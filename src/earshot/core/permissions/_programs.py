"""What known programs do with their arguments: read them, write them, or run them as code.

::

    inspect(program, args) -> Effects
      writes     arguments the program writes (checked like ``> FILE``): the destination of
                 cp/mv/install/ln, the sources of mv, ``sed -i``/``perl -i`` files,
                 ``dd of=``, ``truncate``, ``touch``, ``rm``/``rmdir``/``unlink``/``shred``,
                 ``mkdir``, ``chmod``/``chown``/``chgrp``, ``sort -o``, ``find -delete``
                 start points, ``git diff|log|show --output``
      reads      every literal argument that may name a file (Read deny rules refuse them)
      read_only  the invocation is in READ_ONLY and passes its check: it changes nothing
      inline     code given on the command line (``python3 -c``, ``node -e``, ``perl -e``,
                 ``ruby -e``, ``php -r``, an ``awk``/``sed`` program that runs commands or
                 writes files, an interpreter reading its program from standard input):
                 the word an allow rule must name for it to be allowed (INLINE_STDIN: only
                 a rule without ``*``)
      normal     the command without ``git``'s global options (``git -C d push`` is also
                 ``git push`` for deny and ask rules)
      problem    what makes the invocation unreadable (``git -c core.pager=...``)

The tables are conservative: a program or option not listed is checked as itself (a rule or
the mode decides), never assumed harmless.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from earshot.core.permissions._wrappers import Word


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


INLINE_STDIN = "<stdin>"
"""``inline`` for an interpreter that reads its program from standard input."""


@dataclass
class Effects:
    writes: list[Word] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)
    read_only: bool = False
    inline: str = ""
    normal: list[Word] | None = None
    problem: str = ""


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


# --- programs that write their arguments -----------------------------------------------


def _copy_like(program: str, args: list[Word]) -> Effects:
    valued = "tSmogZ" if program == "install" else "tS"
    parsed = _split(args, valued, frozenset({"target-directory", "suffix", "mode", "owner"}))
    operands = parsed.operands
    target = _values(parsed, "t", "target-directory")
    found = Effects()
    if program == "install" and _has(parsed, "d", "directory"):
        found.writes = list(operands)
        return found
    if target:
        found.writes = target[:1]
        sources = operands
    elif program == "ln" and len(operands) == 1:
        base = operands[0].value.rstrip("/").rpartition("/")[2] if operands[0].literal else ""
        found.writes = [Word(base or ".", operands[0].literal)]
        sources = operands
    else:
        found.writes = operands[-1:]
        sources = operands[:-1]
    if program == "mv":
        found.writes.extend(sources)  # a moved file is gone from where it was
    if program != "ln":
        found.reads.extend(sources)
    return found


def _all_operands(valued: str = "", long_valued: frozenset[str] = frozenset()) -> Handler:
    def effects(args: list[Word]) -> Effects:
        return Effects(writes=_split(args, valued, long_valued).operands)

    return effects


def _after_first(args: list[Word]) -> Effects:
    """chmod/chown/chgrp MODE FILE...: the files after the mode (all with --reference)."""
    parsed = _split(args)
    operands = parsed.operands if _has(parsed, "reference") else parsed.operands[1:]
    return Effects(writes=operands)


def _dd(args: list[Word]) -> Effects:
    found = Effects()
    for word in args:
        key, eq, value = word.value.partition("=")
        if eq and key == "of":
            found.writes.append(Word(value, word.literal, word.glob))
        elif eq and key == "if":
            found.reads.append(Word(value, word.literal, word.glob))
    return found


def _sort(args: list[Word]) -> Effects:
    parsed = _split(args, "kotST", frozenset({"output", "key", "field-separator"}))
    found = Effects(writes=_values(parsed, "o", "output"))
    if _has(parsed, "compress-program"):
        found.problem = "sort --compress-program runs another program"
    return found


def _find(args: list[Word]) -> Effects:
    starts = _find_starts(args)
    deletes = any(w.literal and w.value == "-delete" for w in args)
    return Effects(writes=(starts or [Word(".", True)]) if deletes else [])


_SED_RISKY = re.compile(r"[wWeRr]")


def _sed_script_risky(script: str) -> bool:
    """Whether a sed script may write a file, read one or run a command (``w``, ``W``,
    ``r``, ``R``, ``e`` and the ``s///w``/``s///e`` flags); True when it cannot be read."""
    i = 0
    n = len(script)
    while i < n:
        char = script[i]
        if char in " \t\n;{}!":
            i += 1
            continue
        if char.isdigit() or char in "$,~+":
            i += 1
            continue
        if char in "/\\":
            delim = script[i + 1] if char == "\\" and i + 1 < n else "/"
            i = _skip_delimited(script, i + (2 if char == "\\" else 1), delim)
            if i < 0:
                return True
            continue
        if char in "sy":
            if i + 1 >= n:
                return True
            delim = script[i + 1]
            i = _skip_delimited(script, i + 2, delim)
            i = _skip_delimited(script, i, delim) if i >= 0 else -1
            if i < 0:
                return True
            start = i
            while i < n and script[i] not in ";\n}":
                i += 1
            if char == "s" and _SED_RISKY.search(script[start:i].split(" ")[0]):
                return True
            continue
        if _SED_RISKY.fullmatch(char):
            return True
        if char in "aic:btTqQlL":
            while i < n and script[i] not in (";\n" if char in ":btT" else "\n"):
                i += 1
            continue
        if char.isalpha() or char in "=#":
            if char == "#":
                while i < n and script[i] != "\n":
                    i += 1
            i += 1
            continue
        return True
    return False


def _skip_delimited(script: str, i: int, delim: str) -> int:
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delim:
            return i + 1
        i += 1
    return -1


def _sed(args: list[Word]) -> Effects:
    parsed = _split(args, "efl", frozenset({"expression", "file", "line-length"}))
    scripts = _values(parsed, "e", "expression")
    operands = list(parsed.operands)
    if not scripts and not _has(parsed, "f", "file") and operands:
        scripts = [operands.pop(0)]
    found = Effects()
    in_place = any(name in ("i", "in-place") for name, _ in parsed.options) or any(
        w.literal and w.value.startswith("-") and not w.value.startswith("--") and "i" in w.value
        for w in args
    )
    if in_place:
        found.writes = operands
    else:
        found.reads = operands
    found.reads.extend(_values(parsed, "f", "file"))
    for script in scripts:
        if not script.literal or _sed_script_risky(script.value):
            found.inline = script.value
    return found


def _truncate(args: list[Word]) -> Effects:
    parsed = _split(args, "sr", frozenset({"size", "reference"}))
    return Effects(writes=parsed.operands, reads=_values(parsed, "r", "reference"))


def _touch(args: list[Word]) -> Effects:
    parsed = _split(args, "dtr", frozenset({"date", "reference", "time"}))
    return Effects(writes=parsed.operands, reads=_values(parsed, "r", "reference"))


# --- interpreters -------------------------------------------------------------------------


def _interpreter(inline_flags: str, valued: str, long_inline: frozenset[str]) -> Handler:
    """An interpreter: ``inline_flags`` (short) and ``long_inline`` carry code; ``valued``
    short options take a value; the first operand is the script, else standard input."""

    def effects(args: list[Word]) -> Effects:
        i = 0
        while i < len(args):
            word = args[i]
            value = word.value
            if not word.literal:
                return Effects()  # a computed script name: checked as written
            if value == "-":
                return Effects(inline="-")
            if value == "--" or not value.startswith("-"):
                break
            i += 1
            if value.startswith("--"):
                name = value.partition("=")[0]
                if name in long_inline:
                    return Effects(inline=name)
                if name in ("--version", "--help"):
                    return Effects()
                continue
            for j in range(1, len(value)):
                char = value[j]
                if char in inline_flags:
                    return Effects(inline=value[: j + 1])
                if char in valued:
                    if j + 1 == len(value):
                        i += 1
                    break
                if char in "hV" and len(value) == 2:
                    return Effects()  # help or version
        rest = args[i:]
        if rest and rest[0].literal and rest[0].value == "--":
            rest = rest[1:]
        return Effects() if rest else Effects(inline=INLINE_STDIN)

    return effects


def _perl(args: list[Word]) -> Effects:
    i = 0
    found = Effects()
    in_place = False
    while i < len(args) and args[i].literal and args[i].value.startswith("-"):
        value = args[i].value
        i += 1
        if value == "--":
            break
        if value.startswith("--"):
            continue
        j = 1
        while j < len(value):
            char = value[j]
            if char in "eE":
                found.inline = found.inline or value[: j + 1]
                if j + 1 == len(value):
                    i += 1  # the code
                break
            if char == "i":
                in_place = True
                break  # -i[extension]
            if char in "IMmxdDC":
                break  # takes the rest of the word
            if char in "0l":
                j += 1
                while j < len(value) and value[j] in "0123456789abcdefxABCDEF":
                    j += 1
                continue
            if char in "vh":
                return Effects()
            j += 1
    operands = args[i:]
    if not found.inline:
        if not operands:
            found.inline = INLINE_STDIN
        operands = operands[1:]  # the script
    if in_place:
        found.writes = list(operands)
    return found


_AWK_RISKY = re.compile(r"system|@load|@include|(?<!\|)\|(?!\|)|print[f]?[^;{}]*>")


def _awk(args: list[Word]) -> Effects:
    parsed = _split(args, "Ffve", frozenset({"source", "field-separator", "assign", "file"}))
    programs = _values(parsed, "e", "source")
    operands = list(parsed.operands)
    if not programs and not _has(parsed, "f", "file") and operands:
        programs = [operands.pop(0)]
    found = Effects(reads=operands + _values(parsed, "f", "file"))
    for program in programs:
        if not program.literal or _AWK_RISKY.search(program.value):
            found.inline = program.value
    return found


# --- git ------------------------------------------------------------------------------------

_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_GIT_VALUED |= frozenset({"--attr-source", "--list-cmds"})
_GIT_FLAGS = _names(
    "--no-pager -P -p --paginate --bare --no-replace-objects --literal-pathspecs "
    "--glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks "
    "--no-lazy-fetch --no-advice"
)
# -c keys that cannot make git run a program; any other fails closed
_GIT_SAFE_CONFIG = re.compile(
    r"(color|advice|column)\..*|user\.(name|email)|core\.(quotepath|autocrlf|safecrlf)"
    r"|init\.defaultbranch|log\.(date|decorate|abbrevcommit)|diff\.(renames|algorithm)"
    r"|pull\.rebase|push\.default|i18n\..*"
)
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch"})
_GIT_READ_ONLY_GLOBALS = frozenset({"-C", "--git-dir", "--work-tree", "--no-pager", "-P"})
_GIT_BRANCH_CHANGES = _names("d D m M c C f u delete move copy force track")
_GIT_BRANCH_CHANGES |= frozenset({"set-upstream-to", "unset-upstream", "edit-description"})


def _git(args: list[Word]) -> Effects:
    i = 0
    globals_seen: set[str] = set()
    while i < len(args):
        word = args[i]
        if not word.literal:
            return Effects(problem="git's options are computed when it runs")
        value = word.value
        if not value.startswith("-"):
            break
        name, eq, _ = value.partition("=")
        i += 1
        if name in ("--exec-path", "--config-env") and (eq or name == "--config-env"):
            return Effects(problem=f"git {name} can make git run another program")
        if name == "-c" or (name.startswith("-c") and len(name) > 2 and not name.startswith("--")):
            config = word if name != "-c" else (args[i] if i < len(args) else Word("", True))
            i += 1 if name == "-c" else 0
            key = (config.value if name == "-c" else value[2:]).partition("=")[0].lower()
            if not config.literal or _GIT_SAFE_CONFIG.fullmatch(key) is None:
                return Effects(problem=f"git -c {key or '...'} can make git run another program")
            globals_seen.add("-c")
            continue
        globals_seen.add(name)
        if name in _GIT_VALUED and not eq:
            i += 1
        elif name not in _GIT_VALUED and name not in _GIT_FLAGS and name != "--exec-path":
            return Effects(problem=f"earshot does not know git's option {name}")
    found = Effects(normal=[Word("git", True), *args[i:]] if i else None)
    if i >= len(args):
        return found
    sub = args[i].value if args[i].literal else ""
    parsed = _split(args[i + 1 :], "o" if sub == "format-patch" else "", frozenset({"output"}))
    found.writes = _values(parsed, "output", "output-directory")
    if sub == "format-patch":
        found.writes.extend(_values(parsed, "o"))
    found.read_only = (
        sub in _GIT_READ_ONLY
        and not found.writes
        and globals_seen <= _GIT_READ_ONLY_GLOBALS
        and not _has(parsed, "ext-diff", "open-files-in-pager", "O")
        and (
            sub != "branch"
            or (
                not _has(parsed, *_GIT_BRANCH_CHANGES)
                and (not parsed.operands or _has(parsed, "l", "list"))
            )
        )
    )
    return found


# --- read-only programs ---------------------------------------------------------------------

Check = Callable[[_Args], bool]


def _without(*names: str) -> Check:
    def check(parsed: _Args) -> bool:
        return not _has(parsed, *names)

    return check


def _at_most(count: int) -> Check:
    def check(parsed: _Args) -> bool:
        return len(parsed.operands) <= count

    return check


def _always(parsed: _Args) -> bool:
    return True


@dataclass(frozen=True)
class ReadOnly:
    """A program that changes nothing when ``check`` passes. ``valued`` short options take a
    value; ``files`` says its operands may be files (so a computed one could hide a denied
    file, and the command is then not counted as read-only)."""

    check: Check = _always
    valued: str = ""
    files: bool = True


READ_ONLY: dict[str, ReadOnly] = {
    "ls": ReadOnly(valued="ITw"),
    "pwd": ReadOnly(files=False),
    "cd": ReadOnly(files=False),
    "pushd": ReadOnly(files=False),
    "popd": ReadOnly(files=False),
    "cat": ReadOnly(),
    "head": ReadOnly(valued="cn"),
    "tail": ReadOnly(valued="cns"),
    "wc": ReadOnly(),
    "file": ReadOnly(valued="mfFP"),
    "stat": ReadOnly(valued="cf"),
    "which": ReadOnly(files=False),
    "echo": ReadOnly(files=False),
    "printf": ReadOnly(_without("v"), valued="v", files=False),
    "true": ReadOnly(files=False),
    "false": ReadOnly(files=False),
    "grep": ReadOnly(valued="ABCDdefm"),
    "egrep": ReadOnly(valued="ABCDdefm"),
    "fgrep": ReadOnly(valued="ABCDdefm"),
    "rg": ReadOnly(_without("pre", "search-zip", "z"), valued="ABCEegfjMmrTt"),
    "find": ReadOnly(),  # its -exec, -delete and -fprint are refused in find_read_only
    "basename": ReadOnly(files=False),
    "dirname": ReadOnly(files=False),
    "realpath": ReadOnly(files=False),
    "readlink": ReadOnly(files=False),
    "du": ReadOnly(valued="Bdt"),
    "df": ReadOnly(valued="Bt"),
    "date": ReadOnly(_without("s", "set", "f", "file"), valued="dfr", files=False),
    "sort": ReadOnly(_without("o", "output", "compress-program"), valued="kotST"),
    "uniq": ReadOnly(_at_most(1), valued="fsw"),
    "cut": ReadOnly(valued="bcdf"),
    "tr": ReadOnly(files=False),
    "nl": ReadOnly(),
    "tac": ReadOnly(),
    "rev": ReadOnly(),
    "od": ReadOnly(valued="AjNSt"),
    "md5sum": ReadOnly(),
    "sha1sum": ReadOnly(),
    "sha256sum": ReadOnly(),
    "sha512sum": ReadOnly(),
    "cmp": ReadOnly(),
    "comm": ReadOnly(),
    "diff": ReadOnly(_without("to-file", "from-file")),
    "tree": ReadOnly(_without("o"), valued="LPIo"),
    "whoami": ReadOnly(files=False),
    "id": ReadOnly(files=False),
    "uname": ReadOnly(files=False),
    "type": ReadOnly(files=False),
    "test": ReadOnly(),
    "[": ReadOnly(),
}
"""Programs that never prompt when every command of a line is one of them (see
``docs/permissions.md``): listed by name, each with the options that would make it write."""

_FIND_ACTS = _names("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")


def _read_only(program: str, args: list[Word]) -> bool:
    spec = READ_ONLY.get(program)
    if spec is None:
        return False
    if program == "find":
        return not any(w.literal and w.value in _FIND_ACTS for w in args) and all(
            w.literal for w in args
        )
    if spec.files and not all(w.literal and not w.marker for w in args):
        return False  # a computed argument could name any file
    parsed = _split(args, spec.valued)
    return spec.check(parsed)


# --- the table ------------------------------------------------------------------------------

Handler = Callable[[list[Word]], Effects]

_PYTHON = _interpreter("c", "WXQ", frozenset())
_NODE = _interpreter("ep", "r", frozenset({"--eval", "--print"}))

WRITERS: dict[str, Handler] = {
    "cp": lambda args: _copy_like("cp", args),
    "mv": lambda args: _copy_like("mv", args),
    "install": lambda args: _copy_like("install", args),
    "ln": lambda args: _copy_like("ln", args),
    "dd": _dd,
    "sed": _sed,
    "perl": _perl,
    "truncate": _truncate,
    "touch": _touch,
    "rm": _all_operands(),
    "rmdir": _all_operands(),
    "unlink": _all_operands(),
    "shred": _all_operands("nsu", frozenset({"iterations", "size"})),
    "mkdir": _all_operands("m", frozenset({"mode"})),
    "chmod": _after_first,
    "chown": _after_first,
    "chgrp": _after_first,
    "sort": _sort,
    "find": _find,
    "git": _git,
    "python": _PYTHON,
    "python3": _PYTHON,
    "python2": _PYTHON,
    "pypy3": _PYTHON,
    "node": _NODE,
    "nodejs": _NODE,
    "bun": _interpreter("e", "r", frozenset({"--eval", "--print"})),
    "ruby": _interpreter("e", "IrCEx", frozenset()),
    "php": _interpreter("rRBE", "cdzF", frozenset()),
    "lua": _interpreter("e", "l", frozenset()),
    "Rscript": _interpreter("e", "", frozenset()),
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
}
"""Programs whose arguments are files they write or code they run."""

_PYTHON_VERSIONED = re.compile(r"python[23](\.[0-9]+)?")


def inspect(program: str, args: list[Word]) -> Effects:
    """What ``program args`` does with its arguments (see the module docstring)."""
    handler = WRITERS.get(program)
    if handler is None and _PYTHON_VERSIONED.fullmatch(program):
        handler = _PYTHON
    found = handler(args) if handler is not None else Effects()
    spec = READ_ONLY.get(program)
    if program == "find":
        found.reads.extend(_find_starts(args))
    elif program in _PATTERN_FIRST:
        found.reads.extend(_search_reads(args, spec.valued if spec is not None else ""))
    elif (spec is None or spec.files) and program not in _NO_READS:
        written = found.writes
        found.reads.extend(w for w in file_arguments(args) if w not in written)
    if not found.read_only and not found.writes and not found.inline and not found.problem:
        found.read_only = _read_only(program, args)
    return found


_NO_READS = frozenset({"tee", "cd", "pushd", "mkdir", "touch", "truncate", "rm", "rmdir"})
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})


def _find_starts(args: list[Word]) -> list[Word]:
    starts: list[Word] = []
    for word in args:
        if word.literal and (word.value.startswith(("-", "(", "!")) or word.value == ")"):
            break
        starts.append(word)
    return file_arguments(starts)


def _search_reads(args: list[Word], valued: str) -> list[Word]:
    """grep/rg: the operands after the pattern, and the files of ``-f``."""
    parsed = _split(args, valued, frozenset({"regexp", "file"}))
    pattern_files = _values(parsed, "f", "file")
    operands = parsed.operands
    if not _has(parsed, "e", "regexp", "f", "file"):
        operands = operands[1:]
    return file_arguments([w for w in [*operands, *pattern_files] if w.literal])


def _home(value: str) -> bool:
    return value == "~" or value.startswith("~/")


def file_arguments(args: list[Word]) -> list[Word]:
    """Words that may name a file: operands, ``--opt=VALUE`` and ``key=VALUE`` values, and
    the path of ``REV:path``."""
    found: list[Word] = []
    for word in args:
        if not word.literal or word.marker or not word.value:
            continue
        value = word.value
        if value.startswith("-"):
            name, eq, rest = value.partition("=")
            if eq and name.startswith("--") and rest:
                found.append(Word(rest, True, word.glob, _home(rest)))
            continue
        found.append(word)
        for sep in ("=", ":"):
            key, eq, rest = value.partition(sep)
            if eq and key and rest and "/" not in key:
                found.append(Word(rest, True, word.glob, _home(rest)))
    return found


__all__ = ["INLINE_STDIN", "READ_ONLY", "WRITERS", "Effects", "ReadOnly", "file_arguments"]
