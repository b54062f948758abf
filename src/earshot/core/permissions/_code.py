"""Text that bash evaluates as code although it is not written as a command.

Bash evaluates an array subscript as arithmetic, and arithmetic runs the ``$(...)`` inside a
subscript it meets in a variable's *value*: ``x='a[$(rm -rf ~)]'; echo $((x))`` runs ``rm``.
The same happens for a variable name given to a builtin (``printf -v 'a[$(...)]'``,
``read``, ``mapfile``, ``unset``, ``test -v``, ``declare -n``) and in ``[[ x -eq y ]]``,
``let``, ``((...))``, ``${a[i]}``, ``${s:i}`` and ``${!ref}``. ``${x@P}`` expands a value as
a prompt, which runs its command substitutions.

``Evaluated`` collects, over a whole line, the variables given a value earshot cannot prove
harmless (computed, read from input, or containing ``[``) and the names bash evaluates; a
name in both makes the line unreadable, as does a subscript with code in a name argument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from earshot.core.permissions._words import _bare, _text, _word
from earshot.core.permissions._wrappers import Word

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXPANSION = re.compile(r"\$\{(!?)([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(.*)\}", re.DOTALL)
_ARITH_TEST = re.compile(r"-(eq|ne|lt|le|gt|ge)\b")
VARIABLE_WORD = re.compile(r'("?)\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?(/[^$`"\'\\]*)?"?')
_POSITIONAL = re.compile(r"\$\{?[0-9@*]")
_ARGUMENTS = "@"
"""Stands for the positional parameters, which the line cannot prove harmless."""
_TEST_V = re.compile(r"(^|\s)-v\s")
_SUBSCRIPT = re.compile(r"\[(.*)\]", re.DOTALL)

# builtins whose operands (or the value of an option) name variables bash assigns
_TARGET_OPTION = {"printf": "v", "read": "a", "wait": "p"}
_VALUED = {"read": "dnNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}
_NAMES_ARE_OPERANDS = frozenset({"read", "unset", "getopts", "mapfile", "readarray"})


@dataclass
class Evaluated:
    unsafe: set[str] = field(default_factory=set)
    arithmetic: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    refers: dict[str, set[str]] = field(default_factory=dict)
    values: dict[str, list[str]] = field(default_factory=dict)

    def note(self, node: Node) -> bool:
        """Note what ``node`` gives a value or evaluates; True for an assignment standing
        alone (not a prefix of a command or a declaration)."""
        kind = node.type
        if kind == "variable_assignment":
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is None:
                return False
            target = Word(_text(name), True)
            self.target(target, "an assignment")
            self.assignment(target.value.partition("[")[0], _word(value) if value else None)
            parent = node.parent
            return parent is not None and parent.type not in ("command", "declaration_command")
        if kind in ("arithmetic_expansion", "c_style_for_statement") or (
            kind == "compound_statement" and _text(node).startswith("((")
        ):
            self.arithmetic_text(_text(node))
        elif kind == "test_command":
            self.test_text(_text(node))
        elif kind == "expansion":
            self.expansion(_text(node))
        elif kind == "for_statement":
            variable = node.child_by_field_name("variable")
            values = [_word(v) for v in node.children_by_field_name("value")]
            if variable is not None:
                safe = all(v.literal and "[" not in v.value for v in values)
                self.assignment(_text(variable), Word("", True) if safe else None, False)
                for word in values:
                    self.values.setdefault(_text(variable), []).append(word.value)
        return False

    def assignment(self, name: str, value: Word | None, record: bool = True) -> None:
        """``name=value`` somewhere in the line (``value`` None: read from input);
        ``record`` keeps a literal value for ``variable_paths``."""
        if value is None or not value.literal or "[" in value.value:
            self.unsafe.add(name)
        else:  # arithmetic on ``name`` evaluates the names in its value in turn
            self.refers.setdefault(name, set()).update(_NAME.findall(value.value))
        if record and value is not None and value.literal:
            self.values.setdefault(name, []).append(value.value)

    def arithmetic_text(self, text: str) -> None:
        self.arithmetic.update(_NAME.findall(text))
        if _POSITIONAL.search(text):
            self.arithmetic.add(_ARGUMENTS)
            self.unsafe.add(_ARGUMENTS)  # a function's or a script's arguments

    def test_text(self, text: str) -> None:
        """``[[ ... ]]`` and ``[ ... ]``: the operands of -eq and friends are arithmetic,
        and ``-v`` evaluates the subscript of the name it tests."""
        if _ARITH_TEST.search(text):
            self.arithmetic_text(text)
        if _TEST_V.search(text):
            for subscript in _SUBSCRIPT.findall(text):
                self.target(Word(f"v[{subscript}]", True), "-v")

    def expansion(self, text: str) -> None:
        found = _EXPANSION.fullmatch(text)
        if found is None:
            return
        indirect, name, rest = found.groups()
        if "@P" in rest:
            self.problems.append(f"{_short(text)} expands a value as a prompt, running its code")
        if indirect:
            self.arithmetic.add(name)
        if rest.startswith("[") or (rest.startswith(":") and rest[1:2] not in ("-", "=", "?", "+")):
            self.arithmetic_text(rest)

    def target(self, word: Word, program: str) -> None:
        """A variable name given to ``program``: bash evaluates its subscript."""
        if not word.literal:
            self.problems.append(f"{program} is given a variable name computed when it runs")
            return
        _, bracket, subscript = word.value.partition("[")
        if not bracket:
            return
        if "$(" in subscript or "`" in subscript or "$[" in subscript:
            self.problems.append(f"bash runs the code in the subscript of {_short(word.value)}")
        self.arithmetic_text(subscript)

    def command(self, program: str, args: list[Word]) -> None:
        """Builtins that assign, test or evaluate variables by name."""
        if program == "let":
            for word in args:
                if not word.literal:
                    self.problems.append("let evaluates text computed when it runs")
                elif "$(" in word.value or "`" in word.value:
                    self.problems.append(f"let runs the code in {_short(word.value)}")
                else:
                    self.arithmetic_text(word.value)
            return
        if program in ("test", "[") and any(w.literal and w.value == "-v" for w in args):
            for word in args:
                if word.literal and word.value not in ("-v", "]"):
                    self.target(word, program)
            return
        option = _TARGET_OPTION.get(program)
        names: list[Word] = []
        i = 0
        while i < len(args):
            word = args[i]
            value = word.value
            if word.literal and value.startswith("-") and len(value) > 1:
                if option is not None and value.endswith(option) and i + 1 < len(args):
                    names.append(args[i + 1])
                    i += 1
                elif value[-1] in _VALUED.get(program, ""):
                    i += 1  # an option value, not a name
                i += 1
                continue
            if program in _NAMES_ARE_OPERANDS:
                names.append(word)
            i += 1
        if program == "getopts":
            names = names[1:2]
        elif program in ("mapfile", "readarray"):
            names = names[-1:]
        if program in ("read", "mapfile", "readarray", "getopts", "printf", "wait"):
            defaults = {"read": "REPLY", "mapfile": "MAPFILE", "readarray": "MAPFILE"}
            for word in names or [Word(defaults.get(program, ""), True)]:
                if word.value:
                    self.target(word, program)
                    self.unsafe.add(word.value.partition("[")[0])
        elif program == "unset":
            for word in names:
                self.target(word, program)

    def declaration(self, flags: str, name: str, value: Word | None) -> None:
        """``declare -n ref=...`` makes every use of ``ref`` evaluate its value as a name."""
        self.assignment(name, value)
        if "n" in flags and value is not None and (not value.literal or "[" in value.value):
            self.problems.append(f"{name} is a reference to a name bash evaluates")
        if "i" in flags and value is not None:
            self.arithmetic_text(value.value)

    def variable_paths(self, text: str) -> list[Word]:
        """``f=.env; cat $f``: the literal paths a variable word (``$f``, ``"${d}/x"``)
        names with each value the line gives the variable (unquoted, split and globbed)."""
        match = VARIABLE_WORD.fullmatch(text)
        if match is None:
            return []
        quoted, name, rest = match.group(1), match.group(2), match.group(3) or ""
        found: list[Word] = []
        for value in self.values.get(name, []):
            for piece in [value] if quoted else value.split():
                word = Word(piece + rest, True) if quoted else _bare(piece + rest)
                if word.literal:
                    found.append(word)
        return found

    def finish(self) -> list[str]:
        reached = set(self.arithmetic)
        todo = list(reached)
        while todo:
            for name in self.refers.get(todo.pop(), ()):
                if name not in reached:
                    reached.add(name)
                    todo.append(name)
        both = sorted(self.unsafe & reached)
        if both:
            return [
                *self.problems,
                f"bash evaluates ${both[0]} as arithmetic, and its value comes from this line "
                "or its input: a subscript in it would run code",
            ]
        return self.problems


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["VARIABLE_WORD", "Evaluated"]
