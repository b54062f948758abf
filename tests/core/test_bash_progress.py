"""A running call's reports reach the turn's events: ``bash`` sends its last lines as
``ToolProgress`` between the call's ``PermissionDecided`` and its ``ToolFinished``. Real
bash on a scripted model; each command waits for a file the test creates when it has seen
the first line, so nothing depends on timing."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

import pytest

from earshot.core.loop.events import (
    AgentEvent,
    PermissionDecided,
    ToolFinished,
    ToolProgress,
)
from earshot.core.loop.model import call, calls
from earshot.core.tools.bash import TOOL as BASH
from tests.core.support import run
from tests.core.test_loop import agent_for
from tests.tools.test_bash import assert_gone

pytestmark = pytest.mark.anyio

WAIT_FOR_GO = "for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_bash_reports_its_last_lines_while_it_runs(tmp_path: Path) -> None:
    command = f"x=LIVE; echo FIRST-$x; {WAIT_FOR_GO}; echo SECOND-$x"
    agent, _ = agent_for(tmp_path, [BASH], calls(call("c1", "bash", command=command)), "done")

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, ToolProgress) and "FIRST-LIVE" in event.message:
            (tmp_path / "go").touch()

    events = await run(agent, "run it", on_event)
    kinds = [
        type(e).__name__
        for e in events
        if isinstance(e, (PermissionDecided, ToolProgress, ToolFinished))
    ]
    assert kinds[0] == "PermissionDecided" and kinds[-1] == "ToolFinished"
    assert set(kinds[1:-1]) == {"ToolProgress"}
    reports = [e for e in events if isinstance(e, ToolProgress)]
    assert reports[0].call_id == "c1" and reports[0].message == "FIRST-LIVE"
    assert reports[0].progress is None and reports[0].total is None
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert "SECOND-LIVE" in str(finished.result.content)


async def test_a_consumer_that_stops_mid_call_leaves_no_command_running(tmp_path: Path) -> None:
    command = f'echo "pid=$$"; {WAIT_FOR_GO}'
    agent, _ = agent_for(tmp_path, [BASH], calls(call("c1", "bash", command=command)), "done")
    turn = agent.run_turn("run it")
    assert isinstance(turn, AsyncGenerator)
    pid = 0
    async for event in turn:
        if isinstance(event, ToolProgress):
            pid = int(event.message.removeprefix("pid="))
            break
    await turn.aclose()
    await assert_gone(pid)
    assert not agent.running
