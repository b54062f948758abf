"""Approvals through the real permission gate: what a person is shown and what they grant."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.config.settings import Settings
from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.approvals import Approval, ApprovalRequest
from earshot.core.loop.events import PermissionDecided
from earshot.core.permissions import PermissionGate, load_rules
from earshot.core.tools.registry import builtin_tools
from earshot.providers import types as pt
from tests.core.support import FAST_MODEL, WIRES, run
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


pytestmark = pytest.mark.anyio


def _agent(
    fake: FakeProvider, cwd: Path, answers: list[Approval], seen: list[ApprovalRequest]
) -> Agent:
    async def approve(request: ApprovalRequest) -> Approval:
        seen.append(request)
        return answers.pop(0)

    return Agent(
        AgentConfig(target=WIRES[0].target(fake), tools=builtin_tools(["bash", "read"]), cwd=cwd),
        AgentPorts(
            gate=PermissionGate(load_rules(Settings()), "ask", cwd),
            model=FAST_MODEL,
            approve=approve,
        ),
    )


def _bash(call_id: str, command: str) -> ToolCallSpec:
    return ToolCallSpec(call_id, "bash", {"command": command})


async def test_a_prompt_lists_each_command_and_a_session_grant_covers_exactly_them(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([_bash("b1", "echo one && echo two > out.txt")]),
        anthropic.tool_calls_turn([_bash("b2", "echo one && echo two > out.txt")]),
        anthropic.tool_calls_turn([_bash("b3", "echo one && echo three > out.txt")]),
        anthropic.text_turn("done"),
    )
    seen: list[ApprovalRequest] = []
    answers = [Approval(decision="allow_session"), Approval(decision="deny", reason="not that")]
    agent = _agent(fake_provider, tmp_path, answers, seen)
    events = await run(agent, "go")
    assert len(seen) == 2
    assert seen[0].parts == ("echo one", "echo two", "> out.txt")
    assert seen[0].request.detail == "echo one && echo two > out.txt"
    decided = [e for e in events if isinstance(e, PermissionDecided)]
    assert [(d.outcome, d.asked) for d in decided] == [
        ("allow", True),
        ("allow", False),
        ("deny", True),
    ]
    assert "> out.txt" in seen[1].parts
    denied = [m for m in agent.history if m.role == "tool"][-1].parts[0]
    assert isinstance(denied, pt.ToolResultPart)
    assert "not that" in pt.text_of(pt.Message(role="tool", parts=list(denied.content)))
    assert (tmp_path / "out.txt").read_text() == "two\n"
    fake_provider.assert_protocol_invariants()
