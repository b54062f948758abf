"""The agent loop over real HTTP against the fake provider, for every wire."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    TextDelta,
)
from earshot.providers import types as pt
from tests.core.support import (
    WIRES,
    Recorder,
    WireCase,
    ended,
    make_agent,
    run,
    sample_tools,
    tool_results,
)
from tests.fake_provider import FakeProvider, ToolCallSpec


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=WIRES, ids=[w.name for w in WIRES])
def case(request: pytest.FixtureRequest) -> WireCase:
    wire: WireCase = request.param
    return wire


def echo(n: int, text: str, delay: float = 0.0) -> ToolCallSpec:
    args: dict[str, pt.JSONValue] = {"text": text}
    if delay:
        args["delay"] = delay
    return ToolCallSpec(f"call_{n}", "echo", args)


pytestmark = pytest.mark.anyio


async def test_plain_answer(case: WireCase, fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.script(case.text("Hello there."))
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))
    events = await run(agent, "Say hello")
    end = ended(events)
    assert end.reason == "end_turn"
    assert end.text == "Hello there."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there."
    assert [m.role for m in agent.history] == ["user", "assistant"]
    assert b"Say hello" in fake_provider.requests[0].body
    assert end.cost_usd is not None
    assert end.cost_usd > 0


async def test_twenty_step_tool_loop(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(
        *[case.calls(echo(i, f"step {i}")) for i in range(20)], case.text("All done.")
    )
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))
    end = ended(await run(agent, "Do twenty steps"))
    assert end.reason == "end_turn"
    assert end.model_calls == 21
    assert len(fake_provider.requests) == 21
    results = tool_results(agent)
    assert [pt.text_of(pt.Message(role="tool", parts=list(r.content))) for r in results] == [
        f"echo: step {i}" for i in range(20)
    ]
    fake_provider.assert_protocol_invariants()


async def test_abort_mid_stream_leaves_a_valid_history(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    slow = dataclasses.replace(case.text("one two three four five six"), delay=0.3)
    fake_provider.script(slow, case.text("after"))
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            agent.abort()

    end = ended(await run(agent, "talk", on_event))
    assert end.reason == "aborted"
    assert agent.history[0].role == "user"
    end2 = ended(await run(agent, "again"))
    assert end2.text == "after"
    fake_provider.assert_protocol_invariants()


async def test_model_failure_after_retries_ends_the_turn(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    failure = case.builders.error_reply(503, "overloaded right now")
    fake_provider.script(failure, failure)
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))
    end = ended(await run(agent, "hi"))
    assert end.reason == "error"
    assert end.error_kind == "server"
    assert len(fake_provider.requests) == 2


async def test_assistant_message_reports_usage_and_cost(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(case.text("priced"))
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))
    events = await run(agent, "cost?")
    message = next(e for e in events if isinstance(e, AssistantMessage))
    assert message.usage.input + message.usage.cache_read + message.usage.output > 0
    assert message.cost_usd == pytest.approx(
        (
            message.usage.input * 3.0
            + message.usage.output * 15.0
            + message.usage.cache_read * 0.3
            + message.usage.cache_write * 3.75
        )
        / 1e6
    )


async def test_switching_models_keeps_foreign_metadata_out_of_the_request(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    from tests.fake_provider import anthropic, openai_chat

    claude, chat = WIRES[0], WIRES[1]
    fake_provider.script(
        anthropic.reasoning_turn("thinking hard", "First answer.", signature="sig-keep-me"),
        openai_chat.text_turn("Second answer."),
    )
    agent = make_agent(claude, fake_provider, tmp_path, sample_tools(Recorder()))
    ended(await run(agent, "question one"))
    reasoning = agent.history[1].parts[0]
    assert isinstance(reasoning, pt.ReasoningPart)
    assert reasoning.provider_metadata == {"anthropic": {"signature": "sig-keep-me"}}
    await agent.switch_model(chat.target(fake_provider))
    end = ended(await run(agent, "question two"))
    assert end.text == "Second answer."
    sent = fake_provider.requests[1].body
    assert b"First answer." in sent
    assert b"sig-keep-me" not in sent
    assert b"thinking hard" not in sent
    assert isinstance(agent.history[1].parts[0], pt.ReasoningPart)
