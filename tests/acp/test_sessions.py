"""Sessions over ACP are earshot transcripts: load replays and appends to the same file,
list and resume find them, a client that disappears leaves the transcript valid."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
from pathlib import Path

import acp
import pytest
from acp import RequestError
from acp.schema import (
    AgentMessageChunk,
    CurrentModeUpdate,
    ToolCallStart,
    UserMessageChunk,
)

from earshot.core.session import SessionStore
from tests.acp.client import MODEL, Editor, PromptBlocks, prompt_text, start_earshot, user_blocks
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


def transcripts(repo: Path) -> list[Path]:
    return sorted(SessionStore(repo).dir.glob("*.jsonl"))


async def test_a_loaded_session_replays_its_history_and_appends_to_the_same_file(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("It says alpha and beta."),
    )
    first = Editor()
    async with start_earshot(fake_provider, repo, first, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        await conn.prompt(session_id=sid, prompt=prompt_text("What do the notes say?"))
    (path,) = transcripts(repo)
    assert path.stem == sid
    before = path.read_bytes()

    fake_provider.script(anthropic.text_turn("Still alpha."))
    second = Editor()
    async with start_earshot(fake_provider, repo, second, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.load_session(cwd=str(repo), session_id=sid, mcp_servers=[])
        replayed = list(second.updates)
        done = await conn.prompt(session_id=sid, prompt=prompt_text("And now?"))
    assert done.stop_reason == "end_turn"
    assert {s for s, _ in replayed} == {sid}
    kinds = [type(u).__name__ for _, u in replayed]
    assert kinds[:3] == ["UserMessageChunk", "ToolCallStart", "AgentMessageChunk"]
    call = replayed[1][1]
    assert isinstance(call, ToolCallStart)
    assert (call.tool_call_id, call.status, call.kind) == ("t1", "completed", "read")
    assert second.texts(UserMessageChunk) == "What do the notes say?"
    assert second.texts(AgentMessageChunk) == "It says alpha and beta.Still alpha."
    assert transcripts(repo) == [path]
    after = path.read_bytes()
    assert after.startswith(before)
    appended = [json.loads(line) for line in after[len(before) :].splitlines()]
    said = [e["message"]["parts"][0]["text"] for e in appended if e.get("type") == "message"]
    assert said == ["And now?", "Still alpha."]
    sent = json.dumps(fake_provider.requests[-1].json()["messages"])
    assert "What do the notes say?" in sent and "It says alpha and beta." in sent


async def test_load_refuses_a_session_of_another_directory(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path, log: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        with pytest.raises(RequestError) as while_open:
            await conn.load_session(cwd=str(other), session_id=sid, mcp_servers=[])
        await conn.close_session(session_id=sid)
        with pytest.raises(RequestError) as when_closed:
            await conn.load_session(cwd=str(other), session_id=sid, mcp_servers=[])
    for refused in (while_open, when_closed):
        assert refused.value.code == -32002
        assert str(other.resolve()) in str(refused.value)


async def test_list_and_resume_find_the_transcripts(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Hi."), anthropic.text_turn("Again."))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        await conn.prompt(session_id=sid, prompt=prompt_text("Say hi"))
        await conn.close_session(session_id=sid)
        listed = await conn.list_sessions(cwd=str(repo))
        await conn.resume_session(cwd=str(repo), session_id=sid, mcp_servers=[])
        resumed = await conn.prompt(session_id=sid, prompt=prompt_text("Once more"))
    assert [(s.session_id, s.title) for s in listed.sessions] == [(sid, "Say hi")]
    assert resumed.stop_reason == "end_turn"
    assert "Say hi" in json.dumps(fake_provider.requests[-1].json()["messages"])
    assert len(transcripts(repo)) == 1


async def test_images_links_and_embedded_resources_reach_the_model_as_one_message(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Seen."))
    blocks: PromptBlocks = [
        acp.text_block("Look at these."),
        acp.image_block(base64.b64encode(PNG).decode(), "image/png"),
        acp.resource_link_block("notes.txt", f"file://{repo / 'notes.txt'}"),
        acp.resource_block(acp.embedded_text_resource("file:///tmp/x.py", "print('x')")),
    ]
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=blocks)
    sent = user_blocks(fake_provider, 0)
    assert [kind for kind, _ in sent] == ["text", "image", "text", "text"]
    assert str(repo / "notes.txt") in sent[2][1]
    assert "print('x')" in sent[3][1]


async def test_an_image_for_a_model_without_vision_is_refused_before_any_call(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    settings = repo / ".earshot" / "settings.json"
    settings.parent.mkdir()
    blind = {"models": {"anthropic": {"claude-sonnet-4-6": {"vision": False}}}}
    settings.write_text(json.dumps(blind))
    image = acp.image_block(base64.b64encode(PNG).decode(), "image/png")
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        with pytest.raises(RequestError) as refused:
            await conn.prompt(session_id=session.session_id, prompt=[image])
    assert refused.value.code == -32602
    assert "images" in str(refused.value)
    assert fake_provider.requests == []


async def test_set_mode_reaches_the_gate(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "touch made.txt"})]),
        anthropic.text_turn("Made."),
    )
    editor = Editor()
    args = ("--model", MODEL, "--permission-mode", "plan")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "plan"
        await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("make it"))
    (changed,) = editor.of(CurrentModeUpdate)
    assert isinstance(changed, CurrentModeUpdate) and changed.current_mode_id == "yolo"
    assert editor.permission_requests == []
    assert (repo / "made.txt").exists()


async def test_slash_commands_answer_without_a_model_call(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        await conn.prompt(session_id=sid, prompt=prompt_text("/mode accept-edits"))
        await conn.prompt(session_id=sid, prompt=prompt_text("/cost"))
        await conn.prompt(session_id=sid, prompt=prompt_text("/model nope/nothing"))
    said = editor.texts(AgentMessageChunk)
    assert "Permission mode: accept-edits" in said
    assert "Session cost: $0.0000" in said
    assert "nope" in said
    assert fake_provider.requests == []


async def test_a_client_that_disappears_mid_turn_leaves_a_valid_transcript(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    slow = dataclasses.replace(anthropic.text_turn("a b c d e f g h", chunks=8), delay=0.5)
    fake_provider.script(slow)
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (
        conn,
        process,
    ):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=prompt_text("talk"))
        )
        await editor.first_chunk.wait()
        assert process.stdin is not None
        process.stdin.close()
        code = await process.wait()
        prompt.cancel()
    assert code == 0
    (path,) = transcripts(repo)
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    messages = [e["message"] for e in lines if e.get("type") == "message"]
    assert messages[0]["role"] == "user"
    assert SessionStore(repo).open(session.session_id).history()[0].role == "user"
