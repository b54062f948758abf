"""``Session``: one open, locked session file and its tree in memory.

Ordering contract: every append goes through the session's write queue (a FIFO lock). The
new entry's parent is the current leaf *read inside the queue*, the line is written, and
the leaf moves to the new entry, with no suspension point in between; so appends from
concurrent tasks form one chain in the order they entered the queue, never siblings of
one parent, and a cancelled append either wrote its whole line or nothing.

A subagent's transcript (``subagent()``) goes through the same queue: a ``SubagentBranch``
appends below its own last entry instead of the leaf, and the leaf does not move (the tree
keeps side entries off the current branch).

Durability: a line is handed to the OS before ``append_*`` returns (it survives a kill of
the process); ``end_turn`` fsyncs (it survives a power cut), off the event loop.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal, Protocol

import anyio
import anyio.to_thread

from earshot.core.session.codec import Problem, now_iso
from earshot.core.session.entries import (
    CompactionEntry,
    EffortEntry,
    Entry,
    Header,
    HookEntry,
    KnownEntry,
    LabelEntry,
    MessageEntry,
    ModelSwitchEntry,
    RewindEntry,
    ScopeEntry,
    SnapshotEntry,
    SubagentEntry,
    TodoItem,
    TodosEntry,
)
from earshot.core.session.transcript import SessionError, Transcript, TranscriptWriter
from earshot.core.session.tree import Branch, Tree, first_line
from earshot.core.tools.state import Todo
from earshot.providers.types import JSONValue, Message, Usage, text_of

Origin = Literal["new", "resumed", "forked"]


def new_entry_id() -> str:
    """12 random hex digits; unique within a session (checked on append)."""
    return os.urandom(6).hex()


def todo_items(todos: list[Todo]) -> list[TodoItem]:
    return [TodoItem(content=t.content, status=t.status, id=t.id) for t in todos]


class Forks(Protocol):
    """Where a session's forks are written (``SessionStore``)."""

    def fork(self, session: Session, *, at_entry: str | None = None) -> Session: ...


class _Recorder:
    """The appends the loop records a turn with (its ``Recorder`` port), written once for
    both places a turn is recorded: the session's current branch (``Session``) and a
    subagent's branch in the same file (``SubagentBranch``). Each says where an entry goes
    (``_record``) and which session holds it (``_owner``)."""

    def _owner(self) -> Session:
        raise NotImplementedError

    async def _record(self, build: Callable[[str, str | None, str], KnownEntry]) -> str:
        raise NotImplementedError

    async def append_message(
        self,
        message: Message,
        *,
        usage: Usage | None = None,
        cost_usd: float | None = None,
        model: str | None = None,
        incomplete: bool = False,
    ) -> str:
        """Append a message (with the usage, cost and model of the call that produced it,
        for an assistant message; ``incomplete`` when it was cut off); returns the entry
        id."""
        return await self._record(
            lambda i, p, t: MessageEntry(
                id=i,
                parent_id=p,
                timestamp=t,
                message=message,
                usage=usage,
                cost_usd=cost_usd,
                model=model,
                incomplete=incomplete,
            )
        )

    async def append_model_switch(self, model: str) -> str:
        return await self._record(
            lambda i, p, t: ModelSwitchEntry(id=i, parent_id=p, timestamp=t, model=model)
        )

    async def append_effort(self, effort: str, sent: str = "") -> str:
        """Record the reasoning effort in force from here on (what resume restores)."""
        return await self._record(
            lambda i, p, t: EffortEntry(id=i, parent_id=p, timestamp=t, effort=effort, sent=sent)
        )

    async def append_todos(self, todos: list[Todo]) -> str:
        items = todo_items(todos)
        return await self._record(
            lambda i, p, t: TodosEntry(id=i, parent_id=p, timestamp=t, todos=items)
        )

    async def append_snapshot_ref(self, snapshot: str) -> str:
        """Record the undo snapshot taken before a tool batch."""
        return await self._record(
            lambda i, p, t: SnapshotEntry(id=i, parent_id=p, timestamp=t, snapshot=snapshot)
        )

    async def append_compaction(
        self, preamble: list[Message], *, first_kept: str | None, tokens_before: int | None = None
    ) -> str:
        """Record a compaction cut: on this branch, messages before entry ``first_kept``
        (all, when None) are replaced by ``preamble`` in ``history()``."""
        owner = self._owner()
        if first_kept is not None and first_kept not in owner._tree:
            raise SessionError(f"no entry {first_kept!r} in session {owner.id}")
        return await self._record(
            lambda i, p, t: CompactionEntry(
                id=i,
                parent_id=p,
                timestamp=t,
                first_kept=first_kept,
                preamble=list(preamble),
                tokens_before=tokens_before,
            )
        )


class Session(_Recorder):
    """An open session. Create one with ``SessionStore.create``/``open``/``fork`` or
    ``open_session``; ``close`` it (or use it as a context manager) to release the lock."""

    def __init__(
        self,
        transcript: Transcript,
        writer: TranscriptWriter,
        *,
        store: Forks | None = None,
        origin: Origin = "new",
    ) -> None:
        self.id: str = transcript.header.id
        self.path: Path = transcript.path
        self.header: Header = transcript.header
        self.origin: Origin = origin
        self.problems: list[Problem] = list(transcript.problems)
        self._tree: Tree = transcript.tree
        self._writer = writer
        self._store = store
        self._queue = anyio.Lock()

    # --- appends (all through the write queue) -------------------------------------------

    async def _append(
        self, build: Callable[[str, str | None, str], KnownEntry], *, under: str | None = None
    ) -> str:
        """Append below the leaf, or below ``under`` (an entry of a subagent's branch)."""
        async with self._queue:
            entry_id = new_entry_id()
            while entry_id in self._tree:
                entry_id = new_entry_id()
            entry = build(entry_id, under or self._tree.leaf, now_iso())
            self._writer.append(entry)
            self._tree.add(entry)
        return entry.id

    def _owner(self) -> Session:
        return self

    async def _record(self, build: Callable[[str, str | None, str], KnownEntry]) -> str:
        return await self._append(build)

    async def append_hook(
        self,
        event: str,
        command: str,
        exit_code: int | None,
        duration_ms: float,
        *,
        matcher: str = "",
        source: str = "",
        decision: str = "",
        output: str = "",
    ) -> str:
        """Record one hook run (never part of the history the model sees)."""
        return await self._append(
            lambda i, p, t: HookEntry(
                id=i,
                parent_id=p,
                timestamp=t,
                event=event,
                command=command,
                exit_code=exit_code,
                duration_ms=round(duration_ms, 1),
                matcher=matcher,
                source=source,
                decision=decision,
                output=output,
            )
        )

    async def append_scope(self, scope: JSONValue) -> str:
        return await self._append(
            lambda i, p, t: ScopeEntry(id=i, parent_id=p, timestamp=t, scope=scope)
        )

    async def append_label(self, target: str, label: str | None) -> str:
        """Label an entry (``None`` clears its label)."""
        target = self._resolve(target)
        return await self._append(
            lambda i, p, t: LabelEntry(id=i, parent_id=p, timestamp=t, target=target, label=label)
        )

    async def rewind_to(self, entry_id: str | None) -> str:
        """Continue the conversation from ``entry_id`` (an id or unique prefix; ``None`` for
        the empty start): appends a branch head under it. Nothing is deleted; the branch
        left behind stays in ``branches()``. Returns the new head's id."""
        target = None if entry_id is None else self._resolve(entry_id)
        return await self._append(
            lambda i, p, t: RewindEntry(id=i, parent_id=target, timestamp=t, from_id=p)
        )

    async def subagent(self, call_id: str, agent: str, description: str) -> SubagentBranch:
        """Start the transcript of a subagent that the ``task`` call ``call_id`` runs from
        the current branch head."""
        return await SubagentBranch.start(self, call_id, agent, description, at=self.leaf)

    async def end_turn(self) -> None:
        """Make everything appended so far durable (fsync), off the event loop."""
        async with self._queue:
            await anyio.to_thread.run_sync(self._writer.sync)

    # --- reading ---------------------------------------------------------------------------

    @property
    def tree(self) -> Tree:
        return self._tree

    @property
    def leaf(self) -> str | None:
        """The id of the current branch head (None before the first entry)."""
        return self._tree.leaf

    def history(self, at: str | None = None) -> list[Message]:
        """The current branch (or the branch ending at ``at``) as the model saw it: see
        ``tree`` for compaction cuts and interrupted tool calls."""
        return self._tree.history(at)

    def model(self) -> str | None:
        """The model in effect on the current branch, else the one the session began with."""
        return self._tree.model() or self.header.model

    def todos(self) -> list[Todo]:
        return [Todo(content=t.content, status=t.status, id=t.id) for t in self._tree.todos()]

    def branches(self) -> list[Branch]:
        return self._tree.branches()

    def entries(self) -> list[Entry]:
        return self._tree.entries()

    def cost_usd(self) -> float:
        """Total cost of every call recorded in the file, on every branch."""
        return sum(
            e.cost_usd for e in self._tree.entries() if isinstance(e, MessageEntry) and e.cost_usd
        )

    def title(self) -> str:
        for entry in self._tree.entries():
            if isinstance(entry, MessageEntry) and entry.message.role == "user":
                text = text_of(entry.message)
                if text.strip():
                    return first_line(text)
        return ""

    def warnings(self) -> list[str]:
        return [p.describe(self.path) for p in self.problems]

    def _resolve(self, entry_id: str) -> str:
        try:
            return self._tree.resolve(entry_id)
        except KeyError as exc:
            raise SessionError(f"{exc.args[0]} ({self.id})") from None

    # --- tree operations ---------------------------------------------------------------------

    def fork_at(self, entry_id: str | None = None) -> Session:
        """A new session (a new file, linked to this one) holding the branch ending at
        ``entry_id`` (default: the current head). This session stays open."""
        if self._store is None:
            raise SessionError(f"session {self.id} was not opened from a store; cannot fork")
        at = None if entry_id is None else self._resolve(entry_id)
        return self._store.fork(self, at_entry=at)

    def as_transcript(self) -> Transcript:
        return Transcript(path=self.path, header=self.header, tree=self._tree)

    # --- lifetime ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._writer.closed

    def close(self) -> None:
        """Release the lock and close the file (lines already appended are in the OS)."""
        self._writer.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SubagentBranch(_Recorder):
    """A subagent's transcript inside its parent's session file: what the child's loop
    records to (the ``Recorder`` calls), each entry below the one before, starting at a
    ``SubagentEntry``. Its own children start from its last entry."""

    def __init__(self, session: Session, root: str) -> None:
        self.session = session
        self.root = root
        self.leaf = root

    @classmethod
    async def start(
        cls, session: Session, call_id: str, agent: str, description: str, *, at: str | None
    ) -> SubagentBranch:
        root = await session._append(
            lambda i, p, t: SubagentEntry(
                id=i,
                parent_id=None,
                timestamp=t,
                call_id=call_id,
                agent=agent,
                description=description,
                at=at,
            ),
            under=None,
        )
        return cls(session, root)

    def _owner(self) -> Session:
        return self.session

    async def _record(self, build: Callable[[str, str | None, str], KnownEntry]) -> str:
        self.leaf = await self.session._append(build, under=self.leaf)
        return self.leaf

    async def subagent(self, call_id: str, agent: str, description: str) -> SubagentBranch:
        """Start the transcript of this child's own child."""
        return await SubagentBranch.start(self.session, call_id, agent, description, at=self.leaf)

    async def end_turn(self) -> None:
        await self.session.end_turn()


__all__ = ["Forks", "Origin", "Session", "SubagentBranch", "new_entry_id", "todo_items"]
