"""The agent loop with the real gate and the real file tools: a file a Read deny rule covers
reaches neither the model nor the events a front-end shows, whichever tool asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.events import ToolCallRequested
from earshot.core.permissions import PermissionGate
from earshot.core.tools.registry import builtin_tools
from tests.core.support import FAST_MODEL, WIRES, WireCase, run
from tests.fake_provider import FakeProvider, ToolCallSpec
from tests.permissions.helpers import ruleset

SECRET = "TOKEN=4f1c9e-do-not-send"
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("case", WIRES[:2], ids=[w.name for w in WIRES[:2]])
async def test_no_tool_and_no_event_carries_a_denied_file(
    case: WireCase, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text(f"{SECRET}\nOTHER=1\n")
    (tmp_path / "app.py").write_text("print(1)\n")
    calls = [
        ToolCallSpec("c1", "read", {"path": ".env"}),
        ToolCallSpec("c2", "edit", {"path": ".env", "old_string": "OTHER=1", "new_string": "x"}),
        ToolCallSpec("c3", "grep", {"pattern": "TOKEN", "path": ".", "output_mode": "content"}),
        ToolCallSpec("c4", "glob", {"pattern": "**/*"}),
        ToolCallSpec("c5", "ls", {"path": "."}),
    ]
    fake_provider.script(case.calls(*calls), case.text("done"))
    gate = PermissionGate(ruleset(tmp_path, deny=["Read(./.env)"]), "yolo", tmp_path)
    agent = Agent(
        AgentConfig(
            target=case.target(fake_provider), tools=builtin_tools(), cwd=tmp_path, system="test"
        ),
        AgentPorts(gate=gate, model=FAST_MODEL),
    )
    events = await run(agent, "show me")
    assert all(SECRET not in repr(e) for e in events)
    assert all(SECRET.encode() not in r.body for r in fake_provider.requests)
    requested = {e.call.id: e for e in events if isinstance(e, ToolCallRequested)}
    assert requested["c2"].detail == ""  # the diff of a refused edit is not shown
    assert b"withheld by Read(./.env)" in fake_provider.requests[1].body
    fake_provider.assert_protocol_invariants()
