"""Over ACP, a scope declaration becomes the session's plan (its steps, pending)."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import AgentPlanUpdate

from earshot.providers.types import JSONValue
from tests.acp.client import MODEL, Editor, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio


async def test_declare_scope_sends_its_steps_as_the_plan(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    scope: dict[str, JSONValue] = {
        "goal": "fix the parser",
        "paths": ["src/**"],
        "steps": ["Read the parser", "Fix the bug"],
    }
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("s1", "declare_scope", scope)]),
        anthropic.text_turn("Declared."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("plan"))
    (plan,) = editor.of(AgentPlanUpdate)
    assert isinstance(plan, AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [
        ("Read the parser", "pending"),
        ("Fix the bug", "pending"),
    ]
