"""The agent loop over real HTTP against the fake provider, for every wire."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import anyio
import pytest

from earshot.core._execute import HEADLESS_DENIAL
from earshot.core.agent import Agent
from earshot.core.events import (
    AgentEvent,
    AssistantMessage,
    PermissionDecided,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    TurnEnded,
    UserMessageInjected,
)
from earshot.core.input import InputError
from earshot.core.tools.edit import TOOL as EDIT
from earshot.core.tools.read import TOOL as READ
from earshot.providers import types as pt
from tests.core.support import (
    WIRES,
    Recorder,
    ScriptedGate,
    WireCase,
    make_agent,
    run,
    sample_tools,
)
from tests.fake_provider import FakeProvider, ToolCallSpec


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=WIRES, ids=[w.name for w in WIRES])
def case(request: pytest.FixtureRequest) -> WireCase:
    wire: WireCase = request.param
    return wire


def ended(events: list[AgentEvent]) -> TurnEnded:
    last = events[-1]
    assert isinstance(last, TurnEnded)
    assert sum(isinstance(e, TurnEnded) for e in events) == 1
    return last


def tool_results(agent: Agent) -> list[pt.ToolResultPart]:
    return [
        part
        for message in agent.history
        if message.role == "tool"
        for part in message.parts
        if isinstance(part, pt.ToolResultPart)
    ]


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


async def test_parallel_read_only_calls_keep_emission_order(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    recorder = Recorder()
    fake_provider.script(
        case.calls(echo(1, "slow", 0.3), echo(2, "medium", 0.15), echo(3, "fast")),
        case.text("ok"),
    )
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(recorder))
    events = await run(agent, "three reads")
    assert recorder.peak == 3
    assert recorder.finished == ["fast", "medium", "slow"]
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    texts = [r.content[0] for r in finished]
    assert [t.text for t in texts if isinstance(t, pt.TextPart)] == [
        "echo: slow",
        "echo: medium",
        "echo: fast",
    ]
    assert [r.call_id for r in tool_results(agent)] == [r.call_id for r in finished]
    fake_provider.assert_protocol_invariants()


async def test_mutating_calls_run_one_at_a_time(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    recorder = Recorder()
    fake_provider.script(
        case.calls(
            ToolCallSpec("c1", "touch", {"text": "a.txt", "delay": 0.1}),
            ToolCallSpec("c2", "touch", {"text": "b.txt", "delay": 0.1}),
        ),
        case.text("ok"),
    )
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(recorder))
    await run(agent, "two writes")
    assert recorder.peak == 1
    assert (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").exists()


async def test_unknown_tool_invalid_arguments_and_a_raising_tool_become_results(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(
        case.calls(
            ToolCallSpec("c1", "teleport", {"to": "mars"}),
            ToolCallSpec("c2", "echo", {"txt": "typo"}),
            ToolCallSpec("c3", "boom", {"text": "now"}),
            ToolCallSpec("c4", "refuse", {"text": "that"}),
            echo(5, "fine"),
        ),
        case.text("recovered"),
    )
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))
    end = ended(await run(agent, "try things"))
    assert end.reason == "end_turn"
    results = tool_results(agent)
    assert len(results) == 5
    unknown, invalid, raised, refused, fine = (
        pt.text_of(pt.Message(role="tool", parts=list(r.content))) for r in results
    )
    assert "unknown tool 'teleport'" in unknown
    assert "echo" in unknown
    assert "invalid arguments for echo" in invalid
    assert "boom failed: RuntimeError: kaboom now" in raised
    assert "try echo instead" in refused
    assert fine == "echo: fine"
    assert [r.is_error for r in results] == [True, True, True, True, False]
    fake_provider.assert_protocol_invariants()


async def test_denied_and_unapprovable_calls_are_reported(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(
        case.calls(
            ToolCallSpec("c1", "touch", {"text": "x.txt"}),
            ToolCallSpec("c2", "boom", {"text": "y"}),
        ),
        case.text("fine"),
    )
    gate = ScriptedGate(ask={"touch"}, deny={"boom"})
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()), gate=gate)
    events = await run(agent, "do it")
    decisions = [e for e in events if isinstance(e, PermissionDecided)]
    assert [(d.tool, d.outcome, d.asked) for d in decisions] == [
        ("touch", "deny", True),
        ("boom", "deny", False),
    ]
    assert decisions[0].reason == HEADLESS_DENIAL
    assert not (tmp_path / "x.txt").exists()
    end = ended(events)
    assert [d["tool"] for d in end.permission_denials] == ["touch", "boom"]
    assert all(r.is_error for r in tool_results(agent))


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


async def test_abort_mid_tool_gives_every_call_a_result(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    recorder = Recorder()
    fake_provider.script(
        case.calls(echo(1, "forever", 30.0), echo(2, "never")),
        case.text("next turn"),
    )
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(recorder))

    decided: list[PermissionDecided] = []

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, PermissionDecided):
            decided.append(event)
            if len(decided) == 2:
                agent.abort()

    events = await run(agent, "wait", on_event)
    assert ended(events).reason == "aborted"
    results = tool_results(agent)
    assert len(results) == 2
    assert all(r.is_error for r in results)
    assert "forever" not in recorder.finished
    assert ended(await run(agent, "continue")).text == "next turn"
    fake_provider.assert_protocol_invariants()


async def test_queued_message_lands_between_model_calls(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(case.calls(echo(1, "work", 0.2)), case.text("noted"))
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, ToolCallRequested):
            agent.queue_user_message("also check the docs")

    events = await run(agent, "start", on_event)
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("UserMessageInjected") > kinds.index("ToolFinished")
    assert [m.role for m in agent.history] == ["user", "assistant", "tool", "user", "assistant"]
    assert b"also check the docs" in fake_provider.requests[1].body
    assert b"also check the docs" not in fake_provider.requests[0].body
    assert any(isinstance(e, UserMessageInjected) for e in events)
    fake_provider.assert_protocol_invariants()


async def test_edit_refused_for_an_ambiguous_match(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    target = tmp_path / "app.py"
    original = "x = 1\nprint(x)\nx = 1\n"
    target.write_text(original)
    fake_provider.script(
        case.calls(ToolCallSpec("r1", "read", {"path": "app.py"})),
        case.calls(
            ToolCallSpec(
                "e1", "edit", {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
            )
        ),
        case.text("I need more context."),
    )
    agent = make_agent(case, fake_provider, tmp_path, [READ, EDIT])
    ended(await run(agent, "change x"))
    edit_result = tool_results(agent)[1]
    assert edit_result.is_error
    text = pt.text_of(pt.Message(role="tool", parts=list(edit_result.content)))
    assert "2" in text
    assert target.read_text() == original
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


async def test_max_turns_and_budget_stop_before_the_next_call(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(case.calls(echo(1, "a")), case.calls(echo(2, "b")))
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()), max_turns=1)
    end = ended(await run(agent, "loop"))
    assert end.reason == "max_turns"
    assert len(fake_provider.requests) == 1
    budget = make_agent(
        case, fake_provider, tmp_path, sample_tools(Recorder()), max_budget_usd=0.000001
    )
    end = ended(await run(budget, "loop"))
    assert end.reason == "budget"
    assert len(fake_provider.requests) == 2


async def test_images_for_a_model_without_vision_are_refused_before_sending(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(Recorder()))
    agent.target = case.target(fake_provider, vision=False)
    image = pt.ImagePart(media_type="image/png", url="https://example.com/a.png")
    with pytest.raises(InputError, match="does not accept images"):
        async for _ in agent.run_turn([pt.TextPart(text="look"), image]):
            pass
    assert agent.history == []
    assert fake_provider.requests == []


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


async def test_abort_interrupts_a_running_tool(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    recorder = Recorder()
    fake_provider.script(case.calls(echo(1, "forever", 30.0)), case.text("next turn"))
    agent = make_agent(case, fake_provider, tmp_path, sample_tools(recorder))
    events: list[AgentEvent] = []
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:

            async def stop_when_running() -> None:
                await recorder.any_started.wait()
                agent.abort()

            tg.start_soon(stop_when_running)
            events = await run(agent, "wait")
    assert ended(events).reason == "aborted"
    assert recorder.started == ["forever"]
    assert recorder.finished == []
    (result,) = tool_results(agent)
    assert result.is_error
    assert "interrupted" in pt.text_of(pt.Message(role="tool", parts=list(result.content)))
    fake_provider.assert_protocol_invariants()


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
