"""A running tool's progress reports reach the front-ends as ToolProgress events, while it
runs and never after its result."""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import pytest

from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.events import (
    AgentEvent,
    PermissionDecided,
    ToolFinished,
    ToolProgress,
)
from earshot.core.loop.model import ScriptedModel, call, calls
from earshot.core.tools.base import (
    AnyTool,
    PermissionRequest,
    ProgressFn,
    ToolContext,
    ToolResult,
    define_tool,
)
from tests.core.support import ScriptedGate, ended
from tests.core.test_loop import target

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class StepsArgs(msgspec.Struct, kw_only=True):
    label: str
    steps: int = 3


class Steps:
    """A tool that reports each step and waits until the test has seen that report."""

    def __init__(self) -> None:
        self.seen: dict[str, anyio.Event] = {}
        self.reporters: list[ProgressFn] = []

    def saw(self, event: ToolProgress) -> None:
        key = f"{event.call_id}:{event.progress}"
        self.seen.setdefault(key, anyio.Event()).set()

    def tools(self) -> list[AnyTool]:
        async def execute(args: StepsArgs, ctx: ToolContext) -> ToolResult:
            call_id = f"call_{args.label}"
            self.reporters.append(ctx.progress)
            for step in range(1, args.steps + 1):
                ctx.progress(f"{args.label} step {step}", float(step), float(args.steps))
                with anyio.fail_after(10):
                    await self.seen.setdefault(f"{call_id}:{float(step)}", anyio.Event()).wait()
            return ToolResult.text(f"{args.label} done")

        async def late(args: StepsArgs, ctx: ToolContext) -> ToolResult:
            for earlier in self.reporters:  # calls that have finished
                earlier("too late", 9.0, 9.0)
            return await execute(args, ctx)

        def permission(args: StepsArgs, ctx: ToolContext) -> PermissionRequest:
            return PermissionRequest(tool="late", kind="other", detail=args.label)

        return [
            define_tool(
                name="steps",
                description="Steps.",
                input_type=StepsArgs,
                execute=execute,
                read_only=True,
                touches_files=False,
            ),
            define_tool(
                name="late",
                description="Reports for finished calls, then steps.",
                input_type=StepsArgs,
                execute=late,
                read_only=False,
                permission=permission,
            ),
        ]


async def _turn(steps: Steps, tmp_path: Path, *parts: str) -> list[AgentEvent]:
    """One turn calling ``steps`` (or ``late``, for a name starting with "late") per part."""
    model = ScriptedModel.of(
        calls(
            *(
                call(f"call_{name}", "late" if name.startswith("late") else "steps", label=name)
                for name in parts
            )
        ),
        "done",
    )
    agent = Agent(
        AgentConfig(
            target=target(),
            tools=steps.tools(),
            cwd=tmp_path,
            system="You are a test agent.",
        ),
        AgentPorts(gate=ScriptedGate(), model=model),
    )
    events: list[AgentEvent] = []
    async for event in agent.run_turn("go"):
        events.append(event)
        if isinstance(event, ToolProgress):
            steps.saw(event)
    return events


async def test_progress_of_a_running_call_arrives_between_its_decision_and_result(
    tmp_path: Path,
) -> None:
    steps = Steps()
    events = await _turn(steps, tmp_path, "a")
    assert ended(events).reason == "end_turn"
    kinds = [type(e) for e in events]
    decided = kinds.index(PermissionDecided)
    finished = kinds.index(ToolFinished)
    progress = [e for e in events if isinstance(e, ToolProgress)]
    assert [(p.message, p.progress, p.total) for p in progress] == [
        ("a step 1", 1.0, 3.0),
        ("a step 2", 2.0, 3.0),
        ("a step 3", 3.0, 3.0),
    ]
    assert all(decided < events.index(p) < finished for p in progress)
    assert {p.call_id for p in progress} == {"call_a"}


async def test_concurrent_calls_report_under_their_own_call_ids(tmp_path: Path) -> None:
    steps = Steps()
    events = await _turn(steps, tmp_path, "a", "b")
    progress = [e for e in events if isinstance(e, ToolProgress)]
    by_call = {
        call_id: [p.message for p in progress if p.call_id == call_id]
        for call_id in ("call_a", "call_b")
    }
    assert by_call == {
        "call_a": ["a step 1", "a step 2", "a step 3"],
        "call_b": ["b step 1", "b step 2", "b step 3"],
    }


async def test_a_report_made_after_a_call_finished_is_never_sent(tmp_path: Path) -> None:
    # "a" (read-only) runs and finishes before the mutating "late" starts; "late" then
    # reports through a's reporter, which must go nowhere, and through its own
    steps = Steps()
    events = await _turn(steps, tmp_path, "a", "late")
    assert ended(events).reason == "end_turn"
    progress = [(e.call_id, e.message) for e in events if isinstance(e, ToolProgress)]
    assert ("call_a", "too late") not in progress
    assert ("call_late", "late step 3") in progress
    a_finished = next(
        i
        for i, e in enumerate(events)
        if isinstance(e, ToolFinished) and e.result.call_id == "call_a"
    )
    assert not any(
        isinstance(e, ToolProgress) and e.call_id == "call_a" for e in events[a_finished:]
    )
