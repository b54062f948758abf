"""The session file on disk: one writer at a time (an OS lock), whole lines, crash damage
that never costs more than the line being written."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from earshot.core.session import SessionLockedError, SessionStore, read_transcript
from earshot.core.session.codec import FORMAT_VERSION
from earshot.core.session.entries import FormatMark
from earshot.core.session.transcript import Transcript, format_mark_needed
from earshot.core.session.tree import Tree
from tests.session.messages import texts, user

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

# A second earshot process: opens the session (taking its lock), says so, and then either
# waits for stdin to close or appends numbered messages until it is killed.
CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import anyio

    from earshot.core.session import SessionStore
    from earshot.providers.types import Message, TextPart

    cwd, data, session_id, mode = sys.argv[1:5]
    session = SessionStore(Path(cwd), Path(data)).open(session_id)
    print("locked", flush=True)

    async def append_forever() -> None:
        n = 0
        while True:
            n += 1
            text = f"message {n} " + "x" * 3000
            await session.append_message(Message(role="user", parts=[TextPart(text=text)]))
            print(n, flush=True)

    if mode == "hold":
        sys.stdin.read()
        session.close()
    else:
        anyio.run(append_forever)
    """
)


@contextlib.contextmanager
def _child(store: SessionStore, session_id: str, mode: str) -> Iterator[subprocess.Popen[bytes]]:
    """A second process holding the session's lock; killed and reaped on the way out."""
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store.cwd), str(store.data_dir), session_id, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == b"locked\n"
            yield child
        finally:
            child.kill()


def test_second_writer_in_this_process_is_refused(store: SessionStore) -> None:
    session = store.create(model="m/1")
    with pytest.raises(SessionLockedError, match="another earshot process"):
        store.open(session.id)
    session.close()
    store.open(session.id).close()


def test_second_writer_in_another_process_is_refused_until_it_exits(
    store: SessionStore,
) -> None:
    session = store.create(model="m/1")
    session.close()
    session_id = session.id
    with _child(store, session_id, "hold") as child:
        with pytest.raises(SessionLockedError):
            store.open(session_id)
        # Reading (list, show, fork) never needs the lock.
        assert store.load(session_id).id == session_id
        assert [info.id for info in store.list()] == [session_id]
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait() == 0
    store.open(session_id).close()


@posix_only
def test_kill_mid_append_loses_at_most_the_line_being_written(store: SessionStore) -> None:
    session = store.create(model="m/1")
    session_id = session.id
    session.close()
    with _child(store, session_id, "append") as child:
        assert child.stdout is not None
        for _ in range(50):
            confirmed = int(child.stdout.readline())
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL

    transcript = read_transcript(store.path_for(session_id))
    assert [p.kind for p in transcript.problems] in ([], ["torn"])
    assert len(transcript.tree) >= confirmed
    numbers = [int(t.split()[1]) for t in texts(transcript.tree.history())]
    assert numbers == list(range(1, len(numbers) + 1))

    # The OS released the dead process's lock: resume works and appends continue the chain.
    async def resume() -> None:
        with store.open(session_id) as again:
            await again.append_message(user("after the crash"))
            await again.end_turn()

    anyio.run(resume)
    reread = read_transcript(store.path_for(session_id))
    assert texts(reread.tree.history())[-1] == "user:after the crash"
    assert len(reread.tree.history()) == len(numbers) + 1


def test_torn_tail_is_terminated_before_the_next_line(store: SessionStore) -> None:
    session = store.create(model="m/1")
    anyio.run(session.append_message, user("one"))
    session.close()
    path = store.path_for(session.id)
    with path.open("ab") as handle:  # what a power cut mid-write leaves
        handle.write(b'{"type":"message","id":"zz","parent_id":')
    torn = read_transcript(path)
    assert [(p.line, p.kind) for p in torn.problems] == [(3, "torn")]

    async def resume() -> None:
        with store.open(session.id) as again:
            assert again.problems == torn.problems
            await again.append_message(user("two"))

    anyio.run(resume)
    reread = read_transcript(path)
    # The fragment is now a corrupt middle line, reported by number; nothing was rewritten.
    assert [(p.line, p.kind) for p in reread.problems] == [(3, "corrupt")]
    assert path.read_bytes().count(b'"parent_id":\n') == 1
    assert texts(reread.tree.history()) == ["user:one", "user:two"]


def test_older_format_gets_a_format_line_before_new_entries() -> None:
    old = Transcript(
        path=Path("x.jsonl"),
        header=read_transcript(Path(__file__).parent / "data" / "format-v1.jsonl").header,
        tree=Tree(),
        version=FORMAT_VERSION - 1,
    )
    assert format_mark_needed(old) == FormatMark(version=FORMAT_VERSION)
    current = Transcript(path=old.path, header=old.header, tree=Tree())
    assert format_mark_needed(current) is None


def test_session_file_is_private_to_the_user(store: SessionStore) -> None:
    session = store.create(model="m/1")
    session.close()
    if sys.platform != "win32":
        assert store.path_for(session.id).stat().st_mode & 0o777 == 0o600
