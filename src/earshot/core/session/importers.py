"""``earshot sessions import PATH``: Claude Code, pi and earshot session files become new
earshot sessions.

The format is recognised from the file's first lines. The new session goes to the
directory the source session was recorded in when that directory exists here, else to the
current one; it gets a new id (so ``--continue`` picks it next) and keeps the source's
entry ids, tree, timestamps and origin (``Header.imported_from``). What could not be
converted is counted, never silently lost: ``ImportReport.dropped``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from earshot.core.session._import_claude import convert_claude_code
from earshot.core.session._import_common import Imported
from earshot.core.session._import_pi import convert_pi
from earshot.core.session.entries import ImportOrigin, MessageEntry
from earshot.core.session.store import SessionStore
from earshot.core.session.transcript import SessionError, read_transcript


class _Probe(msgspec.Struct):
    type: str = ""
    earshot_version: str | None = None
    uuid: str | None = None
    session_id: str | None = msgspec.field(default=None, name="sessionId")
    parent_uuid: str | None = msgspec.field(default=None, name="parentUuid")


@dataclass(frozen=True)
class ImportReport:
    session_id: str
    path: Path
    format: str
    cwd: Path
    entries: int
    messages: int
    dropped: list[str]
    notes: list[str]


def detect_format(path: Path) -> str:
    """``earshot``, ``pi`` or ``claude-code``; ``SessionError`` for anything else."""
    decoder = msgspec.json.Decoder(_Probe)
    try:
        with path.open("rb") as handle:
            head = [handle.readline() for _ in range(50)]
    except OSError as exc:
        raise SessionError(f"cannot read {path}: {exc.strerror or exc}") from None
    for raw in head:
        try:
            probe = decoder.decode(raw)
        except msgspec.DecodeError:
            continue
        if probe.type == "session":
            return "earshot" if probe.earshot_version is not None else "pi"
        if probe.uuid is not None or probe.session_id is not None:
            return "claude-code"
    raise SessionError(
        f"{path} is not a session file earshot can import (Claude Code, pi or earshot JSONL)"
    )


def _convert_earshot(path: Path) -> Imported:
    transcript = read_transcript(path)
    header = transcript.header
    out = Imported(
        format="earshot",
        entries=transcript.tree.entries(),
        cwd=header.cwd or None,
        model=transcript.tree.model() or header.model,
        source_id=header.id,
        created=header.timestamp or None,
    )
    for problem in transcript.problems:
        out.dropped[f"damaged lines ({problem.kind})"] += 1
    return out


def convert(path: Path) -> Imported:
    match detect_format(path):
        case "earshot":
            return _convert_earshot(path)
        case "pi":
            return convert_pi(path)
        case _:
            return convert_claude_code(path)


def import_session(path: Path, *, cwd: Path, data_dir: Path | None = None) -> ImportReport:
    """Convert ``path`` and write it as a new session (see the module docstring)."""
    imported = convert(path)
    if not imported.entries:
        raise SessionError(f"{path} holds no messages earshot can import")
    source_cwd = Path(imported.cwd) if imported.cwd else None
    target = source_cwd if source_cwd is not None and source_cwd.is_dir() else cwd
    store = SessionStore(target, data_dir)
    origin = ImportOrigin(
        format=imported.format,
        path=str(path.resolve()),
        session_id=imported.source_id,
        created=imported.created,
    )
    with store.create_from(imported.entries, model=imported.model, imported_from=origin) as session:
        messages = sum(isinstance(e, MessageEntry) for e in imported.entries)
        return ImportReport(
            session_id=session.id,
            path=session.path,
            format=imported.format,
            cwd=store.cwd,
            entries=len(imported.entries),
            messages=messages,
            dropped=imported.dropped_lines(),
            notes=imported.notes,
        )


__all__ = ["ImportReport", "convert", "detect_format", "import_session"]
