"""The entry tree of one session, and what is read off a branch of it.

Entries link to their parent by ``parent_id``; the current branch ends at the entry
appended last (``leaf``). Nothing is ever removed: a rewind or a compaction is a new entry.

A subagent's transcript is a side tree: a ``SubagentEntry`` root (``parent_id`` null) and
the child's entries below it. Side entries never become the leaf and are no branch of
``branches()``, so the history the parent resumes with never contains them; a child's own
history is ``history(<its last entry>)``, rooted at its ``SubagentEntry``. ``subagents()``
finds the children started from a branch (the ``at`` of their root is on it).

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
    EffortEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelSwitchEntry,
    SubagentEntry,
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


def pair_tool_results(messages: list[Message]) -> list[Message]:
    """``messages`` with every tool call answered exactly once (see module docstring)."""
    out: list[Message] = []
    # Calls of the last assistant message still waiting for a result; None when the
    # message before is not an assistant message or a result (so results are orphans).
    pending: dict[str, ToolCallPart] | None = None
    for message in messages:
        role = message.role
        if role == "tool":
            if not pending:
                continue
            parts = [
                p
                for p in message.parts
                if isinstance(p, ToolResultPart) and pending.pop(p.call_id, None) is not None
            ]
            if len(parts) == len(message.parts):
                out.append(message)
            elif parts:
                out.append(Message(role="tool", parts=list(parts)))
            continue
        if pending:
            out.append(
                Message(role="tool", parts=[interrupted_result(c) for c in pending.values()])
            )
        pending = None
        out.append(message)
        if role == "assistant":
            calls = {p.id: p for p in message.parts if isinstance(p, ToolCallPart)}
            pending = calls or None
    if pending:
        out.append(Message(role="tool", parts=[interrupted_result(c) for c in pending.values()]))
    return out


def first_line(text: str, width: int = 80) -> str:
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= width else line[: width - 1] + "…"


class Tree:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._parent: dict[str, str | None] = {}
        self._children: dict[str | None, list[str]] | None = None  # built when first asked
        self._side: dict[str, str] = {}  # side entry -> the id of its SubagentEntry root
        self._leaf_path: list[Entry] | None = None
        """The path from the root to ``leaf``, kept while entries extend it (the common
        case), so reading the current branch does not walk a long session every time."""
        self.leaf: str | None = None

    # --- building ------------------------------------------------------------------------

    @classmethod
    def of(cls, entries: list[Entry]) -> tuple[Tree, list[tuple[int, str]]]:
        """A tree of ``entries`` added in order, and the repairs made (the index of the
        entry and what ``add`` said)."""
        tree = cls()
        notes: list[tuple[int, str]] = []
        add = tree.add
        for index, entry in enumerate(entries):
            note = add(entry)
            if note is not None:
                notes.append((index, note))
        return tree, notes

    def add(self, entry: Entry) -> str | None:
        """Add ``entry`` as the new leaf. Returns a description of a repair made (a missing
        parent, a duplicate id), else None."""
        entry_id, parent = entry.id, entry.parent_id
        entries = self._entries
        if entry_id in entries:
            return f"entry id {entry_id} appears twice; the later one was skipped"
        note = None
        if parent is not None and parent not in entries:
            note = (
                f"entry {entry_id} names parent {parent}, which is not in the file; "
                "it was attached to the entry before it"
            )
            parent = self.leaf
        entries[entry_id] = entry
        self._parent[entry_id] = parent
        if self._children is not None:
            self._children.setdefault(parent, []).append(entry_id)
        if isinstance(entry, SubagentEntry):
            self._side[entry_id] = entry_id
        elif parent is not None and parent in self._side:
            self._side[entry_id] = self._side[parent]
        else:
            if self._leaf_path is not None and parent == self.leaf:
                self._leaf_path.append(entry)
            elif parent is None:
                self._leaf_path = [entry]
            else:
                self._leaf_path = None  # a new branch: walked again when first asked
            self.leaf = entry_id
        return note

    def is_side(self, entry_id: str) -> bool:
        """Whether ``entry_id`` belongs to a subagent's transcript."""
        return entry_id in self._side

    # --- lookup --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def get(self, entry_id: str) -> Entry | None:
        return self._entries.get(entry_id)

    def parent_of(self, entry_id: str) -> str | None:
        return self._parent.get(entry_id)

    def _child_ids(self) -> dict[str | None, list[str]]:
        if self._children is None:
            children: dict[str | None, list[str]] = {}
            for entry_id, parent in self._parent.items():
                children.setdefault(parent, []).append(entry_id)
            self._children = children
        return self._children

    def children(self, entry_id: str | None) -> list[Entry]:
        return [self._entries[c] for c in self._child_ids().get(entry_id, [])]

    def entries(self) -> list[Entry]:
        """All entries in file order."""
        return list(self._entries.values())

    def resolve(self, id_or_prefix: str) -> str:
        """The id of the one entry whose id starts with ``id_or_prefix``."""
        if id_or_prefix in self._entries:
            return id_or_prefix
        found = [i for i in self._entries if i.startswith(id_or_prefix)] if id_or_prefix else []
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
        current = node == self.leaf
        if current and self._leaf_path is not None:
            return list(self._leaf_path)
        out: list[Entry] = []
        entries, parents = self._entries, self._parent
        while node is not None:
            out.append(entries[node])
            node = parents[node]
        out.reverse()
        if current:
            self._leaf_path = list(out)
        return out

    # --- reading a branch ----------------------------------------------------------------

    def history(self, to: str | None = None) -> list[Message]:
        path = self.path(to)
        start = 0
        messages: list[Message] = []
        kinds = list(map(type, path))  # the last compaction found in C, not entry by entry
        if CompactionEntry in kinds:
            index = len(kinds) - 1 - kinds[::-1].index(CompactionEntry)
            cut = path[index]
            assert isinstance(cut, CompactionEntry)
            messages.extend(cut.preamble)
            keep = False
            for entry in path[:index]:
                keep = keep or (cut.first_kept is not None and entry.id == cut.first_kept)
                if keep and isinstance(entry, MessageEntry):
                    messages.append(entry.message)
            start = index + 1
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

    def effort(self, to: str | None = None) -> str | None:
        """The reasoning effort chosen last on a branch (None: never recorded)."""
        for entry in reversed(self.path(to)):
            if isinstance(entry, EffortEntry):
                return entry.effort
        return None

    def todos(self, to: str | None = None) -> list[TodoItem]:
        for entry in reversed(self.path(to)):
            if isinstance(entry, TodosEntry):
                return list(entry.todos)
        return []

    def labels(self) -> dict[str, str]:
        """Entry id -> label, as the label entries (in file order) leave them."""
        labels: dict[str, str] = {}
        for entry in self._entries.values():
            if isinstance(entry, LabelEntry):
                if entry.label is None:
                    labels.pop(entry.target, None)
                else:
                    labels[entry.target] = entry.label
        return labels

    def subagents(self, to: str | None = None) -> list[tuple[SubagentEntry, str]]:
        """The subagents started from the branch ending at ``to`` (default: the current
        one), in file order: each root and the last entry of its transcript."""
        on_branch = {e.id for e in self.path(to)} if (to or self.leaf) else set()
        out: list[tuple[SubagentEntry, str]] = []
        for entry in self._entries.values():
            if isinstance(entry, SubagentEntry) and entry.at in on_branch:
                out.append((entry, self._last_of(entry.id)))
        return out

    def _last_of(self, root: str) -> str:
        """The last entry (in file order) of the side tree under ``root``."""
        last = root
        for entry_id, owner in self._side.items():
            if owner == root:
                last = entry_id
        return last

    def with_subagents(self, to: str | None = None) -> list[Entry]:
        """The branch ending at ``to`` and the transcripts of the subagents started from
        it (theirs too, at any depth), in file order: what a copy of the branch keeps."""
        keep = {e.id for e in self.path(to)} if (to or self.leaf) else set()
        roots = set(keep)
        for entry_id, entry in self._entries.items():
            if isinstance(entry, SubagentEntry) and entry.at in roots:
                roots.add(entry_id)
            owner = self._side.get(entry_id)
            if owner is not None and owner in roots:
                keep.add(entry_id)
                roots.add(entry_id)
        return [entry for entry_id, entry in self._entries.items() if entry_id in keep]

    def branches(self) -> list[Branch]:
        """Every leaf of the tree, in file order, the current one marked."""
        on_current = {e.id for e in self.path()} if self.leaf is not None else set()
        out: list[Branch] = []
        children = self._child_ids()
        for entry_id in self._entries:
            if children.get(entry_id) or entry_id in self._side:
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
