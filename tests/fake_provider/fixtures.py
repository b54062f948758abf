"""Recorded vendor streams from the shared reference folder, served with correct framing.

Framing by folder (see ``wire/MANIFEST.md``)::

    anthropic/, openai-responses/   event: <json type>  +  data: <line>
    openai-chat/                    data: <line> ...  then  data: [DONE]
    google/                         data: <line>
    *.sse (any folder)              the bytes as recorded
    *.json                          an HTTP body: ``replay_error(path, status)``

The reference folder is ``$EARSHOT_REFERENCE_DIR`` when set (now, or when this module was
imported), else ``shared/reference`` beside the repository (CI clones both side by side).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fake_provider._replies import Frame, RawReply, SSEReply

_REPO = Path(__file__).resolve().parents[2]
_NAMED_EVENTS = frozenset({"anthropic", "openai-responses"})
_DONE_TERMINATED = frozenset({"openai-chat"})
_FOLDERS = frozenset({"anthropic", "openai-chat", "openai-responses", "google"})
# The event that opens each response, where a file holds several responses in a row.
_OPENERS = {"anthropic": "message_start", "openai-responses": "response.created"}


# Read once at import too: the hermetic test fixture clears EARSHOT_* variables per test.
_AT_IMPORT = os.environ.get("EARSHOT_REFERENCE_DIR")


def reference_dir() -> Path:
    configured = os.environ.get("EARSHOT_REFERENCE_DIR") or _AT_IMPORT
    return Path(configured) if configured else _REPO.parent / "shared" / "reference"


def wire_dir() -> Path:
    return reference_dir() / "wire"


def recorded_streams() -> list[Path]:
    """Every recorded stream (``*.chunks.txt`` and ``*.sse``) under ``wire/``, sorted."""
    root = wire_dir()
    found = [*root.glob("*/*.chunks.txt"), *root.glob("*/*.sse")]
    return sorted(path for path in found if path.parent.name in _FOLDERS)


def recorded_bodies() -> list[Path]:
    """Every recorded ``*.json`` body under ``wire/``, sorted."""
    return sorted(p for p in wire_dir().glob("*/*.json") if p.parent.name in _FOLDERS)


def replay(path: Path | str, *, part: int | None = None) -> SSEReply:
    """A recorded stream as a reply. ``path`` may be relative to ``wire/``
    ("anthropic/anthropic-text.chunks.txt"). ``part`` picks the n-th response (from 0) of a
    file that records several in a row (openai-reasoning-encrypted-content holds four)."""
    file = _resolve(path)
    if file.suffix == ".json":
        raise ValueError(f"{file.name} is an HTTP body, not a stream: use replay_error()")
    if file.suffix == ".sse":
        if part is not None:
            raise ValueError("an .sse file is replayed whole")
        return SSEReply([], raw_tail=file.read_bytes())
    folder = file.parent.name
    if folder not in _FOLDERS:
        raise ValueError(f"{file}: unknown wire folder {folder!r}")
    lines = [line for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    if part is not None:
        lines = _parts(lines, folder)[part]
    frames = [Frame(_event(line) if folder in _NAMED_EVENTS else None, line) for line in lines]
    if folder in _DONE_TERMINATED:
        frames.append(Frame(None, "[DONE]"))
    return SSEReply(frames)


def replay_error(
    path: Path | str, status: int, *, headers: dict[str, str] | None = None
) -> RawReply:
    """A recorded ``*.json`` body served as is with ``status``."""
    file = _resolve(path)
    return RawReply(status, file.read_bytes(), dict(headers or {}))


def _resolve(path: Path | str) -> Path:
    file = Path(path)
    if not file.is_absolute() and not file.exists():
        file = wire_dir() / file
    if not file.is_file():
        raise FileNotFoundError(f"no recorded file at {file} (reference dir: {reference_dir()})")
    return file


def _event(line: str) -> str:
    kind = json.loads(line).get("type")
    if not isinstance(kind, str):
        raise ValueError(f"recorded event has no string type: {line[:80]}")
    return kind


def _parts(lines: list[str], folder: str) -> list[list[str]]:
    opener = _OPENERS.get(folder)
    if opener is None:
        return [lines]
    parts: list[list[str]] = []
    for line in lines:
        if _event(line) == opener or not parts:
            parts.append([])
        parts[-1].append(line)
    return parts
