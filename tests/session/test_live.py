"""An open session: the write queue, resume, compaction cuts, fork and rewind trees."""

from __future__ import annotations

import itertools

import anyio
import anyio.lowlevel
import pytest

from earshot.core.session import (
    MessageEntry,
    RewindEntry,
    SessionError,
    SessionStore,
    read_transcript,
)
from earshot.core.session.tree import INTERRUPTED
from earshot.core.tools.state import Todo
from earshot.providers.types import Message, TextPart, ToolResultPart, Usage
from tests.session.messages import assistant, call, result, texts, user

pytestmark = pytest.mark.anyio


async def test_concurrent_appends_form_one_chain_never_siblings(store: SessionStore) -> None:
    with store.create(model="m/1") as session:
        root = await session.append_message(user("start"))
        ids: list[str] = []

        async def writer(n: int) -> None:
            for k in range(20):
                ids.append(await session.append_message(user(f"task {n} line {k}")))
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            for n in range(8):
                tg.start_soon(writer, n)

    transcript = read_transcript(session.path)
    entries = transcript.tree.entries()
    assert len(entries) == 1 + 8 * 20
    for before, after in itertools.pairwise(entries):
        assert after.parent_id == before.id
    assert entries[0].id == root
    assert sorted(ids) == sorted(e.id for e in entries[1:])
    # Every task's own lines stay in its order.
    for n in range(8):
        mine = [t for t in texts(transcript.tree.history()) if t.startswith(f"user:task {n} ")]
        assert mine == [f"user:task {n} line {k}" for k in range(20)]


async def test_resume_rebuilds_history_model_and_todos(store: SessionStore) -> None:
    with store.create(model="anthropic/a") as session:
        await session.append_message(user("fix it"))
        await session.append_message(
            assistant("on it", call("c1", command="ls")),
            usage=Usage(input=5, output=7),
            cost_usd=0.25,
            model="anthropic/a",
        )
        await session.append_message(result("c1", "a.py"))
        await session.append_todos([Todo(content="edit a.py", status="in_progress", id="1")])
        await session.append_model_switch("openai/b")
        await session.end_turn()
        before = session.history()

    with store.open(session.id[:13]) as again:
        assert again.origin == "resumed"
        assert again.history() == before
        assert again.model() == "openai/b"
        assert again.todos() == [Todo(content="edit a.py", status="in_progress", id="1")]
        assert again.cost_usd() == 0.25
        assert again.title() == "fix it"


async def test_resume_with_an_orphan_tool_call_answers_it_as_interrupted(
    store: SessionStore,
) -> None:
    with store.create(model="m/1") as session:
        await session.append_message(user("run both"))
        await session.append_message(assistant("", call("c1"), call("c2", name="read")))
        await session.append_message(result("c1", "done"))
        # The process died while c2 ran: no result for it was ever written.

    with store.open(session.id) as again:
        history = again.history()
        assert texts(history) == [
            "user:run both",
            "assistant:call c1 + call c2",
            "tool:result c1",
            "tool:result c2 (error)",
        ]
        interrupted = history[-1].parts[0]
        assert isinstance(interrupted, ToolResultPart)
        assert interrupted.name == "read"
        assert interrupted.content == [TextPart(text=INTERRUPTED)]
        # The next prompt follows the repaired pair, and the pair stays repaired.
        await again.append_message(user("what happened?"))
        assert texts(again.history())[-2:] == ["tool:result c2 (error)", "user:what happened?"]


async def test_orphan_call_with_no_results_at_all_is_answered_right_after_it(
    store: SessionStore,
) -> None:
    with store.create(model="m/1") as session:
        await session.append_message(user("go"))
        await session.append_message(assistant("", call("c1")))
        await session.append_message(user("hello?"))
        assert texts(session.history()) == [
            "user:go",
            "assistant:call c1",
            "tool:result c1 (error)",
            "user:hello?",
        ]


async def test_compaction_cut_replaces_earlier_messages_with_its_preamble(
    store: SessionStore,
) -> None:
    with store.create(model="m/1") as session:
        await session.append_message(user("one"))
        await session.append_message(assistant("reply one"))
        kept = await session.append_message(user("two"))
        await session.append_message(assistant("reply two"))
        await session.append_compaction(
            [user("Summary: one was answered.")], first_kept=kept, tokens_before=900
        )
        await session.append_message(user("three"))
        expected = [
            "user:Summary: one was answered.",
            "user:two",
            "assistant:reply two",
            "user:three",
        ]
        assert texts(session.history()) == expected
        await session.append_compaction([user("Summary: all of it.")], first_kept=None)
        assert texts(session.history()) == ["user:Summary: all of it."]
    # Nothing was rewritten: every message is still in the file.
    transcript = read_transcript(session.path)
    assert sum(isinstance(e, MessageEntry) for e in transcript.tree.entries()) == 5


async def test_compaction_cut_between_a_call_and_its_result_drops_the_orphan_result(
    store: SessionStore,
) -> None:
    with store.create(model="m/1") as session:
        await session.append_message(user("go"))
        await session.append_message(assistant("", call("c1")))
        kept = await session.append_message(result("c1", "out"))
        await session.append_compaction([user("Summary.")], first_kept=kept)
        assert texts(session.history()) == ["user:Summary."]


async def test_rewind_starts_a_branch_and_deletes_nothing(store: SessionStore) -> None:
    with store.create(model="m/1") as session:
        first = await session.append_message(user("first"))
        await session.append_message(assistant("answer A"))
        old_head = session.leaf
        head = await session.rewind_to(first[:6])
        rewind = session.tree.get(head)
        assert isinstance(rewind, RewindEntry)
        assert rewind.parent_id == first
        assert rewind.from_id == old_head
        assert texts(session.history()) == ["user:first"]
        await session.append_message(assistant("answer B"))
        assert texts(session.history()) == ["user:first", "assistant:answer B"]

        branches = session.branches()
        assert [(b.head == old_head, b.current, b.messages) for b in branches] == [
            (True, False, 2),
            (False, True, 2),
        ]
        assert branches[0].fork_point == first
        assert branches[0].preview == "first"

        # Rewinding to the other branch's head switches back to it.
        await session.rewind_to(old_head)
        assert texts(session.history()) == ["user:first", "assistant:answer A"]

        await session.rewind_to(None)
        assert session.history() == []

    with store.open(session.id) as again:
        assert again.history() == []
        assert len(again.branches()) == 3


async def test_rewind_to_an_unknown_entry_is_a_clear_error(store: SessionStore) -> None:
    with store.create(model="m/1") as session:
        await session.append_message(user("x"))
        with pytest.raises(SessionError, match="no entry 'nope'"):
            await session.rewind_to("nope")


async def test_fork_at_an_entry_makes_a_linked_file_with_that_branch(
    store: SessionStore,
) -> None:
    with store.create(model="anthropic/a") as session:
        first = await session.append_message(user("first"), model=None)
        await session.append_model_switch("openai/b")
        mid = await session.append_message(assistant("middle"))
        await session.append_message(user("last"))
        fork = session.fork_at(mid)
        try:
            assert fork.origin == "forked"
            assert fork.id != session.id and fork.id > session.id
            assert fork.header.parent_session == session.id
            assert fork.header.parent_entry == mid
            assert texts(fork.history()) == ["user:first", "assistant:middle"]
            assert fork.model() == "openai/b"
            assert fork.tree.get(first) == session.tree.get(first)
            await fork.append_message(user("in the fork"))
        finally:
            fork.close()
        # The source is untouched and still open for writing.
        await session.append_message(assistant("still here"))
        assert texts(session.history())[-2:] == ["user:last", "assistant:still here"]


async def test_labels_and_snapshot_refs_are_entries_on_the_branch(store: SessionStore) -> None:
    with store.create(model="m/1") as session:
        first = await session.append_message(user("x"))
        await session.append_label(first, "start")
        snap = await session.append_snapshot_ref("abc123")
        await session.append_label(first, None)
        await session.append_label(first, "again")
        assert session.tree.labels() == {first: "again"}
        assert session.tree.get(snap) is not None
        assert texts(session.history()) == ["user:x"]


async def test_appends_after_close_fail_loudly(store: SessionStore) -> None:
    session = store.create(model="m/1")
    session.close()
    assert session.closed
    with pytest.raises(SessionError, match="closed"):
        await session.append_message(user("late"))


async def test_provider_metadata_survives_resume_verbatim(store: SessionStore) -> None:
    message = Message(
        role="assistant",
        parts=[TextPart(text="t", provider_metadata={"google": {"thought_signature": "Zm9v"}})],
    )
    with store.create(model="google/g") as session:
        await session.append_message(message)
    with store.open(session.id) as again:
        assert again.history() == [message]


async def test_a_subagents_entries_never_become_the_branch_the_parent_resumes(
    store: SessionStore,
) -> None:
    with store.create(model="anthropic/a") as session:
        await session.append_message(user("delegate"))
        asked = await session.append_message(assistant("", call("t1", "task")), cost_usd=0.5)
        child = await session.subagent("t1", "general-purpose", "look")
        await child.append_message(user("the child's prompt"))
        await child.append_message(assistant("the child's answer"), cost_usd=0.25)
        assert session.leaf == asked  # the child wrote, the parent's head did not move
        # the file ends with the child's lines (as when earshot dies mid-child)
    reopened = store.open(session.id)
    with reopened:
        assert reopened.leaf == asked
        history = reopened.history()
        assert [m.role for m in history] == ["user", "assistant", "tool"]  # call interrupted
        assert "the child" not in " ".join(texts(history))
        assert len(reopened.branches()) == 1
        ((root, last),) = reopened.tree.subagents()
        assert root.call_id == "t1" and root.at == asked
        assert texts(reopened.history(last)) == [
            "user:the child's prompt",
            "assistant:the child's answer",
        ]
        assert reopened.cost_usd() == pytest.approx(0.75)
        fork = reopened.fork_at()
    with fork:
        assert [r.call_id for r, _ in fork.tree.subagents()] == ["t1"]
        assert fork.leaf == asked
