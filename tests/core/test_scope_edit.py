"""The scope as a person edits it (``/scope``): the document round-trips, a bad edit names
its line and changes nothing, a good one applies directly (widening too) and is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot._base.json import JSONValue
from earshot.core.agent_session import AgentSession
from earshot.core.config.options import SessionOptions
from earshot.core.scope_edit import (
    ScopeDraft,
    ScopeEditError,
    apply_draft,
    edit_scope,
    parse_scope,
    scope_document,
)
from earshot.core.tools.contract import ScopeContract
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def declared() -> ScopeContract:
    scope = ScopeContract()
    scope.declare("fix the parser", ["src/**", "tests/**"], ["read it", "fix it"])
    return scope


def test_the_document_reads_back_as_the_same_scope() -> None:
    scope = declared()
    assert parse_scope(scope_document(scope)) == ScopeDraft(
        goal="fix the parser", paths=["src/**", "tests/**"], steps=["read it", "fix it"]
    )


def test_an_undeclared_scope_is_an_empty_form_that_changes_nothing() -> None:
    text = scope_document(ScopeContract())
    assert "goal:" in text and "Nothing is declared yet" in text
    with pytest.raises(ScopeEditError, match="line 6: the goal is empty"):
        parse_scope(text)
    assert parse_scope("# only comments\n\n") is None


def test_bullets_numbers_and_one_line_paths_are_read() -> None:
    draft = parse_scope(
        "Goal: tidy the docs\n  and the readme\npaths: docs/**, README.md\nsteps:\n- one\n2) two\n"
    )
    assert draft == ScopeDraft(
        goal="tidy the docs and the readme", paths=["docs/**", "README.md"], steps=["one", "two"]
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("owner: me\ngoal: x\npaths: a\n", "line 1: unknown section 'owner'"),
        ("goal: x\npaths:\n  src/** docs/**\n", "line 3: 'src/** docs/**' is not one path glob"),
        ("goal: x\npaths:\nsteps:\n  1. a\n", "line 2: no paths"),
        ("goal: x\npaths: a\nsteps: b\npaths: c\n", "line 4: a second 'paths' section"),
        ("goal:\npaths: a\n", "line 1: the goal is empty"),
    ],
)
def test_a_bad_edit_names_the_line_at_fault(text: str, message: str) -> None:
    with pytest.raises(ScopeEditError) as raised:
        parse_scope(text)
    assert str(raised.value).startswith(message)


def test_a_person_widening_the_paths_applies_directly() -> None:
    scope = declared()
    change = apply_draft(
        scope, ScopeDraft(goal="fix the parser", paths=["src/**", "docs/**"], steps=["fix it"])
    )
    assert change.text() == "scope updated: paths + docs/**; paths - tests/**; steps"
    assert scope.paths == ["src/**", "docs/**"] and scope.steps == ["fix it"]
    same = apply_draft(scope, ScopeDraft("fix the parser", ["src/**", "docs/**"], ["fix it"]))
    assert not same.changed and same.text() == "the scope is unchanged"


def test_a_line_after_the_goal_must_be_indented_to_continue_it() -> None:
    with pytest.raises(ScopeEditError, match="line 2: 'owner: me' follows the goal"):
        parse_scope("goal: x\nowner: me\npaths: a\n")
    assert parse_scope("goal:\nfix it\npaths: a\n") == ScopeDraft("fix it", ["a"], [])


@pytest.mark.anyio
async def test_a_persons_edit_reaches_the_model_and_survives_a_resume(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    scope: dict[str, JSONValue] = {"goal": "fix the parser", "paths": ["src/**"], "steps": []}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("s1", "declare_scope", scope)]),
        anthropic.text_turn("declared"),
        anthropic.text_turn("noted"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL))
    try:
        async for _ in session.prompt("plan"):
            pass
        with pytest.raises(ScopeEditError):
            await edit_scope(session, "goal: x\npaths:\n  a b\n")
        assert session.gate.scope.paths == ["src/**"]
        change = await edit_scope(session, "goal: fix the parser\npaths: src/**, docs/**\n")
        assert change.added == ["docs/**"]
        async for _ in session.prompt("go on"):
            pass
        sid = session.id
    finally:
        await session.close()
    sent = json.dumps(fake_provider.requests[-1].json()["messages"])
    assert "The user edited the declared scope" in sent and "docs/**" in sent
    again = AgentSession.open(SessionOptions(cwd=repo_env, model=MODEL, resume=sid))
    try:
        assert again.gate.scope.paths == ["src/**", "docs/**"]
    finally:
        await again.close()
