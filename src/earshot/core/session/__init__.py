"""Sessions: append-only JSONL transcripts forming a tree, and how they are found, resumed,
forked and rewound. See ``docs/sessions.md`` for the file format and its invariants.

::

    entries     the line types (msgspec Structs; never compiled)
    codec       JSONL encode/decode, damage reporting, format migrations (compilable)
    tree        the entry tree: branches, history rebuild, model and todos of a branch
    transcript  the locked appender and the forgiving reader of one file
    live        Session: an open, locked session with its write queue
    store       paths, ids, listing, resume/continue/fork (SessionStore, open_session)
    importers   Claude Code and pi session files
"""

from earshot.core.session.codec import FORMAT_VERSION, FormatTooNewError, Problem
from earshot.core.session.entries import (
    CompactionEntry,
    EffortEntry,
    Entry,
    Header,
    HookEntry,
    LabelEntry,
    MessageEntry,
    ModelSwitchEntry,
    RewindEntry,
    ScopeEntry,
    SnapshotEntry,
    TodosEntry,
    UnknownEntry,
)
from earshot.core.session.live import Session
from earshot.core.session.store import (
    SessionInfo,
    SessionNotFoundError,
    SessionStore,
    cwd_key,
    data_dir,
    new_session_id,
    open_session,
    short_ids,
)
from earshot.core.session.transcript import (
    SessionError,
    SessionLockedError,
    Transcript,
    read_transcript,
)
from earshot.core.session.tree import Branch, Tree

__all__ = [
    "FORMAT_VERSION",
    "Branch",
    "CompactionEntry",
    "EffortEntry",
    "Entry",
    "FormatTooNewError",
    "Header",
    "HookEntry",
    "LabelEntry",
    "MessageEntry",
    "ModelSwitchEntry",
    "Problem",
    "RewindEntry",
    "ScopeEntry",
    "Session",
    "SessionError",
    "SessionInfo",
    "SessionLockedError",
    "SessionNotFoundError",
    "SessionStore",
    "SnapshotEntry",
    "TodosEntry",
    "Transcript",
    "Tree",
    "UnknownEntry",
    "cwd_key",
    "data_dir",
    "new_session_id",
    "open_session",
    "read_transcript",
    "short_ids",
]
