"""Undo of tool batches from a private git object store; the user's repository is never
touched.

The agent loop calls ``snapshot()`` before each mutating tool batch (edits, writes, bash).
``undo()`` restores the working tree to the snapshot before the session's last batch
(files changed since are written back, files created since are removed); calling it again
steps further back. ``redo()`` re-applies what the last ``undo()`` took away. A new
snapshot after an undo clears the redo steps.

Contracts:

- Scoped to a session: each session's steps live under its own refs; a session never
  offers another's snapshots, and a snapshot from before sessions were recorded belongs to
  none.
- The user's repository (HEAD, refs, index, stash, config, reflog) is only read, never
  written: git runs with ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE`` pointed at
  our store (see ``_store``). It works the same outside any repository.
- Files over ``max_file_bytes`` (default 10 MB) and nested repositories are left out of a
  snapshot, listed in ``last_skipped`` and in the result's note, and never deleted by a
  restore. Ignored files are neither saved nor touched.
- No git on PATH: ``available`` is False, ``notice`` says so once, and every operation is
  a harmless no-op (``snapshot()`` returns None); never an exception.
- Operations on one store are serialised across processes; each runs in a worker thread,
  and a cancelled call finishes its git work before it returns (a restore is never left
  half done by a cancellation).
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio.to_thread
import msgspec

from earshot._base.which import which
from earshot.core.session.store import cwd_key
from earshot.core.session.store import data_dir as default_data_dir
from earshot.core.undo._git import GitError

if TYPE_CHECKING:
    from earshot.core.undo._store import Capture, Commit, SnapshotStore

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
NO_GIT = "undo is off: git was not found on PATH (install git to enable undo)"
_SESSION_ID = re.compile(r"^[0-9A-Za-z-]+$")


class UndoResult(msgspec.Struct, frozen=True):
    ok: bool
    message: str
    restored: list[str] = msgspec.field(default_factory=list)
    removed: list[str] = msgspec.field(default_factory=list)
    snapshot: str | None = None
    """The snapshot the tree now matches."""


class UndoStep(msgspec.Struct, frozen=True):
    """One step a session can take: ``undo`` steps newest first, then ``redo`` steps
    (the next redo first)."""

    kind: Literal["undo", "redo"]
    snapshot: str
    created: str
    label: str
    skipped: tuple[str, ...]


class Undo:
    def __init__(
        self,
        cwd: Path,
        session_id: str,
        data_dir: Path | None = None,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        git: str | None = None,
    ) -> None:
        if not _SESSION_ID.match(session_id):
            raise ValueError(f"not a session id: {session_id!r}")
        self.cwd = cwd.resolve()
        self.session_id = session_id
        self.store_dir = (data_dir or default_data_dir()).absolute() / "undo" / cwd_key(self.cwd)
        self.max_file_bytes = max_file_bytes
        self._git = git if git is not None else which("git")
        self.available: bool = self._git is not None
        self.notice: str | None = None if self.available else NO_GIT
        self._notice_shown = False
        self.last_skipped: tuple[str, ...] = ()
        self._store: SnapshotStore | None = None
        self._early: Future[Capture] | None = None
        prefix = f"refs/earshot/{session_id}"
        self._undo_ref = f"{prefix}/undo"
        self._redo_ref = f"{prefix}/redo"

    def take_notice(self) -> str | None:
        """The notice (git missing), the first time it is asked for; then None."""
        if self.notice is None or self._notice_shown:
            return None
        self._notice_shown = True
        return self.notice

    def _opened(self) -> SnapshotStore:
        if self._store is None:
            assert self._git is not None
            # The snapshot store loads with the first snapshot, not with the session.
            from earshot.core.undo._store import SnapshotStore

            self._store = SnapshotStore.for_cwd(
                self._git, self.store_dir, self.cwd, max_file_bytes=self.max_file_bytes
            )
        return self._store

    def _tops(self, store: SnapshotStore) -> tuple[str | None, str | None]:
        refs = store.read_refs(f"refs/earshot/{self.session_id}/", (self._undo_ref, self._redo_ref))
        return refs[self._undo_ref], refs[self._redo_ref]

    # --- operations (async, each in a worker thread) -------------------------------------

    def prefetch(self) -> None:
        """Start capturing the tree now, on a thread of its own, for the snapshot of the
        batch the model is still writing (a mutating call has begun streaming): the next
        ``snapshot`` uses it, so the hashing overlaps the model's answer instead of
        delaying the call. ``discard`` forgets a capture no batch used."""
        if not self.available or self._early is not None:
            return
        early: Future[Capture] = Future()

        def capture() -> None:
            try:
                early.set_result(self._capture())
            except BaseException as exc:  # handed to whoever asks for it
                early.set_exception(exc)

        _background(capture)
        self._early = early

    def discard(self) -> None:
        """Forget a capture started by ``prefetch`` (the batch it was for took none)."""
        self._early = None

    async def snapshot(self, label: str = "") -> str | None:
        """Snapshot the tree before a mutating batch; returns the snapshot id (None when
        undo is unavailable). Clears the redo steps."""
        if not self.available:
            return None
        early, self._early = self._early, None
        return await anyio.to_thread.run_sync(self._snapshot, label, early)

    async def undo(self) -> UndoResult:
        if not self.available:
            return UndoResult(ok=False, message=NO_GIT)
        return await anyio.to_thread.run_sync(self._step, "undo")

    async def redo(self) -> UndoResult:
        if not self.available:
            return UndoResult(ok=False, message=NO_GIT)
        return await anyio.to_thread.run_sync(self._step, "redo")

    async def preview(self) -> str | None:
        """The diff (with a stat) ``undo()`` would apply now; None when there is nothing
        to undo or undo is unavailable."""
        if not self.available:
            return None
        return await anyio.to_thread.run_sync(self._preview)

    def list(self) -> list[UndoStep]:
        if not self.available or not (self.store_dir / "HEAD").exists():
            return []
        store = self._opened()
        with store.locked():
            undo_top, redo_top = self._tops(store)
            undo_steps = [_step_of("undo", c) for c in store.chain(undo_top)]
            redo_steps = [_step_of("redo", c) for c in store.chain(redo_top)]
        return undo_steps + redo_steps

    # --- the work ------------------------------------------------------------------------

    def _capture(self) -> Capture:
        store = self._opened()
        with store.locked():
            store.ensure()
            return store.capture()

    def _snapshot(self, label: str, early: Future[Capture] | None = None) -> str:
        capture: Capture | None = None
        if early is not None:
            try:
                capture = early.result()
            except Exception:
                capture = None  # captured again below
        store = self._opened()
        with store.locked():
            if capture is None:
                store.ensure()
                capture = store.capture()
            self.last_skipped = capture.skipped
            top, redo = self._tops(store)
            if top is not None:
                head = store.read_commit(top)
                if head.tree == capture.tree and head.skipped == capture.skipped:
                    if redo is not None:
                        store.set_refs({self._redo_ref: None})
                    return top
            commit = store.commit(capture, parent=top, label=label)
            store.set_refs({self._undo_ref: commit, self._redo_ref: None})
            return commit

    def _target(self, store: SnapshotStore, top: str | None, now: Capture) -> Commit | None:
        """The newest step of a stack that differs from the tree as it is now."""
        while top is not None:
            commit = store.read_commit(top)
            if commit.tree != now.tree:
                return commit
            top = commit.parent
        return None

    def _preview(self) -> str | None:
        if not (self.store_dir / "HEAD").exists():
            return None
        store = self._opened()
        with store.locked():
            store.ensure()
            now = store.capture()
            target = self._target(store, self._tops(store)[0], now)
            return None if target is None else store.patch(now.tree, target.tree)

    def _step(self, kind: Literal["undo", "redo"]) -> UndoResult:
        nothing = UndoResult(ok=False, message=f"nothing to {kind} in session {self.session_id}")
        if not (self.store_dir / "HEAD").exists():
            return nothing
        store = self._opened()
        with store.locked():
            store.ensure()
            undo_top, redo_top = self._tops(store)
            now = store.capture()
            source, other = (undo_top, redo_top) if kind == "undo" else (redo_top, undo_top)
            target = self._target(store, source, now)
            if target is None:
                return nothing
            # The tree as it is now becomes the first step the other way, under the label
            # of the batch it holds.
            saved = store.commit(now, parent=other, label=target.label)
            restore = store.restore(now, target)
            if kind == "undo":
                store.set_refs({self._undo_ref: target.parent, self._redo_ref: saved})
            else:
                store.set_refs({self._redo_ref: target.parent, self._undo_ref: saved})
        what = target.label
        message = (
            f"undid {what}" if kind == "undo" else f"redid {what}"
        ) + f": {len(restore.written)} file(s) written back, {len(restore.removed)} removed"
        if target.skipped:
            message += f"; not in the snapshot, left alone: {', '.join(target.skipped)}"
        return UndoResult(
            ok=True,
            message=message,
            restored=restore.written,
            removed=restore.removed,
            snapshot=target.id,
        )


_jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_worker: threading.Thread | None = None
_worker_lock = threading.Lock()


def _background(job: Callable[[], None]) -> None:
    """Run ``job`` on the process's one capture thread (a daemon, started once: a thread
    started per call costs the event loop its start-up, and exit never waits for it)."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = threading.Thread(target=_work, name="earshot-undo-capture", daemon=True)
            _worker.start()
    _jobs.put(job)


def _work() -> None:
    while True:
        _jobs.get()()


def _step_of(kind: Literal["undo", "redo"], commit: Commit) -> UndoStep:
    created = datetime.fromtimestamp(commit.time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return UndoStep(
        kind=kind, snapshot=commit.id, created=created, label=commit.label, skipped=commit.skipped
    )


__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "NO_GIT",
    "GitError",
    "Undo",
    "UndoResult",
    "UndoStep",
]
