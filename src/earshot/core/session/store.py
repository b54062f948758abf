"""Where sessions live, what they are called, and how one is chosen.

::

    $XDG_DATA_HOME/earshot/                 (default ~/.local/share/earshot)
      sessions/<cwd-key>/<session-id>.jsonl
      undo/<cwd-key>/                       (see core/undo.py)

- ``cwd_key`` is a hash of the resolved working directory, so every session of a project
  shares a directory and no path separator reaches a file name.
- Session ids are UUIDv7: a millisecond timestamp, then sub-millisecond clock bits kept
  strictly increasing within a process, then random bits. Their string order is their
  creation order, so ``--continue`` (``latest``) takes the greatest id: deterministic even
  when two sessions start in the same millisecond.
- A prefix of an id is enough wherever an id is asked for; an ambiguous prefix is an error
  listing the candidates.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import msgspec

from earshot import __version__
from earshot.core.command_prompts import command_title
from earshot.core.session.codec import FORMAT_VERSION, now_iso
from earshot.core.session.entries import Entry, Glance, Header, ImportOrigin, MessageEntry
from earshot.core.session.live import Origin, Session
from earshot.core.session.transcript import (
    SessionError,
    Transcript,
    TranscriptWriter,
    format_mark_needed,
    read_transcript,
    write_transcript,
)
from earshot.core.session.tree import first_line
from earshot.providers.types import JSONValue, text_of


class SessionNotFoundError(SessionError):
    """No session matches the id or prefix."""


def data_dir(env: dict[str, str] | None = None) -> Path:
    """earshot's data directory: ``$XDG_DATA_HOME/earshot`` (default
    ``~/.local/share/earshot``; ``%LOCALAPPDATA%\\earshot`` on Windows)."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_DATA_HOME", "").strip()
    if base:
        return Path(base) / "earshot"
    if os.name == "nt" and environ.get("LOCALAPPDATA"):
        return Path(environ["LOCALAPPDATA"]) / "earshot"
    return Path.home() / ".local" / "share" / "earshot"


def cwd_key(cwd: Path) -> str:
    """16 hex digits naming a working directory (its resolved, case-normalised path)."""
    text = os.path.normcase(str(cwd.resolve()))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_id_lock = threading.Lock()
_last_stamp = 0


def new_session_id() -> str:
    """A UUIDv7 whose 60 time bits (milliseconds, then 12 bits of finer clock) strictly
    increase within this process."""
    global _last_stamp
    ns = time.time_ns()
    stamp = ((ns // 1_000_000) << 12) | ((ns % 1_000_000) * 4096 // 1_000_000)
    with _id_lock:
        stamp = max(stamp, _last_stamp + 1)
        _last_stamp = stamp
    rand = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = ((stamp >> 12) << 80) | (0x7 << 76) | ((stamp & 0xFFF) << 64) | (0b10 << 62) | rand
    h = f"{value:032x}"  # the canonical 8-4-4-4-12 form, without importing uuid (11 ms)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


SHORT_ID = 8
"""The fewest characters of an id shown: UUIDv7's first 8 are a timestamp, so sessions
started within a minute share them and ``short_ids`` adds characters until they differ."""


def short_ids(ids: list[str], minimum: int = SHORT_ID) -> dict[str, str]:
    """The one rule for a session id shown to a person (status line, ``/sessions``,
    ``/resume``, ``earshot sessions list``): the shortest prefix of at least ``minimum``
    characters that no other id in ``ids`` starts with."""
    ordered = sorted(set(ids))
    out: dict[str, str] = {}
    for i, session_id in enumerate(ordered):
        size = minimum
        for other in (ordered[i - 1] if i else "", ordered[i + 1] if i + 1 < len(ordered) else ""):
            common = 0
            for a, b in zip(session_id, other, strict=False):
                if a != b:
                    break
                common += 1
            size = max(size, common + 1)
        out[session_id] = session_id[: min(size, len(session_id))]
    return out


def _looks_like_id(name: str) -> bool:
    return len(name) == 36 and name.count("-") == 4


class SessionInfo(msgspec.Struct, frozen=True):
    """What ``sessions list`` shows of a session (read at a glance, all branches)."""

    id: str
    path: Path
    cwd: str
    created: str
    updated: str
    title: str
    turns: int
    cost_usd: float
    model: str | None
    entries: int
    parent_session: str | None
    problems: int

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "id": self.id,
            "path": str(self.path),
            "cwd": self.cwd,
            "created": self.created,
            "updated": self.updated,
            "title": self.title,
            "turns": self.turns,
            "cost_usd": self.cost_usd,
            "model": self.model,
            "entries": self.entries,
            "parent_session": self.parent_session,
        }


@functools.cache
def _decoders() -> tuple[
    msgspec.json.Decoder[Glance], msgspec.json.Decoder[Header], msgspec.json.Decoder[MessageEntry]
]:
    """Built when sessions are first listed: a decoder resolves its types' annotations
    (about 1 ms for these), which opening a session never needs."""
    return (
        msgspec.json.Decoder(Glance),
        msgspec.json.Decoder(Header),
        msgspec.json.Decoder(MessageEntry),
    )


def summarize(path: Path) -> SessionInfo | None:
    """A session's listing line, decoding only the fields it needs; None when the file
    cannot be read or has no header."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    glance_of, header_of, entry_of = _decoders()
    header: Header | None = None
    entries = turns = problems = 0
    side: set[str] = set()  # a subagent's entries: their cost counts, their prompts are no turns
    cost = 0.0
    title = ""
    model: str | None = None
    updated = ""
    lines = data.split(b"\n")
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            glance = glance_of.decode(raw)
            if glance.type == "session" and header is None:
                header = header_of.decode(raw)
                model = header.model
                continue
        except msgspec.DecodeError:
            problems += index != len(lines) - 1  # a torn last line is not a problem here
            continue
        if glance.type in ("session", "format"):
            continue
        entries += 1
        updated = glance.timestamp or updated
        if glance.type == "subagent" or (glance.parent_id is not None and glance.parent_id in side):
            side.add(glance.id)
        elif glance.type == "model_switch" or glance.model:
            model = glance.model or model
        if glance.type != "message" or glance.message is None:
            continue
        cost += glance.cost_usd or 0.0
        if glance.message.role == "user" and glance.id not in side:
            turns += 1
            if not title:
                with contextlib.suppress(msgspec.DecodeError):
                    said = text_of(entry_of.decode(raw).message)
                    title = command_title(said) or first_line(said)
    if header is None:
        return None
    return SessionInfo(
        id=header.id,
        path=path,
        cwd=header.cwd,
        created=header.timestamp,
        updated=max(updated, header.timestamp),
        title=title,
        turns=turns,
        cost_usd=cost,
        model=model,
        entries=entries,
        parent_session=header.parent_session,
        problems=problems,
    )


class SessionStore:
    """The sessions of one working directory."""

    def __init__(self, cwd: Path, data_dir: Path | None = None) -> None:
        self.cwd = cwd.resolve()
        self.data_dir = (data_dir if data_dir is not None else _default_data_dir()).absolute()
        self.root = self.data_dir / "sessions"
        self.dir = self.root / cwd_key(self.cwd)

    # --- naming --------------------------------------------------------------------------

    def path_for(self, session_id: str) -> Path:
        return self.dir / f"{session_id}.jsonl"

    def ids(self) -> list[str]:
        """Ids of this directory's sessions, oldest first."""
        try:
            names = [p.name for p in self.dir.iterdir()]
        except FileNotFoundError:
            return []
        return sorted(n[:-6] for n in names if n.endswith(".jsonl") and _looks_like_id(n[:-6]))

    def resolve(self, id_or_prefix: str, *, everywhere: bool = False) -> Path:
        """The file of the one session whose id starts with ``id_or_prefix``: in this
        directory, or (``everywhere``) in any directory when none matches here."""
        prefix = id_or_prefix.strip().lower()
        if not prefix:
            raise SessionNotFoundError("an empty session id matches nothing")
        found = [self.path_for(i) for i in self.ids() if i.startswith(prefix)]
        if not found and everywhere:
            found = sorted(
                p for p in self.root.glob(f"*/{prefix}*.jsonl") if _looks_like_id(p.stem)
            )
        if len(found) == 1:
            return found[0]
        if not found:
            where = "any directory" if everywhere else str(self.cwd)
            raise SessionNotFoundError(
                f"no session {id_or_prefix!r} in {where}; `earshot sessions list"
                f"{' --all' if everywhere else ''}` shows them"
            )
        names = ", ".join(p.stem for p in found[:5])
        raise SessionNotFoundError(
            f"session id {id_or_prefix!r} is ambiguous ({len(found)} match: {names}); "
            "give more of it"
        )

    def short_ids(self) -> dict[str, str]:
        """Each of this directory's session ids by its shortest unique prefix."""
        return short_ids(self.ids())

    def latest_id(self) -> str | None:
        ids = self.ids()
        return ids[-1] if ids else None

    # --- opening -------------------------------------------------------------------------

    def create(self, *, model: str) -> Session:
        """A new session file with its header written (fsynced with the first turn), locked
        for writing."""
        header = self._header(model=model)
        writer = TranscriptWriter(self.path_for(header.id), header=header)
        transcript = read_transcript(writer.path)
        return Session(transcript, writer, store=self, origin="new")

    def load(self, id_or_prefix: str, *, everywhere: bool = False) -> Transcript:
        """A session read without taking its lock (for listing, showing, forking)."""
        return read_transcript(self.resolve(id_or_prefix, everywhere=everywhere))

    def open(self, id_or_prefix: str) -> Session:
        """Resume a session: its file locked for writing, its tree in memory."""
        path = self.resolve(id_or_prefix)
        writer = TranscriptWriter(path)
        try:
            transcript = read_transcript(path)  # under the lock: nothing is mid-write
            mark = format_mark_needed(transcript)
            if mark is not None:
                writer.append(mark)
        except BaseException:
            writer.close()
            raise
        return Session(transcript, writer, store=self, origin="resumed")

    def latest(self) -> Session | None:
        """The newest session of this directory, opened (``--continue``); None if none."""
        latest = self.latest_id()
        return None if latest is None else self.open(latest)

    def fork(self, session: Session | Transcript, *, at_entry: str | None = None) -> Session:
        """A new session holding the branch of ``session`` that ends at ``at_entry``
        (default: its current head) and the transcripts of the subagents started from it,
        entry ids kept, its header linking to the source."""
        tree = session.tree
        if at_entry is not None and at_entry not in tree:
            at_entry = tree.resolve(at_entry)
        at = at_entry if at_entry is not None else tree.leaf
        path = tree.with_subagents(at) if at is not None else []
        source = session.header
        header = self._header(
            model=tree.model(at) or source.model,
            parent_session=source.id,
            parent_entry=at,
        )
        return self._write_new(header, path, origin="forked")

    def create_from(
        self, entries: list[Entry], *, model: str | None, imported_from: ImportOrigin
    ) -> Session:
        """A new session holding ``entries`` (in order, parents first): for imports."""
        header = self._header(model=model, imported_from=imported_from)
        return self._write_new(header, entries, origin="new")

    def _write_new(self, header: Header, entries: list[Entry], *, origin: Origin) -> Session:
        path = self.path_for(header.id)
        write_transcript(path, header, entries)
        writer = TranscriptWriter(path)
        try:
            transcript = read_transcript(path)
        except BaseException:
            writer.close()
            raise
        return Session(transcript, writer, store=self, origin=origin)

    def _header(
        self,
        *,
        model: str | None,
        parent_session: str | None = None,
        parent_entry: str | None = None,
        imported_from: ImportOrigin | None = None,
    ) -> Header:
        return Header(
            version=FORMAT_VERSION,
            id=new_session_id(),
            timestamp=now_iso(),
            cwd=str(self.cwd),
            earshot_version=__version__,
            model=model,
            parent_session=parent_session,
            parent_entry=parent_entry,
            imported_from=imported_from,
        )

    # --- listing -------------------------------------------------------------------------

    def list_all(self) -> list[SessionInfo]:
        """Every directory's sessions, the most recently updated first."""
        paths = [p for p in self.root.glob("*/*.jsonl") if _looks_like_id(p.stem)]
        return _recent_first(summarize(p) for p in paths)

    def list(self) -> list[SessionInfo]:
        """This directory's sessions, the most recently updated first (what every listing
        shows: ``sessions list``, ``/sessions``, ``/resume``'s numbers)."""
        return _recent_first(summarize(self.path_for(i)) for i in self.ids())


def _recent_first(infos: Iterable[SessionInfo | None]) -> list[SessionInfo]:
    """By last update, newest first; sessions updated in the same instant newest-created
    first."""
    found = sorted((info for info in infos if info is not None), key=lambda i: i.id, reverse=True)
    return sorted(found, key=lambda info: info.updated, reverse=True)


_default_data_dir = data_dir


def open_session(
    cwd: Path,
    *,
    model: str,
    resume: str | None = None,
    continue_: bool = False,
    fork: bool = False,
    data_dir: Path | None = None,
) -> Session:
    """The session a run works in, from the CLI's flags.

    - neither ``resume`` nor ``continue_``: a new session with ``model``;
    - ``resume=ID`` (an id or unique prefix): that session of ``cwd``, locked;
    - ``continue_``: the newest session of ``cwd``, or a new one when there is none;
    - ``fork`` with either: the chosen session is read without its lock and its current
      branch copied into a new session that links to it (``Session.origin == "forked"``).

    ``model`` is used only for a new session; a resumed or forked one keeps its own
    (``Session.model()``). Raises ``SessionError`` for a bad combination, an unknown or
    ambiguous id, or a session another process is writing (fork from it instead).
    """
    if resume is not None and continue_:
        raise SessionError("use --resume or --continue, not both")
    store = SessionStore(cwd, data_dir)
    if resume is None and not continue_:
        if fork:
            raise SessionError("--fork-session needs --resume ID or --continue")
        return store.create(model=model)
    chosen = resume if resume is not None else store.latest_id()
    if chosen is None:
        return store.create(model=model)
    if fork:
        return store.fork(store.load(chosen))
    return store.open(chosen)


__all__ = [
    "SessionInfo",
    "SessionNotFoundError",
    "SessionStore",
    "cwd_key",
    "data_dir",
    "new_session_id",
    "open_session",
    "short_ids",
    "summarize",
]
