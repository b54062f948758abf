"""One typed prompt, dozens of tool batches: a long headless task must fit the window.

A real loop, real bash printing ~13 kB per call, real HTTP to a fake provider that refuses
every request over a small window with the vendor's own overflow error, on all four wires.
The run must succeed, every request after an overflow must fit and still hold the typed
prompt, and the transcript must still hold every tool output in full.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.context import ContextPolicy, plan_compaction, preamble, shape
from earshot.core.loop.events import CompactionEnded, TurnEnded
from earshot.core.session import Session, SessionStore
from earshot.core.session.entries import MessageEntry
from earshot.core.tools.bash import TOOL as BASH
from earshot.providers import types as pt
from earshot.providers.models import ModelInfo
from tests.core.support import FAST_MODEL, WIRES, ScriptedGate, WireCase, run
from tests.fake_provider import (
    FakeProvider,
    RecordedRequest,
    Reply,
    ToolCallSpec,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)

pytestmark = pytest.mark.anyio

PROMPT = "Run the thirty-two survey commands one after another and report when all are done."
CALLS = 32
WINDOW = 24_000  # tokens the catalog claims
LIMIT = 56_000  # request bytes the provider really accepts (about 14k tokens)
SUMMARY = "## Goal and instructions\n- run the survey commands\n## Current step\n- keep going"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def command(n: int) -> str:
    return f"seq -f 'call {n:02d} line %04g: the quick brown fox jumps over it' 1 300"


def overflow(case: WireCase, size: int) -> Reply:
    """The vendor's own answer to a prompt over its window."""
    tokens = size // 4
    match case.wire:
        case "anthropic-messages":
            return anthropic.error_reply(
                400, f"prompt is too long: {tokens} tokens > {LIMIT // 4} maximum"
            )
        case "openai-chat":
            return openai_chat.error_reply(
                400,
                f"This model's maximum context length is {LIMIT // 4} tokens. However, your "
                f"messages resulted in {tokens} tokens. Please reduce the length of the "
                "messages.",
                code="context_length_exceeded",
                param="messages",
            )
        case "openai-responses":
            return openai_responses.in_stream_error(
                message="Your input exceeds the context window of this model. Please adjust "
                "your input and try again.",
                code="context_length_exceeded",
                error_type="invalid_request_error",
            )
        case _:
            return gemini.error_reply(
                400,
                f"The input token count ({tokens}) exceeds the maximum number of tokens "
                f"allowed ({LIMIT // 4}).",
            )


class Window:
    """The provider's side: refuse what is too long, write summaries, log every verdict."""

    def __init__(self, case: WireCase) -> None:
        self.case = case
        self.verdicts: list[tuple[bool, bool, RecordedRequest]] = []  # (refused, summary, req)

    def __call__(self, request: RecordedRequest) -> Reply | None:
        summary = "Summarise this coding session" in request.body.decode()
        refused = len(request.body) > LIMIT
        self.verdicts.append((refused, summary, request))
        if refused:
            return overflow(self.case, len(request.body))
        if summary:
            return self.case.text(SUMMARY)
        return None


def agent_for(case: WireCase, fake: FakeProvider, cwd: Path, session: Session) -> Agent:
    target = case.target(fake)
    assert target.info is not None
    small = ModelInfo(
        id=target.info.id, provider=target.info.provider, context=WINDOW, cost=target.info.cost
    )
    return Agent(
        AgentConfig(target=replace(target, info=small), tools=[BASH], cwd=cwd),
        AgentPorts(gate=ScriptedGate(), model=FAST_MODEL, transcript=session),
    )


@pytest.mark.parametrize("case", WIRES, ids=[c.name for c in WIRES])
async def test_a_hundred_kilobyte_turn_of_tool_calls_fits_the_window(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    window = Window(case)
    fake_provider.responder = window
    fake_provider.script(
        *(
            case.calls(ToolCallSpec(f"call_{n:02d}", "bash", {"command": command(n)}))
            for n in range(1, CALLS + 1)
        ),
        case.text("All thirty-two commands ran."),
    )
    session = SessionStore(tmp_path).create(model=f"{case.provider}/test-model")
    agent = agent_for(case, fake_provider, tmp_path, session)

    events = await run(agent, PROMPT)

    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert (end.reason, end.text) == ("end_turn", "All thirty-two commands ran."), end.error
    refused = [i for i, (no, _, _) in enumerate(window.verdicts) if no]
    assert len(refused) >= 5, "the window was rarely exceeded: the test proves little"
    for index in refused:
        assert not window.verdicts[index + 1][0], "a request right after an overflow was refused"
    for _, _, request in window.verdicts:
        assert PROMPT in request.body.decode()
    assert any(isinstance(e, CompactionEnded) and e.reason == "overflow" for e in events)
    fake_provider.assert_protocol_invariants()
    outputs = "".join(
        pt.text_of(pt.Message(role="tool", parts=list(part.content)))
        for entry in session.entries()
        if isinstance(entry, MessageEntry)
        for part in entry.message.parts
        if isinstance(part, pt.ToolResultPart)
    )
    for n in range(1, CALLS + 1):
        assert f"call {n:02d} line 0001:" in outputs
        assert f"call {n:02d} line 0300:" in outputs
    session.close()


async def test_an_overflow_nothing_can_fix_names_the_window_and_what_could_not_be_cut(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    case = WIRES[0]
    fake_provider.responder = lambda request: anthropic.error_reply(
        400, "prompt is too long: 30000 tokens > 10 maximum"
    )
    session = SessionStore(tmp_path).create(model="anthropic/test-model")
    agent = agent_for(case, fake_provider, tmp_path, session)
    events = await run(agent, PROMPT)
    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert (end.reason, end.error_kind) == ("error", "context_overflow")
    assert end.error is not None
    assert f"({WINDOW:,} tokens)" in end.error
    assert "could not be cut" in end.error
    session.close()


# --- the pieces ---------------------------------------------------------------------------


def _turn(batches: int, size: int = 10_000) -> list[pt.Message]:
    history = [pt.Message(role="user", parts=[pt.TextPart(text=PROMPT)])]
    for n in range(batches):
        call = pt.ToolCallPart(id=f"c{n}", name="bash", input={"command": f"echo {n}"})
        history.append(pt.Message(role="assistant", parts=[call]))
        result = pt.ToolResultPart(
            call_id=f"c{n}", name="bash", content=[pt.TextPart(text=f"{n}:" + "x" * size)]
        )
        history.append(pt.Message(role="tool", parts=[result]))
    return history


def _result_sizes(messages: list[pt.Message]) -> list[int]:
    return [
        sum(len(c.text) for c in part.content if isinstance(c, pt.TextPart))
        for m in messages
        if m.role == "tool"
        for part in m.parts
        if isinstance(part, pt.ToolResultPart)
    ]


def test_old_batches_of_one_turn_are_capped_then_pruned_in_steps() -> None:
    policy = ContextPolicy(cap_after_batches=4, prune_after_batches=8, batch_step=2)
    sizes = _result_sizes(shape(_turn(13), policy))
    assert all(s < 400 for s in sizes[:4])  # stubs: more than 8 batches old (in steps of 2)
    assert all(s < 9_000 for s in sizes[4:8])  # capped to old_result_chars
    assert all(s > 10_000 for s in sizes[8:])  # the newest, whole
    assert (
        _result_sizes(shape(_turn(12), policy))[:5] == _result_sizes(shape(_turn(13), policy))[:5]
    )  # one more batch moves no line


def test_a_cut_inside_the_turn_keeps_the_last_batches_and_quotes_the_prompt() -> None:
    history = _turn(10)
    plan = plan_compaction(history, ContextPolicy(keep_batches=3), 200_000)
    assert plan is not None and plan.inside_turn
    kept = history[plan.kept_from :]
    assert kept[0].role == "assistant"
    assert len([m for m in kept if m.role == "tool"]) == 3
    messages = preamble("summary", plan, [])
    assert [m.role for m in messages] == ["user"]  # then the model's own tool calls
    assert PROMPT in pt.text_of(messages[0])


def test_a_cut_keeps_fewer_batches_when_they_do_not_fit_and_none_when_asked() -> None:
    history = _turn(10, size=40_000)
    plan = plan_compaction(history, ContextPolicy(keep_batches=4), 30_000)
    assert plan is not None
    assert len([m for m in history[plan.kept_from :] if m.role == "tool"]) < 4
    nothing = plan_compaction(history, ContextPolicy(), 200_000, keep_batches=0)
    assert nothing is not None and nothing.kept_from == len(history)
    assert plan_compaction(_turn(0), ContextPolicy(), 200_000) is None


def test_the_cut_by_turns_still_applies_when_the_kept_turns_fit() -> None:
    history = [
        *_turn(2, size=100),
        pt.Message(role="assistant", parts=[pt.TextPart(text="done")]),
        pt.Message(role="user", parts=[pt.TextPart(text="second")]),
        pt.Message(role="assistant", parts=[pt.TextPart(text="ok")]),
        pt.Message(role="user", parts=[pt.TextPart(text="third")]),
    ]
    plan = plan_compaction(history, ContextPolicy(keep_turns=2), 200_000)
    assert plan is not None and not plan.inside_turn
    assert json.dumps(pt.text_of(history[plan.kept_from])) == '"second"'
