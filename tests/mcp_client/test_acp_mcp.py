"""An MCP server's tool in an ACP session: the editor is asked (no MCP tool is read-only
to the gate), then the result reaches the next model request."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from acp.schema import (
    AgentMessageChunk,
    AvailableCommandsUpdate,
    ContentToolCallContent,
    TextContentBlock,
    ToolCallProgress,
)

from tests.acp.client import MODEL, Editor, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.mcp_client.support import stdio_server, tool_results, write_local, write_mcp_json

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work.resolve()


async def test_an_mcp_tool_is_asked_for_then_called_over_acp(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__add", {"a": 20, "b": 22})]),
        anthropic.text_turn("42 it is"),
    )
    editor = Editor()
    editor.permission_answers.append("allow_once")
    log = tmp_path / "acp.log"
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("add"))
    assert done.stop_reason == "end_turn"
    assert len(editor.permission_requests) == 1
    results = tool_results(fake_provider.requests[-1].json())
    assert results[-1]["content"][0]["text"] == "42"


class _Stepper(Editor):
    """Lets the server's ``steps`` tool go on once its progress reached the editor."""

    def __init__(self, markers: Path) -> None:
        super().__init__()
        self.markers = markers

    async def session_update(self, session_id: str, update: object, **kwargs: object) -> None:
        await super().session_update(session_id, update, **kwargs)
        meta = getattr(update, "field_meta", None)
        if isinstance(update, ToolCallProgress) and isinstance(meta, dict):
            done = meta["earshot"]["progress"]
            (self.markers / f"go-{int(done)}").write_text("go")


async def test_a_servers_progress_is_a_tool_call_update_while_the_call_runs(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__steps", {"count": 2})]),
        anthropic.text_turn("stepped"),
    )
    editor = _Stepper(tmp_path)
    editor.permission_answers.append("allow_once")
    log = tmp_path / "acp.log"
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("steps"))
    assert done.stop_reason == "end_turn"
    updates = [u for u in editor.tool_updates("c1") if isinstance(u, ToolCallProgress)]
    shown = [
        (
            u.status,
            [
                c.content.text
                for c in u.content or []
                if isinstance(c, ContentToolCallContent) and isinstance(c.content, TextContentBlock)
            ],
        )
        for u in updates
        if u.status is not None
    ]
    assert ("in_progress", ["step 1 of 2 (1/2)"]) in shown
    assert ("in_progress", ["step 2 of 2 (2/2)"]) in shown
    assert shown[-1] == ("completed", ["2 steps done"])  # the result replaces the progress


async def test_server_prompts_are_offered_as_commands_and_run_as_one(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(anthropic.text_turn("reviewed"))
    editor = Editor()
    log = tmp_path / "acp.log"
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(
            session_id=session.session_id, prompt=prompt_text("/mcp__py__review the parser")
        )
    assert done.stop_reason == "end_turn"
    last = editor.of(AvailableCommandsUpdate)[-1]
    assert isinstance(last, AvailableCommandsUpdate)
    offered = {c.name: c for c in last.available_commands}
    review = offered["mcp__py__review"]
    assert review.description == "Ask for a review of a topic."
    assert review.input is not None and review.input.root.hint == "topic"
    sent = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "Please review the parser carefully." in sent


async def test_untrusted_and_failed_servers_are_told_to_the_editor(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_mcp_json(repo, {"project": stdio_server(tmp_path)})
    write_local(repo, {"broken": {"command": "/nonexistent/server"}})
    fake_provider.script(anthropic.text_turn("fine without them"))
    editor = Editor()
    log = tmp_path / "acp.log"
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("hi"))
    assert done.stop_reason == "end_turn"
    said = editor.texts(AgentMessageChunk)
    assert "project" in said and "earshot trust" in said
    assert "MCP server broken failed" in said
    assert said.count("broken") == 1  # told once
    assert said.endswith("fine without them")  # before the turn's answer
