"""A subagent's transcript is a side tree of its parent's session file: `sessions show`
nests it under the task call, resume sends only the parent's history, its cost stays in
the session's totals; the nesting depth is a setting."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import pytest

from earshot._base.json import JSONValue
from earshot.cli import sessions_cmd
from earshot.core.agent_session import AgentSession
from earshot.core.config.options import SessionOptions
from earshot.core.loop.events import AgentEvent, SubagentEvent, TurnEnded
from earshot.core.session import SessionStore
from tests.fake_provider import FakeProvider, SSEReply, ToolCallSpec, anthropic
from tests.fake_provider._request import RecordedRequest

pytestmark = pytest.mark.anyio

MODEL = "anthropic/claude-sonnet-4-6"
SECRET_OF_THE_NOTES = "zebra-striped-lanterns"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def task(call_id: str, prompt: str) -> ToolCallSpec:
    args: dict[str, JSONValue] = {"description": "read the notes", "prompt": prompt}
    return ToolCallSpec(call_id, "task", args)


def tool_names(request: RecordedRequest) -> list[str]:
    tools = request.json()["tools"]
    assert isinstance(tools, list)
    return [t["name"] for t in tools if isinstance(t, dict) and isinstance(t["name"], str)]


async def turn(session: AgentSession, text: str) -> tuple[list[AgentEvent], TurnEnded]:
    events = [e async for e in session.prompt(text)]
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return events, last


async def test_the_childs_transcript_is_kept_shown_under_its_call_and_not_resent(
    fake_provider: FakeProvider, repo_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo_env / "notes.txt").write_text(SECRET_OF_THE_NOTES + "\n")
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "what do the notes say?")]),
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("They name an animal."),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        await turn(session, "delegate the reading")
        first_cost = session.cost().total_usd
        session_id = session.id
    finally:
        await session.close()

    assert sessions_cmd.show(session_id, cwd=repo_env) == 0
    shown = capsys.readouterr().out
    call_at = shown.index("→ task")
    block_at = shown.index("┌ subagent general-purpose: read the notes")
    assert call_at < block_at < shown.index("[assistant]\ndone")
    nested = shown[block_at : shown.index("└", block_at)]
    assert "│ what do the notes say?" in nested and "│ → read" in nested
    assert "│ They name an animal." in nested and "2 model call(s)" in nested
    assert "turns         1 " in shown  # the child's prompt is not a turn of the session
    assert sessions_cmd.export(session_id, format="markdown", cwd=repo_env) == 0
    exported = capsys.readouterr().out
    details = exported.index("<details><summary>subagent general-purpose: read the notes")
    assert exported.index("**task** `t1`") < details < exported.index("done")
    assert "### assistant" in exported[details:] and SECRET_OF_THE_NOTES in exported[details:]
    (info,) = SessionStore(repo_env).list()
    assert info.turns == 1 and info.cost_usd == pytest.approx(first_cost)

    fake_provider.script(anthropic.text_turn("again"))
    resumed = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, resume=session_id))
    try:
        assert resumed.cost().earlier_usd == pytest.approx(first_cost)
        await turn(resumed, "and now?")
    finally:
        await resumed.close()
    sent = json.dumps(fake_provider.requests[-1].json()["messages"])
    assert "delegate the reading" in sent and "They name an animal." in sent
    assert SECRET_OF_THE_NOTES not in sent  # what only the child saw stays with the child


async def test_a_cancelled_childs_usage_stays_in_the_totals(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    (repo_env / "notes.txt").write_text("hello\n")
    slow = anthropic.text_turn("x " * 400)
    slow.delay = 0.5
    second_call = threading.Event()

    def child_again(request: RecordedRequest) -> SSEReply:
        second_call.set()
        return slow

    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "read slowly")]),
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        child_again,
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    seen: list[AgentEvent] = []
    try:
        async with anyio.create_task_group() as tg:

            async def run() -> None:
                async for event in session.prompt("go"):
                    seen.append(event)

            tg.start_soon(run)
            assert await anyio.to_thread.run_sync(second_call.wait, 30)
            session.abort()
        cost = session.cost()
    finally:
        await session.close()
    ended = seen[-1]
    assert isinstance(ended, TurnEnded) and ended.reason == "aborted"
    one_call = anthropic.DEFAULT_USAGE.input_tokens
    # the parent's call and the child's finished one at least (the cut call's start, too,
    # when its first frame arrived before the abort)
    assert ended.usage.input >= 2 * one_call
    assert ended.cost_usd is not None and cost.total_usd == pytest.approx(ended.cost_usd)


async def test_the_depth_setting_lets_a_child_delegate_and_nests_its_transcript(
    fake_provider: FakeProvider, repo_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo_env / ".earshot").mkdir()
    (repo_env / ".earshot" / "settings.json").write_text('{"subagentDepth": 2}')
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "ask someone else")]),
        anthropic.tool_calls_turn([task("t2", "you do it")]),
        anthropic.text_turn("grandchild report"),
        anthropic.text_turn("child report"),
        anthropic.text_turn("parent done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        events, ended = await turn(session, "go deep")
        session_id = session.id
    finally:
        await session.close()
    assert ended.text == "parent done"
    assert "task" in tool_names(fake_provider.requests[1])
    assert "task" not in tool_names(fake_provider.requests[2])
    wrapped = [
        e.event
        for e in events
        if isinstance(e, SubagentEvent) and isinstance(e.event, SubagentEvent)
    ]
    assert wrapped and all(e.parent_call_id == "t2" for e in wrapped)
    assert sessions_cmd.show(session_id, cwd=repo_env) == 0
    shown = capsys.readouterr().out
    assert "  │   ┌ subagent general-purpose" in shown
    assert "  │   │ grandchild report" in shown


async def test_depth_zero_offers_no_task_tool(fake_provider: FakeProvider, repo_env: Path) -> None:
    (repo_env / ".earshot").mkdir()
    (repo_env / ".earshot" / "settings.json").write_text('{"subagentDepth": 0}')
    fake_provider.script(anthropic.text_turn("fine"))
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        await turn(session, "hi")
    finally:
        await session.close()
    names = tool_names(fake_provider.requests[0])
    assert "task" not in names and "read" in names
