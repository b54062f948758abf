"""Subagents (the ``task`` tool) over a real AgentSession, transcript and the fake provider:
a child is bound by the parent's rules and scope, may run on another vendor, read-only
children run together, an abort reaches a child mid-stream, children's cost is counted."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import pytest

from earshot._base.json import JSONValue
from earshot.core.agent_session import AgentSession
from earshot.core.config.agents import AgentFileError, parse_agent
from earshot.core.config.options import SessionOptions
from earshot.core.loop.approvals import Approval, ApprovalRequest
from earshot.core.loop.events import (
    AgentEvent,
    PermissionDecided,
    SubagentEvent,
    ToolFinished,
    TurnEnded,
    TurnStarted,
)
from earshot.providers import types as pt
from tests.fake_provider import FakeProvider, SSEReply, ToolCallSpec, anthropic, openai_chat
from tests.fake_provider._request import RecordedRequest

pytestmark = pytest.mark.anyio

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def task(call_id: str, prompt: str, agent: str | None = None) -> ToolCallSpec:
    args: dict[str, JSONValue] = {"description": "look around", "prompt": prompt}
    if agent is not None:
        args["agent"] = agent
    return ToolCallSpec(call_id, "task", args)


def agent_file(root: Path, name: str, front: str, body: str = "You help.") -> None:
    directory = root / ".earshot" / "agents"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.md").write_text(f"---\nname: {name}\n{front}---\n{body}\n")


async def turn(session: AgentSession, text: str) -> tuple[list[AgentEvent], TurnEnded]:
    events = [e async for e in session.prompt(text)]
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return events, last


def results(events: list[AgentEvent]) -> dict[str, pt.ToolResultPart]:
    return {e.result.call_id: e.result for e in events if isinstance(e, ToolFinished)}


async def test_a_child_cannot_run_a_command_the_parents_rules_deny(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "create the marker file")]),
        anthropic.tool_calls_turn([ToolCallSpec("c1", "bash", {"command": "touch marker"})]),
        anthropic.text_turn("The command was refused."),
        anthropic.text_turn("The child could not do it."),
    )
    session = AgentSession.open(
        SessionOptions(cwd=repo_env, model=MODEL, permission_mode="yolo", deny=["Bash(touch:*)"])
    )
    try:
        events, ended = await turn(session, "delegate it")
    finally:
        await session.close()
    assert not (repo_env / "marker").exists()
    result = results(events)["t1"]
    text = pt.text_of(pt.Message(role="tool", parts=[*result.content]))
    assert "The command was refused." in text and "1 call(s) denied" in text
    assert ended.text == "The child could not do it."
    # the child started from a fresh history: only its prompt, no parent conversation
    child_request = fake_provider.requests[1].json()
    assert json.dumps(child_request["messages"]).count("delegate it") == 0
    assert "create the marker file" in json.dumps(child_request["messages"])


async def test_a_child_runs_on_another_vendor_than_its_parent(
    fake_provider: FakeProvider, repo_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "groq-key")
    monkeypatch.setenv("GROQ_BASE_URL", fake_provider.base_url + "/v1")
    agent_file(
        repo_env, "cheap", "description: the cheap one\nmodel: groq/llama-3.3-70b-versatile\n"
    )
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "count the files", agent="cheap")]),
        openai_chat.text_turn("There are three files."),
        anthropic.text_turn("Three."),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        _, ended = await turn(session, "how many files?")
    finally:
        await session.close()
    assert ended.text == "Three."
    paths = [r.path for r in fake_provider.requests]
    assert paths[0].endswith("/messages") and paths[2].endswith("/messages")
    assert paths[1].endswith("/chat/completions")
    assert fake_provider.requests[1].json()["model"] == "llama-3.3-70b-versatile"
    described = json.dumps(fake_provider.requests[0].json()["tools"])
    assert "cheap: the cheap one" in described and "general-purpose" in described


async def test_two_read_only_children_run_at_the_same_time(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    agent_file(repo_env, "reader", "description: reads\ntools: read, grep, glob\n")
    second_arrived = threading.Event()

    def first(request: RecordedRequest) -> SSEReply:
        together = second_arrived.wait(timeout=30)
        return anthropic.text_turn("together" if together else "alone")

    def second(request: RecordedRequest) -> SSEReply:
        second_arrived.set()
        return anthropic.text_turn("second child")

    fake_provider.script(
        anthropic.tool_calls_turn(
            [task("t1", "read a", agent="reader"), task("t2", "read b", agent="reader")]
        ),
        first,
        second,
        anthropic.text_turn("both done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        events, ended = await turn(session, "read both")
    finally:
        await session.close()
    done = results(events)
    texts = {
        k: " ".join(p.text for p in v.content if isinstance(p, pt.TextPart))
        for k, v in done.items()
    }
    # Which child's request reaches the provider first is up to the scheduler: the one that
    # arrived first waited for the other, so it can only say "together" if both were in flight.
    assert sorted(text.splitlines()[0] for text in texts.values()) == ["second child", "together"]
    assert ended.text == "both done"


async def test_an_abort_stops_a_child_mid_stream(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    slow = anthropic.text_turn("x " * 400)
    slow.delay = 0.5
    child_asked = threading.Event()

    def child(request: RecordedRequest) -> SSEReply:
        child_asked.set()
        return slow

    fake_provider.script(anthropic.tool_calls_turn([task("t1", "take your time")]), child)
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    seen: list[AgentEvent] = []
    try:
        async with anyio.create_task_group() as tg:

            async def run() -> None:
                async for event in session.prompt("go"):
                    seen.append(event)

            tg.start_soon(run)
            assert await anyio.to_thread.run_sync(child_asked.wait, 30)
            session.abort()
    finally:
        await session.close()
    ended = seen[-1]
    assert isinstance(ended, TurnEnded) and ended.reason == "aborted"
    result = results(seen)["t1"]
    assert result.is_error
    assert len(fake_provider.requests) == 2  # the parent did not go on after the abort


async def test_the_cost_of_children_is_in_the_parents_totals(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(anthropic.text_turn("alone"))
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        _, solo = await turn(session, "one call")
    finally:
        await session.close()
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "do it")]),
        anthropic.text_turn("child report"),
        anthropic.text_turn("parent done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        _, ended = await turn(session, "delegate")
        cost = session.cost()
    finally:
        await session.close()
    assert solo.cost_usd is not None and ended.cost_usd is not None
    assert ended.usage.input == 3 * solo.usage.input
    assert ended.cost_usd == pytest.approx(3 * solo.cost_usd)
    assert cost.total_usd == pytest.approx(3 * solo.cost_usd)


async def test_a_child_cannot_write_outside_the_parents_scope(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval(decision="deny")

    scope: dict[str, JSONValue] = {
        "goal": "fix the parser",
        "paths": ["src/**"],
        "steps": ["fix it"],
    }
    write: dict[str, JSONValue] = {"path": "docs/x.md", "content": "notes\n"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("s1", "declare_scope", scope)]),
        anthropic.tool_calls_turn([task("t1", "write the notes")]),
        anthropic.tool_calls_turn([ToolCallSpec("w1", "write", write)]),
        anthropic.text_turn("I was not allowed."),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(
        SessionOptions(cwd=repo_env, model=MODEL, permission_mode="auto"), approve=approve
    )
    try:
        await turn(session, "go")
    finally:
        await session.close()
    assert not (repo_env / "docs" / "x.md").exists()
    assert len(asked) == 1 and "outside the declared scope" in asked[0].reason


async def test_a_childs_events_reach_the_parents_stream_live_under_the_task_call(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    (repo_env / "notes.txt").write_text("hello\n")
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "read the notes")]),
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("The notes say hello."),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        events, _ = await turn(session, "delegate")
    finally:
        await session.close()
    kinds = [type(e).__name__ for e in events]
    child = [e for e in events if isinstance(e, SubagentEvent)]
    assert child and all(e.parent_call_id == "t1" for e in child)
    assert child[0].agent == "general-purpose" and child[0].description == "look around"
    inner = [e.event for e in child]
    assert isinstance(inner[0], TurnStarted) and isinstance(inner[-1], TurnEnded)
    assert any(isinstance(e, ToolFinished) and e.result.call_id == "r1" for e in inner)
    # live: all of them between the task call's permission and its result
    first = kinds.index("SubagentEvent")
    last = len(kinds) - 1 - kinds[::-1].index("SubagentEvent")
    finished = next(
        i for i, e in enumerate(events) if isinstance(e, ToolFinished) and e.result.call_id == "t1"
    )
    decided = next(
        i for i, e in enumerate(events) if isinstance(e, PermissionDecided) and e.call_id == "t1"
    )
    assert decided < first and last < finished


def test_a_claude_agent_files_colour_is_ignored_but_a_field_that_changes_rights_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "reviewer.md"
    spec = parse_agent(
        "---\nname: reviewer\ndescription: reviews\ncolor: blue\ntools: read\n---\nReview.\n", path
    )
    assert (spec.name, spec.tools, spec.system) == ("reviewer", ("read",), "Review.")
    with pytest.raises(AgentFileError, match=r"reviewer\.md:3: field 'permissionMode'"):
        parse_agent("---\nname: reviewer\npermissionMode: plan\n---\nReview.\n", path)


async def test_a_claude_agent_file_names_tools_its_way_and_can_take_some_away(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    agent_file(
        repo_env,
        "scout",
        "description: looks around\ntools: Read, Grep, Glob, Bash\ndisallowedTools:\n  - Bash\n",
    )
    fake_provider.script(
        anthropic.tool_calls_turn([task("t1", "find the tests", agent="scout")]),
        anthropic.text_turn("tests/ holds them"),
        anthropic.text_turn("Found them."),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        _, ended = await turn(session, "where are the tests?")
    finally:
        await session.close()
    assert ended.text == "Found them."
    tools = fake_provider.requests[1].json()["tools"]
    assert isinstance(tools, list)
    assert sorted(str(t["name"]) for t in tools if isinstance(t, dict)) == ["glob", "grep", "read"]
