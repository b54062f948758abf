"""What the importers share: reading foreign JSONL leniently and building an entry chain
with the foreign ids kept where they can be.

``Builder`` invariants: every entry it emits has a parent emitted before it (or none);
a foreign id that was dropped, merged or split is aliased to the entry that now stands for
it, so the foreign tree keeps its shape; a parent that never appeared attaches to the
entry emitted just before (as the session reader does for a lost line).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import msgspec

from earshot.core.session.entries import Entry, KnownEntry, MessageEntry
from earshot.core.session.live import new_entry_id
from earshot.providers.types import Message, Usage

T = TypeVar("T")


@dataclass
class Imported:
    """A foreign session converted: entries in order (parents first) and what was lost."""

    format: str
    entries: list[Entry]
    cwd: str | None = None
    model: str | None = None
    source_id: str | None = None
    created: str | None = None
    dropped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def dropped_lines(self) -> list[str]:
        return [f"{count} {what}" for what, count in sorted(self.dropped.items())]


def read_lines(path: Path, kind: type[T], dropped: Counter[str]) -> list[T]:
    """Each line of ``path`` decoded as ``kind``; undecodable lines are counted, not
    fatal (a torn last line is normal in a live file)."""
    decoder = msgspec.json.Decoder(kind)
    out: list[T] = []
    for raw in path.read_bytes().split(b"\n"):
        if not raw.strip():
            continue
        try:
            out.append(decoder.decode(raw))
        except msgspec.DecodeError:
            dropped["unreadable lines"] += 1
    return out


def iso(value: str | float | None) -> str:
    """A foreign timestamp (ISO string or Unix milliseconds) as ISO 8601 UTC."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        moment = datetime.fromtimestamp(value / 1000, UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return ""


def qualified(provider: str | None, model: str | None) -> str | None:
    if not model:
        return None
    if "/" in model or not provider:
        return model
    return f"{provider}/{model}"


class Builder:
    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._ids: set[str] = set()
        self._alias: dict[str, str | None] = {}

    @property
    def last(self) -> str | None:
        return self.entries[-1].id if self.entries else None

    def parent(self, foreign: str | None) -> str | None:
        if foreign is None:
            return None
        if foreign not in self._alias:
            return self.last
        found = self._alias[foreign]
        seen = {foreign}
        # An alias may name an entry that was itself dropped (and aliased) later on.
        while found is not None and found not in self._ids and found in self._alias:
            if found in seen:
                return self.last
            seen.add(found)
            found = self._alias[found]
        return found

    def resolve(self, foreign: str | None) -> str | None:
        """The entry standing for a foreign id, None when there is none."""
        return self._alias.get(foreign) if foreign else None

    def alias(self, foreign: str | None, to: str | None) -> None:
        if foreign:
            self._alias[foreign] = to

    def drop(self, foreign: str | None, foreign_parent: str | None) -> None:
        """Forget a foreign entry; its children attach to its parent."""
        self.alias(foreign, self.parent(foreign_parent))

    def add(
        self, foreign: str | None, parent: str | None, make: Callable[[str, str | None], KnownEntry]
    ) -> str:
        """Emit an entry with ``parent`` (already resolved), keeping ``foreign`` as its id
        when it is free."""
        entry_id = foreign if foreign and foreign not in self._ids else new_entry_id()
        while entry_id in self._ids:
            entry_id = new_entry_id()
        self._ids.add(entry_id)
        self.entries.append(make(entry_id, parent))
        self.alias(foreign, entry_id)
        return entry_id

    def message(
        self,
        foreign: str | None,
        parent: str | None,
        message: Message,
        timestamp: str,
        *,
        usage: Usage | None = None,
        cost_usd: float | None = None,
        model: str | None = None,
    ) -> str:
        return self.add(
            foreign,
            parent,
            lambda i, p: MessageEntry(
                id=i,
                parent_id=p,
                timestamp=timestamp,
                message=message,
                usage=usage,
                cost_usd=cost_usd,
                model=model,
            ),
        )


__all__ = ["Builder", "Imported", "iso", "qualified", "read_lines"]
