"""The parent's hooks bind a subagent: ``SubagentStop`` runs (a real shell script) when the
child finishes and can send it back to work, and the child's tool calls go through the
same ``PreToolUse`` hooks; over a real AgentSession, transcript and the fake provider."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from earshot._base.json import JSONValue
from earshot.core.agent_session import AgentSession
from earshot.core.config.options import SessionOptions
from earshot.core.loop.events import AgentEvent, ToolFinished, TurnEnded, result_text
from earshot.core.session import HookEntry
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(hooks: dict[str, JSONValue]) -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "earshot" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def _group(command: str, matcher: str = "") -> list[JSONValue]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


def _reviewer(repo: Path) -> None:
    folder = repo / ".earshot" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text("---\nname: reviewer\n---\nYou review.\n")


def _task(call_id: str) -> ToolCallSpec:
    args: dict[str, JSONValue] = {
        "description": "review",
        "prompt": "review it",
        "agent": "reviewer",
    }
    return ToolCallSpec(call_id, "task", args)


async def _turn(session: AgentSession, text: str) -> tuple[list[AgentEvent], TurnEnded]:
    events = [e async for e in session.prompt(text)]
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return events, last


def _result_text(events: list[AgentEvent], call_id: str) -> str:
    for event in events:
        if isinstance(event, ToolFinished) and event.result.call_id == call_id:
            return result_text(event.result)
    raise AssertionError(f"no result for {call_id}")


async def test_a_subagent_stop_hook_sends_the_child_back_with_its_reason(
    fake_provider: FakeProvider, repo_env: Path, tmp_path: Path
) -> None:
    log = tmp_path / "stop.log"
    script = tmp_path / "subagent-stop.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'payload=$(cat); echo "$payload" >> {log}\n'
        'case "$payload" in *\'"stop_hook_active": false\'*)\n'
        "  echo 'check the tests too' >&2; exit 2;;\n"
        "esac\n"
    )
    script.chmod(0o755)
    other = tmp_path / "other-ran"
    _settings(
        {"SubagentStop": [*_group(str(script), "review.*"), *_group(f"touch {other}", "other")]}
    )
    _reviewer(repo_env)
    usage = anthropic.Usage(input_tokens=100, output_tokens=10)
    fake_provider.script(
        anthropic.tool_calls_turn([_task("t1")], usage=usage),
        anthropic.text_turn("done quickly", usage=usage),
        anthropic.text_turn("checked the tests", usage=usage),
        anthropic.text_turn("The reviewer is done.", usage=usage),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        events, ended = await _turn(session, "get it reviewed")
        entries = session.transcript.tree.entries()
    finally:
        await session.close()

    payloads = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(p["hook_event_name"], p["agent_type"], p["stop_hook_active"]) for p in payloads] == [
        ("SubagentStop", "reviewer", False),
        ("SubagentStop", "reviewer", True),
    ]
    assert [p["last_assistant_message"] for p in payloads] == ["done quickly", "checked the tests"]
    assert payloads[0]["session_id"] == session.id
    assert payloads[0]["agent_id"] == payloads[1]["agent_id"]
    assert not other.exists()
    # the child went on with the hook's reason, in its own conversation
    child_again = json.dumps(fake_provider.requests[2].json()["messages"])
    assert "check the tests too" in child_again and "done quickly" in child_again
    assert "check the tests too" not in json.dumps(fake_provider.requests[3].json()["messages"])
    assert "checked the tests" in _result_text(events, "t1")
    assert ended.text == "The reviewer is done."
    # both rounds of the child are in the parent's turn usage
    assert ended.usage.input == 400 and ended.usage.output == 40
    runs = [e for e in entries if isinstance(e, HookEntry)]
    assert [(r.event, r.decision, r.exit_code) for r in runs] == [
        ("SubagentStop", "block", 2),
        ("SubagentStop", "ok", 0),
    ]


async def test_the_parents_pre_tool_use_hooks_bind_a_child(
    fake_provider: FakeProvider, repo_env: Path, tmp_path: Path
) -> None:
    _settings({"PreToolUse": _group("echo 'no shell for reviewers' >&2; exit 2", "Bash")})
    _reviewer(repo_env)
    fake_provider.script(
        anthropic.tool_calls_turn([_task("t1")]),
        anthropic.tool_calls_turn([ToolCallSpec("c1", "bash", {"command": "touch marker"})]),
        anthropic.text_turn("I could not run it."),
        anthropic.text_turn("The child was refused."),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, permission_mode="yolo"))
    try:
        events, ended = await _turn(session, "delegate")
    finally:
        await session.close()
    assert not (repo_env / "marker").exists()
    child_second = json.dumps(fake_provider.requests[2].json()["messages"])
    assert "no shell for reviewers" in child_second
    assert "1 call(s) denied" in _result_text(events, "t1")
    assert ended.text == "The child was refused."
