"""A command file's ``model``, ``effort`` and ``allowed-tools`` hold for its one turn and are
gone on the next; an agent file's ``effort`` is its child's. Over a real AgentSession,
transcript and the fake provider (an Anthropic model, whose effort is ``output_config``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot._base.json import JSONValue
from earshot.core import commands
from earshot.core.agent_session import AgentSession
from earshot.core.config.agents import AgentFileError, parse_agent
from earshot.core.config.options import SessionOptions
from earshot.core.loop.events import TurnEnded
from earshot.core.session import EffortEntry
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.fake_provider._request import RecordedRequest

pytestmark = pytest.mark.anyio

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _tools(request: RecordedRequest) -> list[str]:
    tools = request.json()["tools"]
    assert isinstance(tools, list)
    return sorted(str(t["name"]) for t in tools if isinstance(t, dict))


def _effort(request: RecordedRequest) -> JSONValue:
    config = request.json().get("output_config")
    return config.get("effort") if isinstance(config, dict) else None


async def _run(session: AgentSession, text: str) -> TurnEnded:
    found = commands.find(text, session=session)
    if found is not None:
        command, arg = found
        reply = await command.run(session, arg)
        assert reply.send is not None, reply.text
        text = reply.send
    events = [e async for e in session.prompt(text)]
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last


async def test_a_command_turns_model_effort_and_tools_hold_for_that_turn_only(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    _write(
        repo_env / ".earshot/commands/deep.md",
        "---\nmodel: anthropic/claude-opus-4-6\neffort: high\nallowed-tools: Read, Grep\n---\n"
        "Think hard about $ARGUMENTS.\n",
    )
    fake_provider.script(anthropic.text_turn("thought"), anthropic.text_turn("plain"))
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        await _run(session, "/deep the parser")
        assert session.model == MODEL
        await _run(session, "and now?")
        entries = session.transcript.tree.entries()
        efforts = [e.effort for e in entries if isinstance(e, EffortEntry)]
    finally:
        await session.close()
    command_turn, next_turn = fake_provider.requests
    assert command_turn.json()["model"] == "claude-opus-4-6"
    assert _effort(command_turn) == "high"
    assert _tools(command_turn) == ["grep", "read"]
    assert next_turn.json()["model"] == "claude-sonnet-4-6"
    assert _effort(next_turn) == "medium"
    assert "bash" in _tools(next_turn) and "edit" in _tools(next_turn)
    # the transcript ends on the session's own effort, so a resume starts from it
    assert efforts[-1] == "medium"


async def test_an_agent_files_effort_is_its_childs_and_the_parent_keeps_its_own(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    _write(repo_env / ".earshot/agents/quick.md", "---\nname: quick\neffort: low\n---\nBe quick.\n")
    args: dict[str, JSONValue] = {"description": "look", "prompt": "look", "agent": "quick"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "task", args)]),
        anthropic.text_turn("looked"),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, effort="max"))
    try:
        await _run(session, "delegate")
    finally:
        await session.close()
    parent, child, parent_again = fake_provider.requests
    assert _effort(child) == "low"
    assert _effort(parent) == _effort(parent_again) == "max"


async def test_a_child_without_an_effort_reasons_like_its_parent(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    args: dict[str, JSONValue] = {"description": "look", "prompt": "look"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "task", args)]),
        anthropic.text_turn("looked"),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, effort="high"))
    try:
        await _run(session, "delegate")
    finally:
        await session.close()
    assert _effort(fake_provider.requests[1]) == "high"


async def test_a_commands_allowed_tools_bind_the_subagents_it_starts(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    _write(repo_env / ".earshot/commands/look.md", "---\nallowed-tools: Task, Read\n---\nLook.\n")
    args: dict[str, JSONValue] = {"description": "look", "prompt": "look"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "task", args)]),
        anthropic.tool_calls_turn([ToolCallSpec("c1", "bash", {"command": "touch marker"})]),
        anthropic.text_turn("could not"),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, permission_mode="yolo"))
    try:
        await _run(session, "/look")
    finally:
        await session.close()
    assert _tools(fake_provider.requests[0]) == ["read", "task"]
    assert _tools(fake_provider.requests[1]) == ["read"]
    assert not (repo_env / "marker").exists()


def test_a_bad_agent_effort_names_the_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "slow.md"
    with pytest.raises(AgentFileError, match=r"slow\.md:3: field 'effort': unknown effort"):
        parse_agent("---\nname: slow\neffort: forever\n---\nGo.\n", path)
