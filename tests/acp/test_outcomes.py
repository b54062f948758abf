"""How turns end over ACP (each stop reason, a failed model call), and what an editor's
answers can and cannot allow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import ConfigOptionUpdate, SessionConfigOptionSelect

from earshot.providers.types import JSONValue
from tests.acp.client import MODEL, Editor, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("vendor_stop", "expected"),
    [("end_turn", "end_turn"), ("max_tokens", "max_tokens"), ("refusal", "refusal")],
)
async def test_the_stop_reason_follows_the_model(
    fake_provider: FakeProvider, repo: Path, log: Path, vendor_stop: str, expected: str
) -> None:
    fake_provider.script(anthropic.text_turn("Partial", stop=vendor_stop))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    assert done.stop_reason == expected


async def test_a_spent_budget_ends_as_max_turn_requests(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    settings = repo / ".earshot" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"maxBudgetUsd": 0.000001}))
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("never sent"),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    assert done.stop_reason == "max_turn_requests"
    assert len(fake_provider.requests) == 1


async def test_a_failed_model_call_is_an_error_and_the_session_goes_on(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.error_reply(400, "prompt is malformed somehow"),
        anthropic.text_turn("Fine now."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        with pytest.raises(RequestError) as failed:
            await conn.prompt(session_id=session.session_id, prompt=prompt_text("one"))
        again = await conn.prompt(session_id=session.session_id, prompt=prompt_text("two"))
    assert failed.value.code == -32603
    assert "prompt is malformed somehow" in str(failed.value)
    assert again.stop_reason == "end_turn"


async def test_allow_for_the_session_covers_the_same_command_only(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    same: dict[str, JSONValue] = {"command": "touch one.txt"}
    other: dict[str, JSONValue] = {"command": "touch two.txt"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", same)]),
        anthropic.tool_calls_turn([ToolCallSpec("b2", "bash", same)]),
        anthropic.tool_calls_turn([ToolCallSpec("b3", "bash", other)]),
        anthropic.text_turn("Done."),
    )
    editor = Editor()
    editor.permission_answers.extend(["allow_session", "allow_everything_forever"])
    args = ("--model", MODEL, "--permission-mode", "ask")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("touch"))
    assert [r.tool_call_id for r in editor.permission_requests] == ["b1", "b3"]
    first = editor.permission_requests[0].raw_input
    assert isinstance(first, dict) and first["detail"] == "touch one.txt"
    assert (repo / "one.txt").exists()
    assert not (repo / "two.txt").exists()  # an option earshot never offered allows nothing


async def test_the_model_is_a_config_option(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Switched."))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        changed = await conn.set_config_option(
            config_id="model", session_id=sid, value="anthropic/claude-opus-4-1"
        )
        with pytest.raises(RequestError) as unknown:
            await conn.set_config_option(config_id="model", session_id=sid, value="nope/none")
        await conn.prompt(session_id=sid, prompt=prompt_text("hi"))
    option, effort = changed.config_options
    assert isinstance(option, SessionConfigOptionSelect)
    assert effort.id == "effort"
    assert option.current_value == "anthropic/claude-opus-4-1"
    assert unknown.value.code == -32602
    assert len(editor.of(ConfigOptionUpdate)) == 1
    assert fake_provider.requests[0].json()["model"] == "claude-opus-4-1"
