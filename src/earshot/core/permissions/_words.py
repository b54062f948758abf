"""Shell words as bash passes them: tree-sitter nodes to ``Word`` values, and back to
canonical text.

::

    _word(node)     the value of a word (quotes removed, ``$'...'`` decoded), or its source
                    text marked not literal when bash computes it
    _render(word)   a word re-quoted only where needed, as commands and rules are shown
"""

from __future__ import annotations

import re

from tree_sitter import Node

from earshot.core.permissions._wrappers import Word

XARGS_MORE = "…"
"""Rendered after a command ``xargs`` runs: it appends arguments read from its input."""

_NEEDS_QUOTES = re.compile(r"[\s;&|<>()$`\"'\\" + XARGS_MORE + "]")
_GLOB_CHARS = frozenset("*?[{")


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def _word_literal(node: Node) -> bool:
    value = node.child_by_field_name("value")
    return value is None or _word(value).literal


def _concat(left: Word, right: Word) -> Word:
    if left.literal and right.literal:
        return Word(left.value + right.value, True, left.glob or right.glob, left.tilde)
    return Word(left.value + right.value, False)


def _dq_escape_heredoc(text: str) -> str:
    """``text`` as a double-quoted word: quotes outside ``$(...)`` and backticks escaped."""
    chars = ['"']
    depth = 0
    tick = False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            chars.append(text[i : i + 2])
            i += 2
            continue
        if char == "`":
            tick = not tick
        elif char == "$" and text[i + 1 : i + 2] == "(":
            depth += 1
            chars.append("$(")
            i += 2
            continue
        elif char == "(" and depth:
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == '"' and not depth and not tick:
            chars.append('\\"')
            i += 1
            continue
        chars.append(char)
        i += 1
    chars.append('"')
    return "".join(chars)


def _render(word: Word) -> str:
    value = word.value
    if not word.literal or word.marker:
        return value
    if value == "":
        return "''"
    if _NEEDS_QUOTES.search(value):
        return "'" + value.replace("'", "'\"'\"'") + "'"
    return value


def _word(node: Node) -> Word:
    kind = node.type
    text = _text(node)
    if kind == "word":
        return _bare(text)
    if kind == "number":
        return Word(text, True)
    if kind == "raw_string":
        return Word(text[1:-1], True)
    if kind == "string":
        return _double_quoted(node, text)
    if kind == "translated_string":
        inner = node.named_children
        return _double_quoted(inner[0], text) if inner else Word(text, False)
    if kind == "ansi_c_string":
        decoded = _ansi_c(text[2:-1])
        return Word(decoded, True) if decoded is not None else Word(text, False)
    if kind == "concatenation":
        parts = [_word(child) for child in node.children]
        if all(p.literal for p in parts):
            return Word(
                "".join(p.value for p in parts),
                True,
                glob=any(p.glob for p in parts),
                tilde=parts[0].tilde if parts else False,
            )
        return Word(text, False)
    return Word(text, False)  # expansions, substitutions, anything computed


def _bare(text: str) -> Word:
    chars: list[str] = []
    glob = False
    escaped = False
    for char in text:
        if escaped:
            if char != "\n":
                chars.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            glob = glob or char in _GLOB_CHARS
            chars.append(char)
    value = "".join(chars)
    tilde = text.startswith("~")
    if tilde and not (value == "~" or value.startswith("~/")):
        return Word(text, False)  # ~user: another user's home
    return Word(value, True, glob=glob, tilde=tilde)


def _double_quoted(node: Node, text: str) -> Word:
    parts: list[str] = []
    for child in node.children:
        if child.type == '"':
            continue
        if child.type != "string_content":
            return Word(text, False)
        parts.append(re.sub(r"\\([$`\"\\\n])", _dq_escape, _text(child)))
    return Word("".join(parts), True)


def _dq_escape(match: re.Match[str]) -> str:
    char = match.group(1)
    return "" if char == "\n" else char


_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI_NUMERIC = re.compile(r"x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}")


def _ansi_c(body: str) -> str | None:
    """The value of ``$'...'``, or None for an escape we do not decode (``\\cX``)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[nxt])
            i += 2
            continue
        match = _ANSI_NUMERIC.match(body, i + 1)
        if match is None:
            return None
        digits = match.group(0)
        code = int(digits, 8) if digits[0] in "01234567" else int(digits[1:], 16)
        if code == 0 or code > 0x10FFFF:
            return None
        out.append(chr(code))
        i = match.end()
    return "".join(out)


_CONTINUATION = re.compile(rb"(\\\r?\n)+")


def _joined(left: Node, right: Node, source: bytes) -> bool:
    """Whether only line continuations separate two nodes of ``source``: bash reads them
    as one word."""
    if left.end_byte >= right.start_byte:
        return False
    gap = source[left.end_byte : right.start_byte]
    return _CONTINUATION.fullmatch(gap) is not None


def _redirect_words(node: Node, source: bytes) -> tuple[Word | None, list[Word]]:
    """A redirection's target (joined across line continuations) and the words after it,
    which are arguments of the command."""
    dest = node.child_by_field_name("destination")
    if dest is None:
        return None, []
    target = _word(dest)
    extra: list[Word] = []
    last = dest
    for child in node.children:
        if child.start_byte <= dest.start_byte or not child.is_named:
            continue
        word = _word(child)
        if not extra and _joined(last, child, source):
            target = _concat(target, word)
        else:
            extra.append(word)
        last = child
    return target, extra


__all__ = ["XARGS_MORE"]
