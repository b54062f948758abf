"""Turns over ACP against the fake provider: streamed prose and reasoning, tool calls,
permission prompts with the real diff, ask_user through elicitation, cancellation."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import anyio
import pytest
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    FileEditToolCallContent,
    SessionConfigOptionSelect,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from earshot.providers.types import JSONValue
from tests.acp.client import MODEL, Editor, capabilities, prompt_text, start_earshot
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio


async def test_a_command_file_is_announced_and_a_prompt_starting_with_it_expands(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    command = repo / ".earshot" / "commands" / "team" / "greet.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\ndescription: greet someone\nargument-hint: <who>\n---\nGreet $1.\n")
    fake_provider.script(anthropic.text_turn("hello bob"))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities())
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(
            session_id=session.session_id, prompt=prompt_text("/team:greet bob")
        )
    assert done.stop_reason == "end_turn"
    (update,) = editor.of(AvailableCommandsUpdate)
    assert isinstance(update, AvailableCommandsUpdate)
    offered = {c.name: c for c in update.available_commands}
    assert offered["team:greet"].description.startswith("greet someone")
    sent = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "Greet bob." in sent and "/team:greet" not in sent


def statuses(editor: Editor, call_id: str) -> list[str]:
    return [s for u in editor.tool_updates(call_id) if (s := getattr(u, "status", None))]


async def test_a_prompt_streams_prose_and_reasoning_and_reports_cost(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(anthropic.reasoning_turn("Think it over first.", "The answer is 42."))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities())
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("what?"))
    assert done.stop_reason == "end_turn"
    assert editor.texts(AgentThoughtChunk) == "Think it over first."
    assert editor.texts(AgentMessageChunk) == "The answer is 42."
    assert len(editor.of(AgentMessageChunk)) == 3  # streamed, not sent whole
    (usage,) = editor.of(UsageUpdate)
    assert isinstance(usage, UsageUpdate)
    assert usage.size == 1_000_000
    assert usage.used == 12 + 7
    assert usage.cost is not None and usage.cost.currency == "USD" and usage.cost.amount > 0
    (commands,) = editor.of(AvailableCommandsUpdate)
    assert isinstance(commands, AvailableCommandsUpdate)
    assert {c.name for c in commands.available_commands} == {
        "cost",
        "mode",
        "model",
        "effort",
        "skills",
        "scope",
    }
    assert session.modes is not None and len(session.modes.available_modes) == 5
    assert session.config_options is not None
    model, effort = session.config_options
    assert isinstance(model, SessionConfigOptionSelect)
    assert isinstance(effort, SessionConfigOptionSelect)
    assert (effort.id, effort.category, effort.current_value) == (
        "effort",
        "thought_level",
        "medium",
    )
    assert (model.id, model.category, model.current_value) == ("model", "model", MODEL)


async def test_a_retry_is_announced_as_a_thought_before_the_wait(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    busy = anthropic.error_reply(529, "Overloaded", headers={"retry-after-ms": "10"})
    fake_provider.script(busy, anthropic.text_turn("Fine now."))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities())
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("hi"))
    assert done.stop_reason == "end_turn"
    assert editor.texts(AgentThoughtChunk) == "[retrying in 10 ms (overloaded, attempt 2/3)]\n"
    assert editor.texts(AgentMessageChunk) == "Fine now."


async def test_a_tool_call_appears_and_completes(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("It says alpha."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("read it"))
    assert done.stop_reason == "end_turn"
    updates = editor.tool_updates("t1")
    start = updates[0]
    assert isinstance(start, ToolCallStart)
    assert (start.kind, start.status) == ("read", "pending")
    assert statuses(editor, "t1") == ["pending", "pending", "in_progress", "completed"]
    requested = updates[1]
    assert isinstance(requested, ToolCallProgress)
    assert requested.raw_input == {"path": "notes.txt"}
    assert requested.locations is not None
    assert requested.locations[0].path == str(repo / "notes.txt")
    finished = updates[-1]
    assert isinstance(finished, ToolCallProgress)
    assert finished.content is not None
    assert "alpha" in json.dumps(finished.model_dump(mode="json"))
    assert editor.texts(AgentMessageChunk) == "It says alpha."
    fake_provider.assert_protocol_invariants()


async def test_an_edit_in_ask_mode_asks_with_the_real_diff_rejected_then_allowed(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    edit: dict[str, JSONValue] = {"path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.tool_calls_turn([ToolCallSpec("e1", "edit", edit)]),
        anthropic.tool_calls_turn([ToolCallSpec("e2", "edit", edit)]),
        anthropic.text_turn("Done."),
    )
    editor = Editor()
    editor.permission_answers.extend(["reject", "allow_once"])
    args = ("--model", MODEL, "--permission-mode", "ask")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=prompt_text("shout"))
    assert done.stop_reason == "end_turn"
    first, second = editor.permission_requests
    assert [o.option_id for o in editor.permission_options[0]] == [
        "allow_once",
        "allow_session",
        "reject",
    ]
    assert [o.kind for o in editor.permission_options[0]] == [
        "allow_once",
        "allow_always",
        "reject_once",
    ]
    for asked, call_id in ((first, "e1"), (second, "e2")):
        assert asked.tool_call_id == call_id
        assert isinstance(asked.raw_input, dict)
        detail = asked.raw_input["detail"]
        assert "-alpha" in detail and "+ALPHA" in detail and "notes.txt" in detail
        assert asked.content is not None
        diff = asked.content[0]
        assert isinstance(diff, FileEditToolCallContent)
        assert (diff.old_text, diff.new_text) == ("alpha\nbeta\n", "ALPHA\nbeta\n")
    assert statuses(editor, "e1")[-1] == "failed"
    assert statuses(editor, "e2")[-2:] == ["in_progress", "completed"]
    finished = editor.tool_updates("e2")[-1]
    assert isinstance(finished, ToolCallProgress) and finished.content is not None
    assert any(isinstance(c, FileEditToolCallContent) for c in finished.content)
    assert (repo / "notes.txt").read_text() == "ALPHA\nbeta\n"
    denied = json.dumps(fake_provider.requests[2].json()["messages"])
    assert "rejected in the editor" in denied
    fake_provider.assert_protocol_invariants()


async def test_deny_rules_win_without_asking_the_editor(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    settings = repo / ".earshot" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(rm *)"]}}))
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "rm notes.txt"})]),
        anthropic.text_turn("Not allowed."),
    )
    editor = Editor()
    args = ("--model", MODEL, "--permission-mode", "yolo")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("delete"))
    assert editor.permission_requests == []
    assert statuses(editor, "b1")[-1] == "failed"
    assert (repo / "notes.txt").exists()


async def test_ask_user_goes_out_as_a_form_elicitation(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    question: dict[str, JSONValue] = {
        "question": "Which colour?",
        "choices": ["red", "blue"],
        "allow_free_text": False,
    }
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("q1", "ask_user", question)]),
        anthropic.text_turn("Blue it is."),
    )
    editor = Editor()
    editor.elicitation_answers.append("blue")
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities(forms=True))
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("pick"))
    ((message, mode),) = editor.elicitations
    assert message == "Which colour?"
    schema = mode.requested_schema.model_dump(mode="json", by_alias=True, exclude_none=True)
    answer = schema["properties"]["answer"]
    assert [o["const"] for o in answer["oneOf"]] == ["red", "blue"]
    assert getattr(mode, "tool_call_id", None) == "q1"
    assert "The user answered: blue" in json.dumps(fake_provider.requests[1].json()["messages"])
    assert statuses(editor, "q1")[-1] == "completed"


async def test_ask_user_without_form_support_tells_the_model_it_cannot_ask(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("q1", "ask_user", {"question": "Which?"})]),
        anthropic.text_turn("I will assume."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities())
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("pick"))
    assert editor.elicitations == []
    assert "cannot be asked" in json.dumps(fake_provider.requests[1].json()["messages"])
    assert statuses(editor, "q1")[-1] == "failed"


async def test_todo_write_sends_the_plan(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    todos: dict[str, JSONValue] = {
        "todos": [
            {"content": "Read", "status": "completed"},
            {"content": "Edit", "status": "in_progress"},
        ]
    }
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("p1", "todo_write", todos)]),
        anthropic.text_turn("Planned."),
    )
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("plan"))
    (plan,) = editor.of(AgentPlanUpdate)
    assert isinstance(plan, AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [
        ("Read", "completed"),
        ("Edit", "in_progress"),
    ]


async def test_cancel_during_streaming_answers_cancelled_and_the_session_goes_on(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    words = "one two three four five six"
    slow = dataclasses.replace(anthropic.text_turn(words, chunks=6), delay=0.5)
    fake_provider.script(slow, anthropic.text_turn("Back again."))
    editor = Editor()
    async with start_earshot(fake_provider, repo, editor, "--model", MODEL, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        async with anyio.create_task_group() as tg:
            outcome: list[str] = []

            async def run() -> None:
                outcome.append(
                    (await conn.prompt(session_id=sid, prompt=prompt_text("go"))).stop_reason
                )

            tg.start_soon(run)
            await editor.first_chunk.wait()
            await conn.cancel(session_id=sid)
        assert outcome == ["cancelled"]
        assert editor.texts(AgentMessageChunk) != words
        again = await conn.prompt(session_id=sid, prompt=prompt_text("again"))
    assert again.stop_reason == "end_turn"
    assert editor.texts(AgentMessageChunk).endswith("Back again.")
    fake_provider.assert_protocol_invariants()


async def test_cancel_during_a_permission_request_resolves_it_as_cancelled(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "touch made.txt"})]),
        anthropic.text_turn("Next."),
    )
    editor = Editor()  # no scripted answers: the editor waits for a person
    args = ("--model", MODEL, "--permission-mode", "ask")
    async with start_earshot(fake_provider, repo, editor, *args, log=log) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        sid = session.session_id
        async with anyio.create_task_group() as tg:
            outcome: list[str] = []

            async def run() -> None:
                outcome.append(
                    (await conn.prompt(session_id=sid, prompt=prompt_text("go"))).stop_reason
                )

            tg.start_soon(run)
            await editor.asked.wait()
            await conn.cancel(session_id=sid)
            editor.release.set()  # as the protocol asks of a client: answer it as cancelled
        assert outcome == ["cancelled"]
        again = await conn.prompt(session_id=sid, prompt=prompt_text("next"))
    assert again.stop_reason == "end_turn"
    assert not (repo / "made.txt").exists()
    assert statuses(editor, "b1")[-1] == "failed"
    assert len(fake_provider.requests) == 2
    fake_provider.assert_protocol_invariants()
