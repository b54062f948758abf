"""Front matter: the ``---`` block at the top of a markdown file, in the small subset of
YAML that skills and commands use (``key: value``, quoted strings, ``[a, b]`` lists and
``- item`` lists). A mistake raises ``FrontMatterError`` naming the file and line."""

from __future__ import annotations

from pathlib import Path

import msgspec

from earshot._base.errors import UserError

Value = str | list[str]


class FrontMatterError(UserError):
    """A front matter block that cannot be read; the message names file, line and field."""


class Document(msgspec.Struct, frozen=True):
    fields: dict[str, Value]
    body: str


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _value(text: str) -> Value:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(item) for item in inner.split(",")] if inner else []
    return _scalar(text)


def parse(text: str, path: Path) -> Document:
    """The fields and the body of ``text`` (read from ``path``, named in errors)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return Document({}, text)
    fields: dict[str, Value] = {}
    key: str | None = None
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            return Document(fields, "\n".join(lines[number:]).strip("\n") + "\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        stripped = line.strip()
        if line[:1].isspace() and key is not None:
            current = fields[key]
            if stripped.startswith("- "):
                items = current if isinstance(current, list) else []
                fields[key] = [*items, _scalar(stripped[2:])]
            elif isinstance(current, str):
                fields[key] = (current + " " + stripped).strip()
            continue
        name, colon, rest = line.partition(":")
        if not colon or not name.strip() or name[:1].isspace():
            raise FrontMatterError(f"{path}:{number}: expected `key: value`, got {line!r}")
        key = name.strip()
        rest = rest.strip()
        fields[key] = "" if rest in ("", "|", ">", "|-", ">-") else _value(rest)
    raise FrontMatterError(f"{path}:1: the front matter opened with --- is never closed")


def text_field(doc: Document, name: str, path: Path) -> str:
    """A string field (empty when absent); a list where a string belongs is an error."""
    value = doc.fields.get(name, "")
    if isinstance(value, list):
        raise FrontMatterError(f"{path}: front matter field {name!r} must be a string")
    return value


def list_field(doc: Document, name: str) -> list[str]:
    """A list field; a string is split on commas and spaces outside parentheses
    (``allowed-tools: Read, Bash(git add:*)`` is two items)."""
    value = doc.fields.get(name, [])
    if isinstance(value, list):
        return [v for v in value if v]
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for char in value:
        depth += (char == "(") - (char == ")")
        if depth <= 0 and (char == "," or char.isspace()):
            items.append("".join(current))
            current = []
            depth = 0
        else:
            current.append(char)
    items.append("".join(current))
    return [item for item in items if item]


__all__ = ["Document", "FrontMatterError", "Value", "list_field", "parse", "text_field"]
