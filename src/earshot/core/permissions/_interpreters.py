"""Programs whose arguments are code: interpreters with inline code, ``awk`` and ``sed``
programs that run commands or write files, and ``git`` (its global options and ``-c``).

Each returns ``Effects``: ``inline`` names the word an allow rule must contain to allow
the code; ``git`` also gives the command without its global options (``normal``) and fails
closed on ``-c`` keys that can make it run a program.
"""

from __future__ import annotations

import re

from earshot.core.permissions._args import (
    INLINE_STDIN,
    Effects,
    Handler,
    _has,
    _names,
    _split,
    _values,
)
from earshot.core.permissions._wrappers import Word

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


_PYTHON = _interpreter("c", "WXQ", frozenset())
_NODE = _interpreter("ep", "r", frozenset({"--eval", "--print"}))


__all__ = ["INLINE_STDIN"]
