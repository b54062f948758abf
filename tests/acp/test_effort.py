"""The reasoning effort over ACP: a session config option beside the model, and /effort."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import ConfigOptionUpdate, SessionConfigOptionSelect

from tests.acp.client import MODEL, Editor, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, anthropic

pytestmark = pytest.mark.anyio


async def test_the_effort_is_a_config_option_beside_the_model(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Thought hard."), anthropic.text_turn("Quick."))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        changed = await conn.set_config_option(config_id="effort", session_id=sid, value="high")
        with pytest.raises(RequestError) as unknown:
            await conn.set_config_option(config_id="effort", session_id=sid, value="lots")
        await conn.prompt(session_id=sid, prompt=prompt_text("think"))
        await conn.prompt(session_id=sid, prompt=prompt_text("/effort off"))
        await conn.prompt(session_id=sid, prompt=prompt_text("quick"))
    model, effort = changed.config_options
    assert isinstance(effort, SessionConfigOptionSelect)
    assert model.id == "model"
    assert (effort.id, effort.current_value) == ("effort", "high")
    assert [o.value for o in effort.options] == ["off", "low", "medium", "high", "max"]
    assert unknown.value.code == -32602
    updates = editor.of(ConfigOptionUpdate)
    assert len(updates) == 2  # the option, then /effort
    thinking, quick = (request.json() for request in fake_provider.requests)
    assert thinking["output_config"] == {"effort": "high"}
    assert "thinking" not in quick
