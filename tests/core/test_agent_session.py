"""AgentSession, the one object every front-end holds: turns, commands, rewind, reopening,
cost and mode, over a real transcript and the fake provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.core import commands
from earshot.core.agent_session import AgentSession, CommandError
from earshot.core.config.options import SessionOptions
from earshot.core.loop.events import AgentEvent, TurnEnded
from earshot.providers import types as pt
from tests.fake_provider import FakeProvider, anthropic

pytestmark = pytest.mark.anyio

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def ask(session: AgentSession, text: str) -> TurnEnded:
    events: list[AgentEvent] = [e async for e in session.prompt(text)]
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last


async def test_a_turn_then_cost_mode_and_model_through_the_command_table(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Hello."))
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        assert (await ask(session, "hi")).text == "Hello."
        cost = session.cost()
        assert cost.total_usd is not None and cost.total_usd > 0
        assert cost.usage.input > 0
        reply = await commands.run(session, "/cost", everywhere=True)
        assert reply is not None and reply.text.startswith("Session cost: $")
        reply = await commands.run(session, "/mode plan")
        assert reply is not None and reply.text == "Permission mode: plan"
        assert session.mode == "plan"
        refused = await commands.run(session, "/mode sideways")
        assert refused is not None and refused.error
        assert "unknown permission mode" in refused.text
        with pytest.raises(CommandError):
            await session.switch_model("nope/nothing")
        assert session.model == MODEL
        assert await commands.run(session, "/undo", everywhere=True) is None
        assert await commands.run(session, "hello /cost") is None
    finally:
        await session.close()


async def test_rewind_continues_from_before_a_message_in_place(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(*(anthropic.text_turn(f"answer {n}") for n in (1, 2, 3)))
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        await ask(session, "question 1")
        await ask(session, "question 2")
        reply = await commands.run(session, "/rewind 2")
        assert reply is not None and reply.edit == "question 2"
        assert reply.session is None  # the same session goes on
        assert [pt.text_of(m) for m in session.history] == ["question 1", "answer 1"]
        await ask(session, "question 3")
        sent = json.dumps(fake_provider.requests[-1].json()["messages"])
        assert "question 1" in sent and "question 2" not in sent
    finally:
        await session.close()


async def test_clear_resume_and_fork_hand_over_a_new_session(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(anthropic.text_turn("first answer"))
    first = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    await ask(first, "first question")
    first.set_mode("yolo")
    cleared = await commands.run(first, "/clear")
    assert cleared is not None and cleared.session is not None
    fresh = cleared.session
    assert fresh.id != first.id and fresh.history == []
    assert fresh.mode == "yolo" and fresh.model == MODEL
    resumed = await commands.run(fresh, f"/resume {first.id}")
    assert resumed is not None and resumed.session is not None and resumed.replay
    back = resumed.session
    assert back.id == first.id
    assert [pt.text_of(m) for m in back.history] == ["first question", "first answer"]
    forked = await commands.run(back, "/fork")
    assert forked is not None and forked.session is not None
    branch = forked.session
    assert branch.id != first.id and len(branch.history) == 2
    await branch.close()


async def test_a_session_that_cannot_be_resumed_falls_back_to_a_new_one(
    repo_env: Path,
) -> None:
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    replaced, error = await session.reopen(resume="0000-no-such-session")
    try:
        assert error is not None and "0000-no-such-session" in error
        assert replaced.history == [] and replaced.model == MODEL
    finally:
        await replaced.close()
