"""The lines of a session file: msgspec ``Struct``s tagged by ``type``.

Shape of a file (one JSON object per line)::

    Header            type "session"     line 1: format version, session id, cwd, versions
    FormatMark        type "format"      a later line switching the format version (see codec)
    Entry             every other line; a tree node with id, parent_id, timestamp
      MessageEntry       "message"       a Message with its usage, cost and model
      ModelSwitchEntry   "model_switch"  the user switched models
      EffortEntry        "effort"        the reasoning effort chosen from here on
      CompactionEntry    "compaction"    messages before ``first_kept`` are replaced by
                                         ``preamble`` in the history
      TodosEntry         "todos"         the todo list as it now stands
      ScopeEntry         "scope"         the declared scope (JSON, owned by the scope feature)
      LabelEntry         "label"         a user's bookmark on another entry
      SnapshotEntry      "snapshot"      an undo snapshot taken before a tool batch
      RewindEntry        "rewind"        a new branch head under an earlier entry
      HookEntry          "hook"          a hook ran: event, command, exit code, duration,
                                         decision, its output cut short
      SubagentEntry      "subagent"      the root of a subagent's branch (a ``task`` call):
                                         its entries hang below it, off the current branch
      UnknownEntry       (any other)     a tree node of a type this build does not know

Every ``Entry`` is written with all four of ``type``, ``id``, ``parent_id`` (``null`` for a
root) and ``timestamp`` (UTC, ISO 8601 with milliseconds). Field names are the file format:
renaming one is a format change (bump ``codec.FORMAT_VERSION`` and add a migration).

This module defines ``Struct`` classes and must never be compiled with mypyc.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

from earshot.providers.types import JSONValue, Message, Usage

TodoStatus = Literal["pending", "in_progress", "completed"]

FORMAT_VERSION = 1
"""The session file format this earshot writes (``codec`` migrates older ones)."""

ProblemKind = Literal["torn", "corrupt", "invalid", "unknown", "header", "orphan"]


class _Line(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True, tag_field="type"):
    pass


class ImportOrigin(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """Where an imported session came from."""

    format: str
    path: str
    session_id: str | None = None
    created: str | None = None


class Header(_Line, tag="session", frozen=True):
    version: int
    id: str
    timestamp: str
    cwd: str
    earshot_version: str
    model: str | None = None
    parent_session: str | None = None
    parent_entry: str | None = None
    imported_from: ImportOrigin | None = None


class FormatMark(_Line, tag="format", frozen=True):
    """Lines after this one are in format ``version`` (written when a newer earshot appends
    to an older file, so nothing before it needs rewriting)."""

    version: int


class _Entry(_Line, frozen=True):
    id: str
    parent_id: str | None
    timestamp: str


class MessageEntry(_Entry, tag="message", frozen=True):
    """``incomplete`` marks an assistant message cut off before its end (a dropped stream,
    an interrupt): what arrived is kept, and a later turn continues from it."""

    message: Message
    usage: Usage | None = None
    cost_usd: float | None = None
    model: str | None = None
    incomplete: bool = False


class ModelSwitchEntry(_Entry, tag="model_switch", frozen=True):
    model: str


class EffortEntry(_Entry, tag="effort", frozen=True):
    """The reasoning effort (``off``/``low``/``medium``/``high``/``max``) in force from
    here on; ``sent`` says what the model's wire was sent for it, for a reader."""

    effort: str
    sent: str = ""


class CompactionEntry(_Entry, tag="compaction", frozen=True):
    """A compaction cut. On the branch through this entry, the messages before entry
    ``first_kept`` (all of them when it is ``None``) are replaced by ``preamble``."""

    first_kept: str | None
    preamble: list[Message]
    tokens_before: int | None = None


class TodoItem(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    content: str
    status: TodoStatus
    id: str = ""


class TodosEntry(_Entry, tag="todos", frozen=True):
    todos: list[TodoItem]


class ScopeEntry(_Entry, tag="scope", frozen=True):
    scope: JSONValue


class LabelEntry(_Entry, tag="label", frozen=True):
    """Sets (or, with ``label`` None, clears) the label of entry ``target``."""

    target: str
    label: str | None = None


class SnapshotEntry(_Entry, tag="snapshot", frozen=True):
    snapshot: str


class RewindEntry(_Entry, tag="rewind", frozen=True):
    """A branch head: the conversation continues from ``parent_id``; ``from_id`` is the
    head that was current before the rewind."""

    from_id: str | None = None


class HookEntry(_Entry, tag="hook", frozen=True):
    """One hook run: its event, command, exit status (None: timed out) and duration; the
    ``matcher`` and settings ``source`` it came from, the ``decision`` it made (``ok``,
    ``context``, ``ignored_allow``, ``ask``, ``block``, ``stop``, ``error``) and its
    ``output`` (stdout then stderr, cut short). Files written before the last four fields
    existed read them as empty."""

    event: str
    command: str
    exit_code: int | None
    duration_ms: float
    matcher: str = ""
    source: str = ""
    decision: str = ""
    output: str = ""


class SubagentEntry(_Entry, tag="subagent", frozen=True):
    """The start of a subagent's transcript: the ``task`` call ``call_id`` ran agent
    ``agent`` to do ``description``, from entry ``at`` (the branch head of the agent that
    called it, on the main branch or on another subagent's). ``parent_id`` is always
    ``null``: the child's entries form a tree of their own below this root, so they are
    never on the branch the parent's history is read from (see ``tree``)."""

    call_id: str
    agent: str
    description: str = ""
    at: str | None = None


class UnknownEntry(msgspec.Struct, kw_only=True, frozen=True):
    """A line with a tree position but a ``type`` this build does not know. It keeps the
    tree connected; it carries nothing into the history."""

    type: str
    id: str
    parent_id: str | None
    timestamp: str = ""


KnownEntry: TypeAlias = (
    MessageEntry
    | ModelSwitchEntry
    | EffortEntry
    | CompactionEntry
    | TodosEntry
    | ScopeEntry
    | LabelEntry
    | SnapshotEntry
    | RewindEntry
    | HookEntry
    | SubagentEntry
)
Entry: TypeAlias = KnownEntry | UnknownEntry
Line: TypeAlias = Header | FormatMark | KnownEntry


# --- light views for listing (decode only what a summary needs) -----------------------------


class GlanceMessage(msgspec.Struct):
    role: str


class Glance(msgspec.Struct):
    """Any line, reduced to what ``sessions list`` shows; unknown fields are skipped."""

    type: str
    id: str = ""
    parent_id: str | None = None
    timestamp: str = ""
    message: GlanceMessage | None = None
    cost_usd: float | None = None
    model: str | None = None


# --- what reading found (built by codec, which mypyc may compile) ---------------------------


class Problem(msgspec.Struct, frozen=True):
    """Damage found while reading, at a 1-based line number."""

    line: int
    kind: ProblemKind
    detail: str

    def describe(self, path: object) -> str:
        return f"{path}:{self.line}: {self.detail}"


class Parsed(msgspec.Struct):
    """What ``codec.parse`` read of a session file."""

    header: Header | None
    entries: list[Entry] = msgspec.field(default_factory=list)
    line_numbers: list[int] = msgspec.field(default_factory=list)
    """The 1-based line of each entry in ``entries``."""
    problems: list[Problem] = msgspec.field(default_factory=list)
    version: int = FORMAT_VERSION
    """The format version in effect after the last line (what an appender must match)."""
    terminated: bool = True
    """False when the data does not end with a newline (a writer must start a new line)."""


__all__ = [
    "FORMAT_VERSION",
    "CompactionEntry",
    "EffortEntry",
    "Entry",
    "FormatMark",
    "Glance",
    "GlanceMessage",
    "Header",
    "HookEntry",
    "ImportOrigin",
    "KnownEntry",
    "LabelEntry",
    "Line",
    "MessageEntry",
    "ModelSwitchEntry",
    "Parsed",
    "Problem",
    "ProblemKind",
    "RewindEntry",
    "ScopeEntry",
    "SnapshotEntry",
    "SubagentEntry",
    "TodoItem",
    "TodoStatus",
    "TodosEntry",
    "UnknownEntry",
]
