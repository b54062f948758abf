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
from dataclasses import dataclass

from earshot.core.permissions._args import (
    INLINE_STDIN,
    Effects,
    Handler,
    _Args,
    _has,
    _names,
    _split,
    _values,
)
from earshot.core.permissions._code import VARIABLE_WORD
from earshot.core.permissions._interpreters import (
    _NODE,
    _PYTHON,
    _awk,
    _git,
    _interpreter,
    _perl,
    _sed,
)
from earshot.core.permissions._wrappers import Word

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


def _truncate(args: list[Word]) -> Effects:
    parsed = _split(args, "sr", frozenset({"size", "reference"}))
    return Effects(writes=parsed.operands, reads=_values(parsed, "r", "reference"))


_CURL_VALUED = "oTKdFHAuxXwbcerEYymCDzUQtP"
_CURL_LONG = _names(
    "output upload-file config data data-binary data-raw data-urlencode form form-string "
    "header user-agent user proxy request write-out cookie cookie-jar referer range cert "
    "max-time dump-header output-dir json url"
)


def _curl(args: list[Word]) -> Effects:
    """curl writes ``-o``, ``-c``, ``-D``, ``--output-dir``; it reads (and may send)
    ``-T``, ``-K`` and the ``@file`` of ``-d``, ``-F``, ``--json`` and friends."""
    parsed = _split(args, _CURL_VALUED, _CURL_LONG)
    found = Effects(writes=_values(parsed, "o", "output", "c", "cookie-jar", "D", "dump-header"))
    found.writes.extend(_values(parsed, "output-dir"))
    found.reads = _values(parsed, "T", "upload-file", "K", "config")
    for word in _values(parsed, "d", "data", "data-binary", "data-urlencode", "F", "form", "json"):
        _, at, rest = word.value.partition("@")
        name = rest.partition(";")[0]
        if at and name and name != "-":
            found.reads.append(Word(name, word.literal, word.glob, _home(name)))
    return found


def _wget(args: list[Word]) -> Effects:
    long = _names("output-document output-file append-output directory-prefix input-file")
    long |= _names("post-file body-file execute")
    parsed = _split(args, "OoaPie", long)
    found = Effects(writes=_values(parsed, "O", "output-document", "o", "output-file"))
    found.writes.extend(_values(parsed, "a", "append-output", "P", "directory-prefix"))
    found.reads = _values(parsed, "i", "input-file", "post-file", "body-file")
    if _has(parsed, "e", "execute"):
        found.problem = "wget -e runs wgetrc commands earshot does not read"
    return found


_TAR_VALUED = "fCTXbHIKLNVg"
_TAR_RUNS = _names(
    "to-command use-compress-program checkpoint-action info-script new-volume-script"
)


def _tar(args: list[Word]) -> Effects:
    """tar writes its archive when it creates one and the ``-C`` directory when it extracts;
    an option that runs a program fails closed."""
    if args and args[0].literal and not args[0].value.startswith("-"):
        args = [Word("-" + args[0].value, True), *args[1:]]  # old style: tar czf out dir
    parsed = _split(args, _TAR_VALUED, _names("file directory files-from exclude-from"))
    found = Effects()
    if any(name in _TAR_RUNS or name == "I" for name, _ in parsed.options):
        found.problem = "tar runs a program named in its options"
    modes = {name for name, _ in parsed.options}
    archives = _values(parsed, "f", "file")
    if modes & {"c", "r", "u", "A", "create", "append", "update"}:
        found.writes.extend(archives)
    else:
        found.reads.extend(archives)
    if modes & {"x", "extract", "get"}:
        found.writes.extend(_values(parsed, "C", "directory") or [Word(".", True)])
    found.reads.extend(_values(parsed, "T", "files-from", "X", "exclude-from"))
    return found


def _unzip(args: list[Word]) -> Effects:
    parsed = _split(args, "dx")
    return Effects(writes=_values(parsed, "d"))


def _rsync(args: list[Word]) -> Effects:
    parsed = _split(args, "eBfTM", _names("rsh rsync-path filter temp-dir"))
    found = Effects()
    for shell in _values(parsed, "e", "rsh"):
        if not (shell.literal and shell.value.split(" ")[0] in ("ssh", "/usr/bin/ssh")):
            found.problem = "rsync -e runs a program earshot does not read"
    operands = parsed.operands
    if len(operands) > 1:
        target = operands[-1]
        remote = target.literal and ":" in target.value.partition("/")[0]
        found.writes = [] if remote else [target]
        found.reads = operands[:-1]
    return found


def _touch(args: list[Word]) -> Effects:
    parsed = _split(args, "dtr", frozenset({"date", "reference", "time"}))
    return Effects(writes=parsed.operands, reads=_values(parsed, "r", "reference"))


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
    "curl": _curl,
    "wget": _wget,
    "tar": _tar,
    "unzip": _unzip,
    "rsync": _rsync,
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
        reads, found.below = _search_reads(program, args, spec.valued if spec else "")
        found.reads.extend(reads)
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


def _search_reads(program: str, args: list[Word], valued: str) -> tuple[list[Word], list[Word]]:
    """grep/rg: the operands after the pattern and the files of ``-f``; and, when it
    searches directories, the directories it reads everything below (``.`` by default)."""
    parsed = _split(args, valued, frozenset({"regexp", "file", "directories"}))
    pattern_files = _values(parsed, "f", "file")
    operands = parsed.operands
    if not _has(parsed, "e", "regexp", "f", "file"):
        operands = operands[1:]
    recursive = program in ("rg", "ag", "ack") or _has(
        parsed, "r", "R", "recursive", "dereference-recursive"
    )
    recursive = recursive or any(w.value == "recurse" for w in _values(parsed, "d", "directories"))
    below = (operands or [Word(".", True)]) if recursive else []
    return file_arguments([w for w in [*operands, *pattern_files] if w.literal]), below


def _home(value: str) -> bool:
    return value == "~" or value.startswith("~/")


_HOME_WORD = re.compile(r'"?\$(HOME|\{HOME\})(/[^$`"\'\\*?\[{]*)?"?')


def home_path(word: Word) -> Word | None:
    """``$HOME/x`` (or ``"${HOME}/x"``) as the literal ``~/x``: the home directory comes
    from earshot's environment, which the line cannot change before it expands."""
    if word.literal:
        return None
    found = _HOME_WORD.fullmatch(word.value)
    if found is None:
        return None
    return Word("~" + (found.group(2) or ""), True, tilde=True)


def file_arguments(args: list[Word]) -> list[Word]:
    """Words that may name a file: operands, ``--opt=VALUE`` and ``key=VALUE`` values, and
    the path of ``REV:path``."""
    found: list[Word] = []
    for word in args:
        home = home_path(word)
        if home is not None:
            found.append(home)
            continue
        if not word.literal and VARIABLE_WORD.fullmatch(word.value):
            found.append(word)  # shell.py reads it with the values the line gives it
            continue
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


__all__ = [
    "INLINE_STDIN",
    "READ_ONLY",
    "WRITERS",
    "Effects",
    "ReadOnly",
    "file_arguments",
    "home_path",
]
