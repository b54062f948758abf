"""A bash command line as the commands it would run and the files it would write.

::

    parse_line(source) -> ParsedLine
        commands   every simple command the line can run, wherever it sits: after ``&&``,
                   ``||``, ``;``, ``|``, ``|&``, ``&`` or a newline; in ``( )``, ``{ }``,
                   ``$( )``, backticks, ``<( )``, ``>( )``, ``if/for/while/until/case``
                   bodies, function bodies, arithmetic and parameter expansions, unquoted
                   here-document bodies, ``trap`` handlers; and the inner commands of the
                   wrappers in ``_unwrap.py`` (``bash -c``, ``eval``, ``env``, ``sudo``,
                   ``xargs``, ``find -exec`` ...)
        writes     output redirections (``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``<>``,
                   ``>&FILE``), the files of ``tee``, ``time -o``, ``find -fprint``, and the
                   arguments programs write (``_programs.py``: ``cp``, ``sed -i`` ...)
        reads      ``< FILE`` and the literal file arguments of every command
        problems   what the parser could not read; a line with problems is never allowed
                   (also text bash evaluates as code, ``_code.py``)
        changes_dir  whether a ``cd``/``pushd``/``popd`` may move relative writes elsewhere
        read_only  every command is a read-only program and nothing is written

The parser is tree-sitter's bash grammar; each line is parsed once, and the inner strings of
``bash -c`` and ``eval`` are parsed the same way (to a fixed depth). A word whose value bash
computes at run time (``$VAR``, ``$(...)``, a glob in the command name) is kept as written
and marked, so a rule can never allow a command whose name it cannot see.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from earshot.core.permissions import _programs, _unwrap
from earshot.core.permissions._code import Evaluated
from earshot.core.permissions._words import (
    XARGS_MORE,
    _concat,
    _dq_escape_heredoc,
    _joined,
    _redirect_words,
    _render,
    _text,
    _word,
    _word_literal,
)
from earshot.core.permissions._wrappers import SAFE_ASSIGNMENTS, Word

MAX_DEPTH = 8
"""How deep ``bash -c '... eval ...'`` nesting is followed before the rest is unreadable."""


# Directories whose programs are the system's own: ``/usr/bin/git`` is matched as ``git``.
# A name qualified with any other directory (``./git``) is matched as written for allow
# rules, and as both forms for deny and ask rules.
SYSTEM_BIN_DIRS = frozenset(
    {
        "/bin",
        "/sbin",
        "/usr/bin",
        "/usr/sbin",
        "/usr/local/bin",
        "/usr/local/sbin",
        "/opt/homebrew/bin",
    }
)

NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_OUTPUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_DIR_CHANGERS = frozenset({"cd", "pushd", "popd"})


@dataclass(frozen=True)
class ShellCommand:
    """One command the line would run.

    ``text`` is its canonical form (words unquoted, re-quoted only where needed, one space
    apart), which allow rules match; ``also`` holds other spellings of it (without prefix
    assignments, with the program's directory or without it) that deny and ask rules match
    too. ``opaque`` says why it cannot be checked at all ("" when it can).
    """

    text: str
    also: tuple[str, ...] = ()
    opaque: str = ""
    read_only: bool = False
    inline: str = ""


@dataclass(frozen=True)
class ShellWrite:
    """A file the line writes (or, in ``ParsedLine.reads``, may read). ``target`` is the word
    as bash sees it; when ``literal`` is false bash computes it at run time. ``tilde`` means
    a leading ``~`` is the home dir; ``glob`` that bash expands it to the paths it matches."""

    target: str
    literal: bool
    via: str
    tilde: bool = False
    glob: bool = False


@dataclass(frozen=True)
class ParsedLine:
    """``reads`` are the literal file arguments and ``<`` inputs of every command;
    ``read_only`` says every command is read-only and nothing is written or unreadable;
    ``dotglob`` that a glob may match names starting with a dot; ``directories`` the
    literal targets of its ``cd`` and ``pushd`` commands; ``below`` the directories a
    recursive search (``grep -r``, ``rg``) reads everything under."""

    commands: tuple[ShellCommand, ...]
    writes: tuple[ShellWrite, ...]
    problems: tuple[str, ...]
    changes_dir: bool
    reads: tuple[ShellWrite, ...] = ()
    read_only: bool = False
    dotglob: bool = False
    directories: tuple[str, ...] = ()
    below: tuple[ShellWrite, ...] = ()


@dataclass
class _Out:
    commands: list[ShellCommand] = field(default_factory=list)
    writes: list[ShellWrite] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    changes_dir: bool = False
    reads: list[ShellWrite] = field(default_factory=list)
    evaluated: Evaluated = field(default_factory=Evaluated)
    dotglob: bool = False
    sources: list[bytes] = field(default_factory=list)
    directories: list[str] = field(default_factory=list)
    below: list[ShellWrite] = field(default_factory=list)


_PARSER = Parser(Language(tree_sitter_bash.language()))


@functools.lru_cache(maxsize=256)  # on the text alone: a model runs the same lines again
def parse_line(source: str) -> ParsedLine:
    """Every command and write of ``source``; never raises for any input."""
    out = _Out()
    try:
        _parse_into(source, 0, out)
    except RecursionError:
        out.problems.append("the command nests too deeply to check")
    evaluated = out.evaluated
    out.problems.extend(evaluated.finish())
    variables = [r for r in out.reads if not r.literal]
    out.reads.extend(_file(w, r.via) for r in variables for w in evaluated.variable_paths(r.target))
    relative_reads = out.changes_dir and any(not r.target.startswith(("/", "~")) for r in out.reads)
    read_only = (
        bool(out.commands)
        and not out.writes
        and not out.problems
        and not relative_reads
        and all(c.read_only and not c.opaque for c in out.commands)
    )
    return ParsedLine(
        tuple(out.commands),
        tuple(out.writes),
        tuple(out.problems),
        out.changes_dir,
        tuple(out.reads),
        read_only,
        out.dotglob,
        tuple(out.directories),
        tuple(out.below),
    )


def _parse_into(source: str, depth: int, out: _Out) -> None:
    if depth > MAX_DEPTH:
        out.problems.append(f"nested shells deeper than {MAX_DEPTH} levels")
        return
    try:
        data = source.encode("utf-8")
    except UnicodeEncodeError:
        out.problems.append("the command is not valid text")
        return
    if b"dotglob" in data or b"GLOBIGNORE" in data:
        out.dotglob = True
    if b"BASH_ALIASES" in data or b"BASH_CMDS" in data:
        out.problems.append("the line changes what a command name runs (BASH_ALIASES, BASH_CMDS)")
    tree = _PARSER.parse(data)
    out.sources.append(data)
    try:
        _walk(tree.root_node, depth, out)
    finally:
        out.sources.pop()


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _walk(node: Node, depth: int, out: _Out) -> None:
    kind = node.type
    if node.is_missing:
        out.problems.append(f"incomplete command: a missing {kind!r}")
        return
    if node.is_error:
        out.problems.append(f"bash cannot parse {_short(_text(node))!r}")
    if kind == "command":
        _command(node, depth, out)
        return
    if kind == "redirected_statement":
        _redirected(node, depth, out)
        return
    if kind == "declaration_command" or kind == "unset_command":
        _declaration(node, depth, out)
        return
    if kind == "heredoc_body":
        if not _quoted_heredoc(node):  # a quoted here-document is data: nothing in it runs
            _heredoc(node, depth, out)
        return
    if out.evaluated.note(node):
        _bare_assignment(node, out)
    if kind == "file_redirect":
        _redirect(node, out)
    for child in node.children:
        _walk(child, depth, out)


def _bare_assignment(node: Node, out: _Out) -> None:
    """``PATH=/tmp/x`` on its own changes what later commands run: an upper-case name that
    is not harmless is checked like a command (``Bash(PATH=*)``)."""
    name_node = node.child_by_field_name("name")
    name = _text(name_node) if name_node is not None else ""
    if name in SAFE_ASSIGNMENTS or any(c.islower() for c in name):
        return
    out.commands.append(ShellCommand(_render(Word(_text(node), _word_literal(node)))))


def _redirected(node: Node, depth: int, out: _Out) -> None:
    """A command with redirections: words after a redirection's target are arguments of
    the command (``echo x > out rm -rf y`` runs ``echo x rm -rf y``)."""
    body = node.child_by_field_name("body")
    extra: list[Word] = []
    for child in node.children:
        if child.type == "file_redirect":
            extra.extend(_redirect_words(child, _source(out))[1])
    for child in node.children:
        if child is not None and child == body and body.type == "command":
            _command(body, depth, out, extra)
        else:
            _walk(child, depth, out)


def _heredoc(body: Node, depth: int, out: _Out) -> None:
    """An unquoted here-document expands like a double-quoted string: ``$(...)``, backticks
    and ``${...}`` in it run. Its text is parsed again as one, so every form is found."""
    text = _text(body)
    start = body.prev_sibling
    while start is not None and start.is_named:
        start = start.prev_sibling
    if start is not None and start.type == "<<-":
        text = re.sub(r"(?m)^\t+", "", text)
    quoted = _dq_escape_heredoc(text)
    tree = _PARSER.parse(b": " + quoted.encode("utf-8", "replace"))
    command = tree.root_node.named_children[0] if tree.root_node.named_children else None
    if tree.root_node.has_error or command is None:
        out.problems.append("earshot cannot read the here-document's expansions")
        return
    out.sources.append(b": " + quoted.encode("utf-8", "replace"))
    try:
        for child in command.children_by_field_name("argument"):
            _walk(child, depth, out)
    finally:
        out.sources.pop()


def _quoted_heredoc(body: Node) -> bool:
    start = body.prev_sibling
    while start is not None and start.type != "heredoc_start":
        start = start.prev_sibling
    return start is not None and any(q in _text(start) for q in ("'", '"', "\\"))


def _source(out: _Out) -> bytes:
    return out.sources[-1] if out.sources else b""


def _redirect(node: Node, out: _Out) -> None:
    op = ""
    for child in node.children:
        if not child.is_named:
            op = child.type
    word, _ = _redirect_words(node, _source(out))
    if word is None:
        return
    dest = node.child_by_field_name("destination")
    if op in ("<", "<>"):
        out.reads.append(_file(_programs.home_path(word) or word, op))
    if op not in _OUTPUT_OPS:
        return
    if op == ">&" and dest is not None and dest.type == "number":
        return  # duplicates a descriptor
    if word.literal and (word.value == "-" or word.value in NOT_FILES):
        return
    out.writes.append(_file(word, op))


def _file(word: Word, via: str) -> ShellWrite:
    return ShellWrite(word.value, word.literal, via, word.tilde, word.glob)


def _declaration(node: Node, depth: int, out: _Out) -> None:
    words = [Word(_text(node.children[0]), True)] if node.children else []
    program = words[0].value if words else ""
    flags = ""
    for child in node.children[1:]:
        _walk(child, depth, out)
        if child.type == "variable_assignment":
            words.append(Word(_text(child), _word_literal(child)))
            name = child.child_by_field_name("name")
            value = child.child_by_field_name("value")
            if name is not None:
                out.evaluated.declaration(
                    flags, _text(name).partition("[")[0], _word(value) if value else None
                )
        elif child.is_named:
            word = _word(child)
            words.append(word)
            if word.literal and word.value.startswith("-"):
                flags += word.value[1:]
            elif program == "unset" or "n" in flags:
                out.evaluated.target(word, program)
    if words:
        _emit(words, [], "", out)


def canonical_pattern(pattern: str) -> str:
    """A Bash rule's pattern in the canonical form commands are rendered in (quotes
    resolved, one space between words, ``/usr/bin/git`` as ``git``); ``ValueError`` when it
    is not one simple command."""
    root = _PARSER.parse(pattern.encode("utf-8")).root_node
    statements = [child for child in root.named_children if child.type != "comment"]
    if root.has_error or len(statements) != 1 or statements[0].type != "command":
        raise ValueError(
            "a Bash pattern must be one simple command, without ;, &&, |, redirections "
            "or unbalanced quotes (write one rule per command)"
        )
    scratch = _Out()
    try:
        argv, assignments = _command_words(statements[0], 0, scratch)
    except RecursionError:
        raise ValueError("the pattern nests too deeply") from None
    if not argv:
        raise ValueError("a Bash pattern must name a command")
    _emit(argv, assignments, "", scratch)
    return scratch.commands[0].text


def _command(node: Node, depth: int, out: _Out, extra: list[Word] | None = None) -> None:
    mark = len(out.commands)  # the command is listed before those nested in its words
    argv, assignments = _command_words(node, depth, out)
    argv.extend(extra or [])
    if argv:
        nested = out.commands[mark:]
        del out.commands[mark:]
        _expand(argv, assignments, depth, out)
        out.commands.extend(nested)
    elif assignments:
        out.commands[mark:mark] = [ShellCommand(" ".join(assignments))]


def _command_words(node: Node, depth: int, out: _Out) -> tuple[list[Word], list[str]]:
    assignments: list[str] = []
    argv: list[Word] = []
    last: Node | None = None
    for index, child in enumerate(node.children):
        # nested substitutions run whatever position they sit in
        _walk(child, depth, out)
        field_name = node.field_name_for_child(index)
        if child.type == "variable_assignment":
            name_node = child.child_by_field_name("name")
            name = _text(name_node) if name_node is not None else ""
            if name not in SAFE_ASSIGNMENTS:
                assignments.append(_render(Word(_text(child), _word_literal(child))))
        elif field_name in ("name", "argument"):
            inner = child.named_children
            if field_name == "name" and len(inner) != 1:
                word = Word(_text(child), False)
            else:
                word = _word(inner[0] if field_name == "name" else child)
            if argv and last is not None and _joined(last, child, _source(out)):
                argv[-1] = _concat(argv[-1], word)
            else:
                argv.append(word)
            last = child
        elif child.type == "file_redirect":
            argv.extend(_redirect_words(child, _source(out))[1])
    return argv, assignments


def _expand(argv: list[Word], assignments: list[str], depth: int, out: _Out) -> None:
    """Emit ``argv`` as a command, or the command(s) a wrapper in it would run."""
    name = argv[0]
    if not name.literal or name.glob:
        why = "its program name is computed when it runs"
        _emit(argv, assignments, why, out)
        return
    directory, _, program = name.value.rpartition("/")
    # ./bash is whatever that file is: what it runs is checked, and so is the file itself
    foreign = "/" in name.value and (directory or "/") not in SYSTEM_BIN_DIRS
    if program in _DIR_CHANGERS:
        out.changes_dir = True
        operands = [w for w in argv[1:] if not (w.literal and w.value.startswith("-"))]
        if not operands or (operands[0].literal and not operands[0].glob):
            out.directories.append(operands[0].value if operands else "~")
    out.dotglob = out.dotglob or program == "shopt"
    out.evaluated.command(program, argv[1:])
    inner = _unwrap.unwrap(program, argv[1:])
    if inner is None:  # not a wrapper
        _emit(argv, assignments, "", out, _programs.inspect(program, argv[1:]))
        return
    out.writes.extend(_file(w, program) for w in inner.writes)
    if inner.problem:
        _emit(argv, assignments, inner.problem, out)
        return
    if inner.keep or assignments or foreign:
        _emit(argv, assignments, "", out, _programs.inspect(program, argv[1:]))
    if inner.script is not None:
        if inner.script.literal:
            _parse_into(inner.script.value, depth + 1, out)
        else:
            _emit(argv, assignments, f"{program} runs a script computed when it runs", out)
    for command in inner.commands:
        if command:
            _expand_inner(command, inner.appends, depth, out)


def _expand_inner(argv: list[Word], appends: bool, depth: int, out: _Out) -> None:
    if appends:
        argv = [*argv, Word(XARGS_MORE, True, marker=True)]
    _expand(argv, [], depth + 1, out)


def _emit(
    argv: list[Word],
    assignments: list[str],
    opaque: str,
    out: _Out,
    effects: _programs.Effects | None = None,
) -> None:
    name = argv[0]
    found = effects or _programs.Effects()
    opaque = opaque or found.problem
    texts = _spellings(argv, assignments)
    if found.normal is not None:
        texts.extend(t for t in _spellings(found.normal, []) if t not in texts)
    program = name.value.rpartition("/")[2]
    writes = [w for w in found.writes if not (w.literal and w.value in NOT_FILES)]
    out.writes.extend(_file(w, program) for w in writes)
    out.reads.extend(_file(w, program) for w in dict.fromkeys(found.reads))
    out.below.extend(_file(w, program) for w in found.below)
    directory = name.value.rpartition("/")[0] or "/"
    system = name.literal and ("/" not in name.value or directory in SYSTEM_BIN_DIRS)
    read_only = found.read_only and system and not assignments and not opaque
    out.commands.append(ShellCommand(texts[0], tuple(texts[1:]), opaque, read_only, found.inline))


def _spellings(argv: list[Word], assignments: list[str]) -> list[str]:
    name = argv[0]
    rest = [_render(w) for w in argv[1:]]
    written = _render(name)
    forms = [written]
    if name.literal and "/" in name.value:
        directory, _, base = name.value.rpartition("/")
        base_form = _render(Word(base, True))
        if (directory or "/") in SYSTEM_BIN_DIRS:
            forms.insert(0, base_form)
        elif base:
            forms.append(base_form)
    texts = [" ".join([*assignments, forms[0], *rest])]
    for form in forms:
        plain = " ".join([form, *rest])
        if plain not in texts:
            texts.append(plain)
    return texts


__all__ = [
    "MAX_DEPTH",
    "XARGS_MORE",
    "ParsedLine",
    "ShellCommand",
    "ShellWrite",
    "canonical_pattern",
    "parse_line",
]
