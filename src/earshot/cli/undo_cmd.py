"""``earshot undo [--session ID] [--list] [--yes]``: restore the working tree to before the
last tool batch of a session (by default the newest session of this directory that has
undo steps, named when it is not the latest).

Without ``--yes`` the diff is shown and a terminal prompt asks first; with stdin not a
terminal and no ``--yes`` nothing is changed. Exit statuses: 0 done (or nothing to undo);
1 undo failed or is unavailable (no git); 2 no such session, or a prompt was needed but
there is no terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import anyio

from earshot.core.session import SessionError, SessionStore
from earshot.core.undo import GitError, Undo

USAGE_ERROR = 2


def _ask_terminal(question: str) -> str | None:
    if not sys.stdin.isatty():
        return None
    return input(question)


def undo(
    *,
    session: str | None,
    list_only: bool,
    yes: bool,
    cwd: Path | None = None,
    data_dir: Path | None = None,
    ask: Callable[[str], str | None] = _ask_terminal,
) -> int:
    store = SessionStore(cwd or Path.cwd(), data_dir)
    try:
        session_id = store.resolve(session).stem if session else _newest_with_steps(store, data_dir)
    except SessionError as exc:
        sys.stderr.write(f"earshot: {exc}\n")
        return USAGE_ERROR
    if session_id is None:
        sys.stdout.write(f"nothing to undo: no session in {store.cwd}\n")
        return 0
    latest = store.latest_id()
    if session is None and session_id != latest:
        short = store.short_ids()
        sys.stdout.write(
            f"the latest session ({short.get(latest or '', latest)}) has nothing to undo; "
            f"using session {short.get(session_id, session_id)}, the newest that has\n"
        )
    undoer = Undo(store.cwd, session_id, data_dir)
    if not undoer.available:
        sys.stderr.write(f"earshot: {undoer.notice}\n")
        return 1
    try:
        if list_only:
            return _list(undoer)
        patch = anyio.run(undoer.preview)
        if patch is None:
            sys.stdout.write(f"nothing to undo in session {session_id}\n")
            return 0
        if not yes:
            sys.stdout.write(f"session {session_id}: undo would make these changes\n\n{patch}\n")
            answer = ask("Restore these files? [y/N] ")
            if answer is None:
                sys.stderr.write("earshot: not a terminal; pass --yes to undo without asking\n")
                return USAGE_ERROR
            if answer.strip().lower() not in ("y", "yes"):
                sys.stdout.write("nothing changed\n")
                return 0
        result = anyio.run(undoer.undo)
    except GitError as exc:
        sys.stderr.write(f"earshot: undo failed: {exc}\n")
        return 1
    stream = sys.stdout if result.ok else sys.stderr
    stream.write(f"{result.message}\n")
    return 0 if result.ok else 1


SCAN = 50
"""How many of the newest sessions ``earshot undo`` looks through for one with steps."""


def _newest_with_steps(store: SessionStore, data_dir: Path | None) -> str | None:
    """The newest session of the directory that has undo steps; the latest when none has
    (or undo is unavailable: the caller then says why), None when there is no session."""
    for session_id in reversed(store.ids()[-SCAN:]):
        undoer = Undo(store.cwd, session_id, data_dir)
        if not undoer.available:
            break
        if any(step.kind == "undo" for step in undoer.list()):
            return session_id
    return store.latest_id()


def _list(undoer: Undo) -> int:
    steps = undoer.list()
    if not steps:
        sys.stdout.write(f"nothing to undo in session {undoer.session_id}\n")
        return 0
    for number, step in enumerate(steps, 1):
        skipped = f"  ({len(step.skipped)} left out)" if step.skipped else ""
        label = step.label or "(batch)"
        sys.stdout.write(
            f"{number:>3}  {step.kind:<4}  {step.created}  {step.snapshot[:12]}  {label}{skipped}\n"
        )
    return 0


__all__ = ["undo"]
