"""``UndoRecorder``: the loop's ``Snapshotter`` (core.loop.ports) over ``Undo`` and a session."""

from __future__ import annotations

from earshot.core.session import Session
from earshot.core.undo import Undo


class UndoRecorder:
    """Takes a snapshot before a mutating batch and records its ref in the transcript, so
    the session that took it is the one that can restore it."""

    def __init__(self, undo: Undo, session: Session) -> None:
        self.undo = undo
        self.session = session

    def prefetch(self) -> None:
        self.undo.prefetch()

    def discard(self) -> None:
        self.undo.discard()

    async def snapshot(self, label: str = "") -> str | None:
        ref = await self.undo.snapshot(label)
        if ref is not None:
            await self.session.append_snapshot_ref(ref)
        return ref


__all__ = ["UndoRecorder"]
