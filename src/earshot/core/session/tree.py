"""The entry tree of one session, and what is read off a branch of it.

Entries link to their parent by ``parent_id``; the current branch ends at the entry
appended last (``leaf``). Nothing is ever removed: a rewind or a compaction is a new entry.

Invariants:

- A parent always precedes its child in file order. An entry whose parent is missing (its
  line was corrupt) is attached to the entry before it in the file, the parent it had in
  every file a single writer produces; this is reported, never fatal. So the tree has no
  cycles and every entry reaches a root.
- ``history()`` is the message list the model was sent on a branch: the last compaction cut
  on the branch replaces the messages before its ``first_kept`` entry with its preamble;
  every tool call without a result gets an ``interrupted`` error result right after its
  assistant message (after the results it does have); a tool result whose call is not in
  the assistant message just before it is dropped (no provider accepts one).
"""

from __future__ import annotations

from dataclasses import dataclass

from earshot.core.session.entries import (
    CompactionEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelSwitchEntry,
    TodoItem,
    TodosEntry,
)
from earshot.providers.types import (
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    text_of,
)

INTERRUPTED = (
    "Interrupted: earshot stopped before this tool call finished, so it has no result. "
    "Its effects, if any, are unknown; check the current state before relying on it or "
    "running it again."
)


@dataclass(frozen=True)
class Branch:
    """One leaf of the tree and the path to it."""

    head: str
    fork_point: str | None
    """The deepest entry this branch shares with the current one (None: none shared)."""
    messages: int
    preview: str
    """The last user prompt on the branch, first line, cut to 80 characters."""
    timestamp: str
    current: bool


def interrupted_result(call: ToolCallPart) -> ToolResultPart:
    return ToolResultPart(
        call_id=call.id, name=call.name, content=[TextPart(text=INTERRUPTED)], is_error=True
    )


def _calls(message: Message) -> list[ToolCallPart]:
    return [p for p in message.parts if isinstance(p, ToolCallPart)]


def pair_tool_results(messages: list[Message]) -> list[Message]:
    """``messages`` with every tool call answered exactly once (see module docstring)."""
    out: list[Message] = []
    i, n = 0, len(messages)
    while i < n:
        message = messages[i]
        i += 1
        if message.role == "tool":
            continue  # results with no assistant message before them
        out.append(message)
        calls = _calls(message) if message.role == "assistant" else []
        if not calls:
            continue
        pending = {call.id: call for call in calls}
        while i < n and messages[i].role == "tool":
            result = messages[i]
            i += 1
            parts = [
                p
                for p in result.parts
                if isinstance(p, ToolResultPart) and pending.pop(p.call_id, None) is not None
            ]
            if len(parts) == len(result.parts):
                out.append(result)
            elif parts:
                out.append(Message(role="tool", parts=list(parts)))
        if pending:
            out.append(
                Message(role="tool", parts=[interrupted_result(c) for c in pending.values()])
            )
    return out


def first_line(text: str, width: int = 80) -> str:
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= width else line[: width - 1] + "…"


class Tree:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._parent: dict[str, str | None] = {}
        self._children: dict[str | None, list[str]] = {}
        self._order: list[str] = []
        self.leaf: str | None = None

    # --- building ------------------------------------------------------------------------

    def add(self, entry: Entry) -> str | None:
        """Add ``entry`` as the new leaf. Returns a description of a repair made (a missing
        parent, a duplicate id), else None."""
        if entry.id in self._entries:
            return f"entry id {entry.id} appears twice; the later one was skipped"
        parent = entry.parent_id
        note = None
        if parent is not None and parent not in self._entries:
            note = (
                f"entry {entry.id} names parent {parent}, which is not in the file; "
                "it was attached to the entry before it"
            )
            parent = self._order[-1] if self._order else None
        self._entries[entry.id] = entry
        self._parent[entry.id] = parent
        self._children.setdefault(parent, []).append(entry.id)
        self._order.append(entry.id)
        self.leaf = entry.id
        return note

    # --- lookup --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def get(self, entry_id: str) -> Entry | None:
        return self._entries.get(entry_id)

    def parent_of(self, entry_id: str) -> str | None:
        return self._parent.get(entry_id)

    def children(self, entry_id: str | None) -> list[Entry]:
        return [self._entries[c] for c in self._children.get(entry_id, [])]

    def entries(self) -> list[Entry]:
        """All entries in file order."""
        return [self._entries[i] for i in self._order]

    def resolve(self, id_or_prefix: str) -> str:
        """The id of the one entry whose id starts with ``id_or_prefix``."""
        if id_or_prefix in self._entries:
            return id_or_prefix
        found = [i for i in self._order if i.startswith(id_or_prefix)] if id_or_prefix else []
        if len(found) == 1:
            return found[0]
        if not found:
            raise KeyError(f"no entry {id_or_prefix!r} in this session")
        raise KeyError(f"entry prefix {id_or_prefix!r} is ambiguous: {', '.join(found[:5])}")

    def path(self, to: str | None = None) -> list[Entry]:
        """The entries from the root down to ``to`` (default: the current leaf)."""
        node = self.leaf if to is None else to
        if node is not None and node not in self._entries:
            raise KeyError(f"no entry {node!r} in this session")
        out: list[Entry] = []
        while node is not None:
            out.append(self._entries[node])
            node = self._parent[node]
        out.reverse()
        return out

    # --- reading a branch ----------------------------------------------------------------

    def history(self, to: str | None = None) -> list[Message]:
        path = self.path(to)
        start = 0
        messages: list[Message] = []
        for index in range(len(path) - 1, -1, -1):
            cut = path[index]
            if isinstance(cut, CompactionEntry):
                messages.extend(cut.preamble)
                keep = False
                for entry in path[:index]:
                    keep = keep or (cut.first_kept is not None and entry.id == cut.first_kept)
                    if keep and isinstance(entry, MessageEntry):
                        messages.append(entry.message)
                start = index + 1
                break
        messages.extend(e.message for e in path[start:] if isinstance(e, MessageEntry))
        return pair_tool_results(messages)

    def model(self, to: str | None = None) -> str | None:
        """The model in effect at the end of a branch: the last switch or the model of the
        last message that names one."""
        for entry in reversed(self.path(to)):
            if isinstance(entry, ModelSwitchEntry):
                return entry.model
            if isinstance(entry, MessageEntry) and entry.model:
                return entry.model
        return None

    def todos(self, to: str | None = None) -> list[TodoItem]:
        for entry in reversed(self.path(to)):
            if isinstance(entry, TodosEntry):
                return list(entry.todos)
        return []

    def labels(self) -> dict[str, str]:
        """Entry id -> label, as the label entries (in file order) leave them."""
        labels: dict[str, str] = {}
        for entry_id in self._order:
            entry = self._entries[entry_id]
            if isinstance(entry, LabelEntry):
                if entry.label is None:
                    labels.pop(entry.target, None)
                else:
                    labels[entry.target] = entry.label
        return labels

    def branches(self) -> list[Branch]:
        """Every leaf of the tree, in file order, the current one marked."""
        on_current = {e.id for e in self.path()} if self.leaf is not None else set()
        out: list[Branch] = []
        for entry_id in self._order:
            if self._children.get(entry_id):
                continue
            path = self.path(entry_id)
            fork_point = next((e.id for e in reversed(path) if e.id in on_current), None)
            messages = [e.message for e in path if isinstance(e, MessageEntry)]
            prompts = [m for m in messages if m.role == "user" and text_of(m).strip()]
            out.append(
                Branch(
                    head=entry_id,
                    fork_point=fork_point,
                    messages=len(messages),
                    preview=first_line(text_of(prompts[-1])) if prompts else "",
                    timestamp=self._entries[entry_id].timestamp,
                    current=entry_id == self.leaf,
                )
            )
        return out


__all__ = [
    "INTERRUPTED",
    "Branch",
    "Tree",
    "first_line",
    "interrupted_result",
    "pair_tool_results",
]
