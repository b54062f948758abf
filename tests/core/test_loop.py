"""The agent loop itself, on a scripted model (no HTTP): tool batches, order, denials,
aborts, steering, limits. What each wire does with the same turns is in test_agent.py."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest

from earshot.core.loop._execute import HEADLESS_DENIAL
from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.events import (
    AgentEvent,
    PermissionDecided,
    ToolCallRequested,
    ToolFinished,
    UserMessageInjected,
)
from earshot.core.loop.input import InputError
from earshot.core.loop.model import ScriptedModel, ScriptedReply, call, calls
from earshot.core.tools.base import AnyTool
from earshot.core.tools.edit import TOOL as EDIT
from earshot.core.tools.read import TOOL as READ
from earshot.providers import types as pt
from earshot.providers.models import Cost, ModelInfo
from earshot.providers.target import Secret, Target
from tests.core.support import (
    Recorder,
    ScriptedGate,
    ended,
    run,
    sample_tools,
    tool_results,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def target(*, vision: bool = True) -> Target:
    info = ModelInfo(
        id="scripted",
        provider="test",
        context=200_000,
        max_output=8192,
        vision=vision,
        tool_call=True,
        cost=Cost(input=3.0, output=15.0),
    )
    return Target(
        provider="test",
        wire="anthropic-messages",
        base_url="http://127.0.0.1:9",  # never dialled: the model is scripted
        model="scripted",
        auth="x-api-key",
        api_key=Secret("unused"),
        info=info,
    )


def agent_for(
    cwd: Path,
    tools: Sequence[AnyTool],
    *replies: ScriptedReply | str,
    gate: ScriptedGate | None = None,
    delay: float = 0.0,
    **options: int | float,
) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel.of(*replies, delay=delay)
    agent = Agent(
        AgentConfig(
            target=target(),
            tools=tools,
            cwd=cwd,
            system="You are a test agent.",
            max_turns=int(options["max_turns"]) if "max_turns" in options else None,
            max_budget_usd=options.get("max_budget_usd"),
        ),
        AgentPorts(gate=gate or ScriptedGate(), model=model),
    )
    return agent, model


def echo(n: int, text: str, delay: float = 0.0) -> pt.ToolCallPart:
    if delay:
        return call(f"call_{n}", "echo", text=text, delay=delay)
    return call(f"call_{n}", "echo", text=text)


def text(result: pt.ToolResultPart) -> str:
    return pt.text_of(pt.Message(role="tool", parts=list(result.content)))


def assert_every_call_answered(messages: Sequence[pt.Message]) -> None:
    """Each assistant message's tool calls are answered, once each and in order, by the
    tool message right after it; no result answers nothing."""
    for index, message in enumerate(messages):
        asked = [p.id for p in message.parts if isinstance(p, pt.ToolCallPart)]
        answered = [p.call_id for p in message.parts if isinstance(p, pt.ToolResultPart)]
        if message.role == "tool":
            before = messages[index - 1] if index else None
            assert before is not None and before.role == "assistant", f"orphan results {answered}"
        if asked:
            after = messages[index + 1] if index + 1 < len(messages) else None
            assert after is not None and after.role == "tool", f"unanswered calls {asked}"
            got = [p.call_id for p in after.parts if isinstance(p, pt.ToolResultPart)]
            assert got == asked


async def test_parallel_read_only_calls_keep_emission_order(tmp_path: Path) -> None:
    recorder = Recorder()
    agent, model = agent_for(
        tmp_path,
        sample_tools(recorder),
        calls(echo(1, "slow", 0.3), echo(2, "medium", 0.15), echo(3, "fast")),
        "ok",
    )
    events = await run(agent, "three reads")
    assert recorder.peak == 3
    assert recorder.finished == ["fast", "medium", "slow"]
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [text(r) for r in finished] == ["echo: slow", "echo: medium", "echo: fast"]
    assert [r.call_id for r in tool_results(agent)] == [r.call_id for r in finished]
    assert_every_call_answered(model.requests[-1].messages)


async def test_mutating_calls_run_one_at_a_time(tmp_path: Path) -> None:
    recorder = Recorder()
    agent, _ = agent_for(
        tmp_path,
        sample_tools(recorder),
        calls(
            call("c1", "touch", text="a.txt", delay=0.1),
            call("c2", "touch", text="b.txt", delay=0.1),
        ),
        "ok",
    )
    await run(agent, "two writes")
    assert recorder.peak == 1
    assert (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").exists()


async def test_unknown_tool_invalid_arguments_and_a_raising_tool_become_results(
    tmp_path: Path,
) -> None:
    agent, model = agent_for(
        tmp_path,
        sample_tools(Recorder()),
        calls(
            call("c1", "teleport", to="mars"),
            call("c2", "echo", txt="typo"),
            call("c3", "boom", text="now"),
            call("c4", "refuse", text="that"),
            echo(5, "fine"),
        ),
        "recovered",
    )
    end = ended(await run(agent, "try things"))
    assert end.reason == "end_turn"
    found = tool_results(agent)
    assert len(found) == 5
    unknown, invalid, raised, refused, fine = (text(r) for r in found)
    assert "unknown tool 'teleport'" in unknown
    assert "echo" in unknown
    assert "invalid arguments for echo" in invalid
    assert "boom failed: RuntimeError: kaboom now" in raised
    assert "try echo instead" in refused
    assert fine == "echo: fine"
    assert [r.is_error for r in found] == [True, True, True, True, False]
    assert_every_call_answered(model.requests[-1].messages)


async def test_denied_and_unapprovable_calls_are_reported(tmp_path: Path) -> None:
    gate = ScriptedGate(ask={"touch"}, deny={"boom"})
    agent, _ = agent_for(
        tmp_path,
        sample_tools(Recorder()),
        calls(call("c1", "touch", text="x.txt"), call("c2", "boom", text="y")),
        "fine",
        gate=gate,
    )
    events = await run(agent, "do it")
    decisions = [e for e in events if isinstance(e, PermissionDecided)]
    assert [(d.tool, d.outcome, d.asked) for d in decisions] == [
        ("touch", "deny", True),
        ("boom", "deny", False),
    ]
    assert decisions[0].reason == HEADLESS_DENIAL
    assert not (tmp_path / "x.txt").exists()
    end = ended(events)
    assert [d.tool for d in end.permission_denials] == ["touch", "boom"]
    assert all(r.is_error for r in tool_results(agent))


async def test_abort_mid_stream_keeps_what_was_said_and_the_next_turn_works(
    tmp_path: Path,
) -> None:
    agent, model = agent_for(
        tmp_path,
        sample_tools(Recorder()),
        calls(echo(1, "never"), say="let me look"),
        "after",
        delay=0.2,
    )

    def on_event(event: AgentEvent) -> None:
        if type(event).__name__ == "TextDelta":
            agent.abort()

    assert ended(await run(agent, "talk", on_event)).reason == "aborted"
    assert ended(await run(agent, "again")).text == "after"
    assert_every_call_answered(model.requests[-1].messages)


async def test_abort_mid_tool_gives_every_call_a_result(tmp_path: Path) -> None:
    recorder = Recorder()
    agent, model = agent_for(
        tmp_path,
        sample_tools(recorder),
        calls(echo(1, "forever", 30.0), echo(2, "never")),
        "next turn",
    )
    decided: list[PermissionDecided] = []

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, PermissionDecided):
            decided.append(event)
            if len(decided) == 2:
                agent.abort()

    events = await run(agent, "wait", on_event)
    assert ended(events).reason == "aborted"
    found = tool_results(agent)
    assert len(found) == 2
    assert all(r.is_error for r in found)
    assert "forever" not in recorder.finished
    assert ended(await run(agent, "continue")).text == "next turn"
    assert_every_call_answered(model.requests[-1].messages)


async def test_abort_interrupts_a_running_tool(tmp_path: Path) -> None:
    recorder = Recorder()
    agent, _ = agent_for(
        tmp_path, sample_tools(recorder), calls(echo(1, "forever", 30.0)), "next turn"
    )
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
    assert "interrupted" in text(result)


async def test_queued_message_lands_between_model_calls(tmp_path: Path) -> None:
    agent, model = agent_for(
        tmp_path, sample_tools(Recorder()), calls(echo(1, "work", 0.2)), "noted"
    )

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, ToolCallRequested):
            agent.queue_user_message("also check the docs")

    events = await run(agent, "start", on_event)
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("UserMessageInjected") > kinds.index("ToolFinished")
    assert [m.role for m in agent.history] == ["user", "assistant", "tool", "user", "assistant"]
    first, second = (str(r.messages) for r in model.requests)
    assert "also check the docs" in second
    assert "also check the docs" not in first
    assert any(isinstance(e, UserMessageInjected) for e in events)


async def test_edit_refused_for_an_ambiguous_match(tmp_path: Path) -> None:
    target_file = tmp_path / "app.py"
    original = "x = 1\nprint(x)\nx = 1\n"
    target_file.write_text(original)
    agent, _ = agent_for(
        tmp_path,
        [READ, EDIT],
        calls(call("r1", "read", path="app.py")),
        calls(call("e1", "edit", path="app.py", old_string="x = 1", new_string="x = 2")),
        "I need more context.",
    )
    ended(await run(agent, "change x"))
    edit_result = tool_results(agent)[1]
    assert edit_result.is_error
    assert "2" in text(edit_result)
    assert target_file.read_text() == original


async def test_max_turns_and_budget_stop_before_the_next_call(tmp_path: Path) -> None:
    agent, model = agent_for(
        tmp_path, sample_tools(Recorder()), calls(echo(1, "a")), calls(echo(2, "b")), max_turns=1
    )
    assert ended(await run(agent, "loop")).reason == "max_turns"
    assert len(model.requests) == 1
    budget, spent = agent_for(
        tmp_path, sample_tools(Recorder()), calls(echo(1, "a")), "b", max_budget_usd=0.000001
    )
    assert ended(await run(budget, "loop")).reason == "budget"
    assert len(spent.requests) == 1


async def test_images_for_a_model_without_vision_are_refused_before_sending(
    tmp_path: Path,
) -> None:
    agent, model = agent_for(tmp_path, sample_tools(Recorder()), "never")
    agent.target = target(vision=False)
    image = pt.ImagePart(media_type="image/png", url="https://example.com/a.png")
    with pytest.raises(InputError, match="does not accept images"):
        async for _ in agent.run_turn([pt.TextPart(text="look"), image]):
            pass
    assert agent.history == []
    assert model.requests == []
