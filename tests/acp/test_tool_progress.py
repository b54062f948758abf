"""A running shell command's last lines reach the editor as ``tool_call_update`` content
before the call completes. Real ``earshot acp`` against the fake provider; the command
waits for a file the editor creates when it has seen the first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp.schema import ToolCallProgress

from tests.acp.client import MODEL, Editor, capabilities, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio

COMMAND = (
    "x=LIVE; echo FIRST-$x; "
    "for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done; "
    "echo SECOND-$x"
)


class Watching(Editor):
    """An editor that says go once it has been shown the command's first line."""

    def __init__(self, go: Path) -> None:
        super().__init__()
        self.go = go

    async def session_update(self, session_id: str, update: object, **kwargs: object) -> None:
        await super().session_update(session_id, update, **kwargs)
        if isinstance(update, ToolCallProgress) and "FIRST-LIVE" in json.dumps(
            update.model_dump(mode="json")
        ):
            self.go.touch()


async def test_a_running_command_streams_its_output_to_the_editor(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "bash", {"command": COMMAND})]),
        anthropic.text_turn("Both ran."),
    )
    editor = Watching(repo / "go")
    args = ("--model", MODEL, "--permission-mode", "yolo")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities())
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("run it"))
    assert done.stop_reason == "end_turn"
    updates = [u for u in editor.tool_updates("t1") if isinstance(u, ToolCallProgress)]
    live = [u for u in updates if u.status == "in_progress" and u.content]
    assert live, "no live output was sent"
    first = json.dumps(live[0].model_dump(mode="json"))
    assert "FIRST-LIVE" in first and "SECOND-LIVE" not in first
    assert updates[-1].status == "completed"
    assert "SECOND-LIVE" in json.dumps(updates[-1].model_dump(mode="json"))
