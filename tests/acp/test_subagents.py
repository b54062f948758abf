"""Over ACP a subagent is its task tool call, whose content follows the child's progress;
a child's call the editor was asked about is closed; a scope declared by a child, or
restored on load, is the session's plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    ContentToolCallContent,
    TextContentBlock,
    ToolCallProgress,
)

from earshot.providers.types import JSONValue
from tests.acp.client import MODEL, Editor, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio

SCOPE: dict[str, JSONValue] = {
    "goal": "fix the parser",
    "paths": ["src/**"],
    "steps": ["Read the parser", "Fix the bug"],
}


def task(prompt: str) -> ToolCallSpec:
    return ToolCallSpec("t1", "task", {"description": "read the notes", "prompt": prompt})


def contents(editor: Editor, call_id: str) -> list[str]:
    """The text of each content update of ``call_id``, in order."""
    out: list[str] = []
    for update in editor.tool_updates(call_id):
        for item in getattr(update, "content", None) or []:
            if isinstance(item, ContentToolCallContent) and isinstance(
                item.content, TextContentBlock
            ):
                out.append(item.content.text)
    return out


async def test_the_task_calls_content_follows_the_child_then_holds_its_report(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([task("what do the notes say?")]),
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("They begin with alpha."),
        anthropic.text_turn("The notes begin with alpha."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("delegate"))
    assert done.stop_reason == "end_turn"
    shown = contents(editor, "t1")
    progress, report = shown[:-1], shown[-1]
    assert progress[0].startswith("general-purpose: read the notes\n→ read")
    assert any("✓ read" in text and "They begin with alpha." in text for text in progress)
    assert report.startswith("They begin with alpha.") and "[subagent general-purpose" in report
    final = editor.tool_updates("t1")[-1]
    assert isinstance(final, ToolCallProgress) and final.status == "completed"
    # the child's calls and text are not the main agent's
    assert editor.tool_updates("r1") == []
    assert editor.texts(AgentMessageChunk) == "The notes begin with alpha."
    fake_provider.assert_protocol_invariants()


async def test_a_childs_call_asked_about_in_the_editor_is_closed_when_it_ends(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([task("make a file")]),
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "touch made"})]),
        anthropic.text_turn("Made it."),
        anthropic.text_turn("Done."),
    )
    editor = Editor()
    editor.permission_answers.append("allow_once")
    args = ("--model", MODEL, "--permission-mode", "ask")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("delegate"))
    (asked,) = editor.permission_requests
    assert asked.tool_call_id == "b1"
    (closed,) = editor.tool_updates("b1")
    assert isinstance(closed, ToolCallProgress) and closed.status == "completed"
    assert (repo / "made").exists()
    assert any("✓ bash: touch made" in text for text in contents(editor, "t1"))


async def test_a_scope_declared_by_a_child_is_the_plan_and_load_sends_it_again(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([task("declare the scope")]),
        anthropic.tool_calls_turn([ToolCallSpec("s1", "declare_scope", SCOPE)]),
        anthropic.text_turn("Declared."),
        anthropic.text_turn("The child declared it."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("delegate"))
    (plan,) = editor.of(AgentPlanUpdate)
    assert isinstance(plan, AgentPlanUpdate)
    steps = [(e.content, e.status) for e in plan.entries]
    assert steps == [("Read the parser", "pending"), ("Fix the bug", "pending")]

    later = Editor()
    async with start_earshot(fake_provider, repo, later, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.load_session(cwd=str(repo), session_id=session.session_id, mcp_servers=[])
    (again,) = later.of(AgentPlanUpdate)
    assert isinstance(again, AgentPlanUpdate)
    assert [(e.content, e.status) for e in again.entries] == steps
