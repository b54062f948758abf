"""The scope contract over a real AgentSession and the fake provider: once the model has
declared ``src/**``, a change elsewhere asks in every mode but yolo (auto and allow rules
included) and is refused headless; widening asks with the difference; resume restores it."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot._base.json import JSONValue
from earshot.core import commands
from earshot.core.agent_session import AgentSession
from earshot.core.config.options import SessionOptions
from earshot.core.loop.approvals import Approval, ApprovalRequest, ApproveFn
from earshot.core.loop.events import AgentEvent, TurnEnded
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

pytestmark = pytest.mark.anyio

MODEL = "anthropic/claude-sonnet-4-6"
SCOPE: dict[str, JSONValue] = {
    "goal": "fix the parser",
    "paths": ["src/**"],
    "steps": ["read", "fix"],
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def call(call_id: str, name: str, args: dict[str, JSONValue]) -> ToolCallSpec:
    return ToolCallSpec(call_id, name, args)


async def turn(session: AgentSession, text: str) -> TurnEnded:
    events: list[AgentEvent] = [e async for e in session.prompt(text)]
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last


def recorder(answer: str = "deny") -> tuple[list[ApprovalRequest], ApproveFn]:
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval(decision="allow_once" if answer == "allow" else "deny")

    return asked, approve


def script_edits(fake: FakeProvider) -> None:
    fake.script(
        anthropic.tool_calls_turn([call("s1", "declare_scope", SCOPE)]),
        anthropic.tool_calls_turn(
            [
                call("w1", "write", {"path": "src/a.py", "content": "x = 1\n"}),
                call("w2", "write", {"path": "docs/x.md", "content": "notes\n"}),
            ]
        ),
        anthropic.text_turn("done"),
    )


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
async def test_an_edit_outside_the_declared_paths_prompts(
    fake_provider: FakeProvider, repo_env: Path, mode: str
) -> None:
    script_edits(fake_provider)
    asked, approve = recorder()
    session = AgentSession.open(
        SessionOptions(cwd=repo_env, model=MODEL, permission_mode=mode, allow=["Write"]),
        approve=approve,
    )
    try:
        await turn(session, "fix it")
    finally:
        await session.close()
    assert (repo_env / "src" / "a.py").read_text() == "x = 1\n"
    assert not (repo_env / "docs" / "x.md").exists()
    (only,) = asked  # the first declaration and the write inside src/ never asked
    assert only.request.tool == "write" and "outside the declared scope (src/**)" in only.reason


async def test_headless_refuses_an_edit_outside_the_scope(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    script_edits(fake_provider)
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, permission_mode="auto"))
    try:
        ended = await turn(session, "fix it")
    finally:
        await session.close()
    assert not (repo_env / "docs" / "x.md").exists()
    assert [d.tool for d in ended.permission_denials] == ["write"]


async def test_yolo_is_not_bound_by_the_scope(fake_provider: FakeProvider, repo_env: Path) -> None:
    script_edits(fake_provider)
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, permission_mode="yolo"))
    try:
        await turn(session, "fix it")
    finally:
        await session.close()
    assert (repo_env / "docs" / "x.md").exists()


async def test_widening_asks_with_the_difference_and_resume_restores_the_scope(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    wider: dict[str, JSONValue] = {**SCOPE, "paths": ["src/**", "docs/**"]}
    fake_provider.script(
        anthropic.tool_calls_turn([call("s1", "declare_scope", SCOPE)]),
        anthropic.tool_calls_turn([call("s2", "declare_scope", wider)]),
        anthropic.text_turn("ok"),
    )
    asked, approve = recorder()
    session = AgentSession.open(
        SessionOptions(cwd=repo_env, model=MODEL, permission_mode="auto"), approve=approve
    )
    try:
        await turn(session, "plan")
        sid = session.id
    finally:
        await session.close()
    (only,) = asked
    assert only.request.tool == "declare_scope" and only.reason.endswith("docs/**")
    fake_provider.script(
        anthropic.tool_calls_turn([call("w1", "write", {"path": "docs/x.md", "content": "n\n"})]),
        anthropic.text_turn("done"),
    )
    again = AgentSession.open(
        SessionOptions(cwd=repo_env, model=MODEL, permission_mode="auto", resume=sid)
    )
    try:
        ended = await turn(again, "write the notes")
    finally:
        await again.close()
    assert again.gate.scope.paths == ["src/**"]  # the refused widening did not count
    assert not (repo_env / "docs" / "x.md").exists()
    assert [d.tool for d in ended.permission_denials] == ["write"]


async def test_the_scope_command_shows_the_contract(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([call("s1", "declare_scope", SCOPE)]),
        anthropic.text_turn("ok"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        before = await commands.run(session, "/scope")
        await turn(session, "plan")
        after = await commands.run(session, "/scope")
    finally:
        await session.close()
    assert before is not None and before.text == "no scope declared"
    assert after is not None
    assert after.text == "goal: fix the parser\npaths: src/**\nsteps:\n  1. read\n  2. fix"


async def test_a_symlink_inside_the_scope_does_not_lead_out_of_it(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    (repo_env / "docs").mkdir()
    (repo_env / "src").mkdir()
    (repo_env / "src" / "link").symlink_to(repo_env / "docs")
    fake_provider.script(
        anthropic.tool_calls_turn([call("s1", "declare_scope", SCOPE)]),
        anthropic.tool_calls_turn(
            [call("w1", "write", {"path": "src/link/x.md", "content": "n\n"})]
        ),
        anthropic.text_turn("done"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, permission_mode="auto"))
    try:
        ended = await turn(session, "write")
    finally:
        await session.close()
    assert not (repo_env / "docs" / "x.md").exists()
    assert [d.tool for d in ended.permission_denials] == ["write"]


async def test_shell_writes_beyond_redirections_are_held_to_the_scope(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    (repo_env / "src").mkdir()
    (repo_env / "docs").mkdir()
    (repo_env / "docs" / "x.md").write_text("old\n")
    fake_provider.script(
        anthropic.tool_calls_turn([call("s1", "declare_scope", SCOPE)]),
        anthropic.tool_calls_turn(
            [
                call("b1", "bash", {"command": "sed -i s/old/new/ docs/x.md"}),
                call("b2", "bash", {"command": "echo more | tee -a docs/x.md"}),
                call("b3", "bash", {"command": "touch src/ok.py && cp src/ok.py src/copy.py"}),
            ]
        ),
        anthropic.text_turn("done"),
    )
    asked, approve = recorder()
    session = AgentSession.open(
        SessionOptions(cwd=repo_env, model=MODEL, permission_mode="auto", allow=["Bash"]),
        approve=approve,
    )
    try:
        await turn(session, "fix it")
    finally:
        await session.close()
    assert (repo_env / "docs" / "x.md").read_text() == "old\n"
    assert (repo_env / "src" / "copy.py").exists()
    assert [a.call.id for a in asked] == ["b1", "b2"]
    assert all("outside the declared scope (src/**): " in a.reason for a in asked)
    assert "docs/x.md" in asked[0].reason
