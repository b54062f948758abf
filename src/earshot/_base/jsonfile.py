"""Reading and writing the user's small JSON files (settings, auth) without losing anything.

- A malformed file is a ``JSONFileError`` naming the file, line and column; the file is left
  exactly as it was.
- Writes go to a temporary file in the same directory, are flushed and fsynced, then
  ``os.replace``d over the target: a crash leaves the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Any

import msgspec

from earshot._base.errors import UserError
from earshot._base.json import JSONObject

_BYTE = re.compile(r"\(byte (\d+)\)")
_decoder = msgspec.json.Decoder(dict[str, Any])


class JSONFileError(UserError):
    """A file that exists but cannot be used. ``str()`` is a complete message for a person."""

    def __init__(self, path: Path, message: str, line: int | None = None, col: int | None = None):
        where = f"{path}:{line}:{col}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line
        self.col = col


def line_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of a byte offset."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[start:offset].decode("utf-8", "replace")) + 1
    return line, col


def parse_json_object(data: bytes, path: Path) -> JSONObject:
    """``data`` as a JSON object, or a ``JSONFileError`` with the position of the fault."""
    if not data.strip():
        return {}
    try:
        value: JSONObject = _decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise JSONFileError(path, f"expected a JSON object at the top level ({exc})") from exc
    except msgspec.DecodeError as exc:
        text = str(exc)
        m = _BYTE.search(text)
        if m is None and "truncated" not in text:
            raise JSONFileError(path, f"invalid JSON: {text}") from exc
        line, col = line_col(data, int(m.group(1)) if m else len(data.rstrip()))
        reason = _BYTE.sub("", text).replace("JSON is malformed: ", "").strip()
        raise JSONFileError(path, f"invalid JSON: {reason}", line, col) from exc
    return value


def load_json_object(path: Path) -> JSONObject | None:
    """The file's object, ``None`` when the file does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JSONFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    return parse_json_object(data, path)


def write_json_atomic(path: Path, value: JSONObject, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``value`` (pretty-printed) atomically, with permission ``mode``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n"
    import tempfile  # with shutil and random: loaded by the first write

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # not on Windows, where the mode is not meaningful
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = [
    "JSONFileError",
    "line_col",
    "load_json_object",
    "parse_json_object",
    "write_json_atomic",
]
