"""JSONL encoding and decoding of session files, with the format's version migrations.

Plain synchronous code with no ``Struct`` definitions, so mypyc can compile it (the
Structs live in ``entries``).

Reading contract (``parse``):

- Never raises for damage. A last line without its newline that does not decode is a
  ``torn`` problem (a crash mid-write, or a writer still writing); an undecodable line
  elsewhere is ``corrupt``; a line of a type this build does not know is kept as an
  ``UnknownEntry`` placeholder (``unknown``); a known type with bad fields is kept as a
  placeholder too (``invalid``). Each problem carries its 1-based line number.
- Raises ``FormatTooNewError`` only for a file (or a ``format`` line) newer than
  ``FORMAT_VERSION``: guessing at a newer format could silently misread it.

Versions: the header's ``version`` applies to it and the lines after it until a
``format`` line changes it. Lines older than ``FORMAT_VERSION`` are decoded to plain objects, passed
through ``MIGRATIONS[v]`` for each ``v`` up to the current version (a migration may drop a
line by returning ``None``), then converted. Adding version N+1 means: add
``MIGRATIONS[N]``, bump ``FORMAT_VERSION``, and add the frozen ``vN`` sample file the
tests read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, cast

import msgspec

from earshot.core.session.entries import (
    FORMAT_VERSION,
    Entry,
    FormatMark,
    Header,
    Line,
    Parsed,
    Problem,
    ProblemKind,
    UnknownEntry,
)

RawLine = dict[str, Any]
Migration = Callable[[RawLine], "RawLine | None"]
MIGRATIONS: dict[int, Migration] = {}
"""``MIGRATIONS[v]`` turns one line of format ``v`` into format ``v + 1`` (or drops it)."""

KNOWN_TYPES = frozenset(
    {
        "message",
        "model_switch",
        "effort",
        "compaction",
        "todos",
        "scope",
        "label",
        "snapshot",
        "rewind",
        "hook",
    }
)

_encoder = msgspec.json.Encoder()
_placeholder_decoder = msgspec.json.Decoder(UnknownEntry)
_raw_decoder = msgspec.json.Decoder(dict[str, Any])
_line_decoders: list[msgspec.json.Decoder[Line]] = []


def _line_decoder() -> msgspec.json.Decoder[Line]:
    """The decoder of ``Line``, built when a session is first read: building it resolves the
    annotations of every entry and message type (about 2.5 ms), which a new session that
    only writes never needs, least of all before its first model request."""
    if not _line_decoders:
        _line_decoders.append(msgspec.json.Decoder(Line))
    return _line_decoders[0]


class FormatTooNewError(Exception):
    """The file was written by a newer earshot in a format this build cannot read."""


def encode_line(line: Line | UnknownEntry) -> bytes:
    """One line of JSON, newline included."""
    return _encoder.encode(line) + b"\n"


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds (``2025-06-01T12:00:00.123Z``)."""
    ns = time.time_ns()
    seconds, rest = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{rest // 1_000_000:03d}Z"


def _too_new(version: int, current: int) -> FormatTooNewError:
    return FormatTooNewError(
        f"written by a newer earshot (session format {version}; this earshot reads up to "
        f"{current}): upgrade earshot to open it"
    )


def _migrate(
    data: bytes, version: int, current: int, migrations: Mapping[int, Migration]
) -> Line | None:
    raw: RawLine | None = _raw_decoder.decode(data)
    if raw is not None and raw.get("type") == "format":
        mark: Line = msgspec.convert(raw, FormatMark)
        return mark
    for v in range(version, current):
        if raw is None:
            return None
        step = migrations.get(v)
        if step is None:
            raise KeyError(f"no migration from session format {v} to {v + 1}")
        raw = step(raw)
    if raw is None:
        return None
    line: Line = msgspec.convert(raw, Line)
    return line


def _placeholder(data: bytes, number: int, error: str) -> tuple[Entry | None, Problem]:
    """A tree node for a line that is JSON with a tree position but not a usable entry."""
    try:
        stub = _placeholder_decoder.decode(data)
    except msgspec.DecodeError:
        return None, Problem(number, "corrupt", f"unreadable entry skipped ({error})")
    if stub.type in KNOWN_TYPES:
        detail = f"{stub.type} entry {stub.id} is invalid and was skipped ({error})"
        return stub, Problem(number, "invalid", detail)
    detail = f"entry type {stub.type!r} is unknown to this earshot; its content was skipped"
    return stub, Problem(number, "unknown", detail)


def _header_version(data: bytes, current: int) -> int:
    """The format version a first line declares (``current`` when it declares none)."""
    try:
        raw = _raw_decoder.decode(data)
    except msgspec.DecodeError:
        return current
    version = raw.get("version")
    if raw.get("type") != "session" or not isinstance(version, int) or version < 1:
        return current
    if version > current:
        raise _too_new(version, current)
    return version


def _parse_intact(data: bytes, current: int) -> Parsed | None:
    """The common case in one pass: every line decodes, a current-format header first,
    no format line. None when any of that is not so (``parse`` then goes line by line)."""
    try:
        decoded = _line_decoder().decode_lines(data)  # no split: one call over the buffer
    except msgspec.DecodeError:
        return None
    if not decoded or len(decoded) != data.count(b"\n"):
        return None  # a value spread over lines: let the line-by-line pass place it
    header = decoded[0]
    if not isinstance(header, Header) or header.version != current:
        return None
    body = decoded[1:]
    kinds = set(map(type, body))  # one pass in C; Line's members are final Structs
    if Header in kinds or FormatMark in kinds:
        return None
    entries = cast("list[Entry]", body)  # checked just above: entries only
    return Parsed(header=header, entries=entries, line_numbers=list(range(2, len(body) + 2)))


def parse(
    data: bytes,
    *,
    current: int = FORMAT_VERSION,
    migrations: Mapping[int, Migration] = MIGRATIONS,
) -> Parsed:
    """Every readable line of a session file; see the module docstring for the contract."""
    terminated = data.endswith(b"\n") or not data
    if terminated:  # a blank line makes the line count differ from the values: no fast path
        fast = _parse_intact(data, current)
        if fast is not None:
            return fast
    lines = data.split(b"\n")
    last = len(lines) - 1
    if terminated:
        lines.pop()  # the empty string after the final newline
    result = Parsed(header=None, terminated=terminated)
    version = current
    entries = result.entries
    problems = result.problems
    numbers = result.line_numbers
    first = True
    decode = _line_decoder().decode
    for index, raw in enumerate(lines):
        if not raw or raw.isspace():
            continue
        number = index + 1
        if first:
            first = False
            version = _header_version(raw, current)
        try:
            if version == current:
                line: Line | None = decode(raw)
            else:
                line = _migrate(raw, version, current, migrations)
        except msgspec.ValidationError as exc:
            if index == last and not terminated:
                problems.append(Problem(number, "torn", "incomplete last line skipped"))
                continue
            stub, problem = _placeholder(raw, number, str(exc))
            problems.append(problem)
            if stub is not None:
                entries.append(stub)
                numbers.append(number)
            continue
        except msgspec.DecodeError as exc:
            if index == last and not terminated:
                problems.append(Problem(number, "torn", "incomplete last line skipped"))
            else:
                problems.append(Problem(number, "corrupt", f"unreadable line skipped ({exc})"))
            continue
        if line is None:
            continue
        if isinstance(line, Header):
            if result.header is not None or entries:
                problems.append(Problem(number, "corrupt", "a second header line was skipped"))
                continue
            result.header = line
            continue
        if isinstance(line, FormatMark):
            if line.version > current:
                raise _too_new(line.version, current)
            version = line.version
            continue
        entries.append(line)
        numbers.append(number)
    if result.header is None:
        problems.insert(0, Problem(1, "header", "the session header is missing or unreadable"))
    result.version = version
    return result


__all__ = [
    "FORMAT_VERSION",
    "KNOWN_TYPES",
    "MIGRATIONS",
    "FormatTooNewError",
    "Migration",
    "Parsed",
    "Problem",
    "ProblemKind",
    "RawLine",
    "encode_line",
    "now_iso",
    "parse",
]
