"""earshot.v1 records of subagents: the same records as the main agent's, written live,
each with ``parent_call_id`` (additive to v1: declared in the schema, optional)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from earshot.core.loop.events import (
    AgentEvent,
    PermissionDecided,
    SubagentEvent,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    TurnEnded,
    TurnStarted,
    denial,
)
from earshot.headless.render import load_schema
from earshot.providers.types import Message, TextPart, ToolCallPart, ToolResultPart, Usage
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.test_headless_cli import earshot, records
from tests.test_headless_records import (
    _assistant,
    _obj,
    _record_defs,
    _records,
    _render,
    _tool_turn,
)

TASK = ToolCallPart(id="t1", name="task", input={"description": "look", "prompt": "look"})
NESTED = ToolCallPart(id="t2", name="task", input={"description": "deeper", "prompt": "go"})
BASH = ToolCallPart(id="b1", name="bash", input={"command": "rm -rf build"})
CHILD_USAGE = Usage(input=50, output=5)


def _of(call: str, event: AgentEvent) -> SubagentEvent:
    return SubagentEvent(
        parent_call_id=call, agent="general-purpose", description="look", event=event
    )


def _delegated_turn() -> tuple[list[AgentEvent], TurnEnded]:
    """The main agent calls task; its child calls bash (denied) and a task of its own."""
    events, ended = _tool_turn()
    child_turn: list[AgentEvent] = [
        TurnStarted(input=Message(role="user", parts=[TextPart(text="look")])),
        TextDelta(text="Cleaning."),
        _assistant(
            [TextPart(text="Cleaning."), BASH, NESTED],
            usage=CHILD_USAGE,
            cost=0.001,
            total_usage=CHILD_USAGE,
            total_cost=0.001,
            finish="tool_calls",
        ),
        ToolCallRequested(call=BASH, read_only=False, title="bash: rm -rf build"),
        PermissionDecided(call_id="b1", tool="bash", outcome="deny", reason="a deny rule"),
        ToolFinished(
            result=ToolResultPart(
                call_id="b1", name="bash", content=[TextPart(text="denied")], is_error=True
            ),
            brief="denied",
            duration_ms=0.1,
        ),
        ToolCallRequested(call=NESTED, read_only=True, title="task"),
        PermissionDecided(call_id="t2", tool="task", outcome="allow", reason="read-only tool"),
        _of(
            "t2",
            _assistant(
                [TextPart(text="deep answer")],
                usage=CHILD_USAGE,
                cost=0.001,
                total_usage=CHILD_USAGE,
                total_cost=0.001,
            ),
        ),
        ToolFinished(
            result=ToolResultPart(call_id="t2", name="task", content=[TextPart(text="deep")]),
            brief="done",
            duration_ms=9.0,
        ),
        TurnEnded(
            reason="end_turn",
            text="done",
            model_calls=1,
            usage=CHILD_USAGE,
            cost_usd=0.001,
            total_usage=CHILD_USAGE,
            total_cost_usd=0.001,
            permission_denials=[denial(BASH, "a deny rule")],
        ),
    ]
    task: list[AgentEvent] = [
        ToolCallRequested(call=TASK, read_only=True, title="task"),
        PermissionDecided(call_id="t1", tool="task", outcome="allow", reason="read-only tool"),
        *(_of("t1", event) for event in child_turn),
        ToolFinished(
            result=ToolResultPart(call_id="t1", name="task", content=[TextPart(text="report")]),
            brief="general-purpose: 0 file(s) changed",
            duration_ms=20.0,
        ),
    ]
    return [*events[:-1], *task, events[-1]], ended


def test_a_childs_records_carry_the_task_call_and_come_while_it_runs() -> None:
    stdout, _, _ = _render("stream-json", *_delegated_turn())
    records = _records(stdout)
    marked = [(r["type"], r.get("parent_call_id")) for r in records if "parent_call_id" in r]
    assert marked == [
        ("message", "t1"),
        ("usage", "t1"),
        ("tool_call", "t1"),
        ("permission", "t1"),
        ("tool_result", "t1"),
        ("tool_call", "t1"),
        ("permission", "t1"),
        ("message", "t2"),  # the child's child names the child's task call
        ("usage", "t2"),
        ("tool_result", "t1"),
    ]
    kinds = [(r["type"], r.get("call_id") or r.get("id")) for r in records]
    first_child = next(i for i, r in enumerate(records) if "parent_call_id" in r)
    assert kinds[first_child - 1] == ("permission", "t1")
    assert kinds.index(("tool_result", "t1")) > max(
        i for i, r in enumerate(records) if "parent_call_id" in r
    )


def test_the_result_lists_a_childs_refused_calls_with_its_task_call() -> None:
    result = _render("json", *_delegated_turn())[2]
    denials = result["permission_denials"]
    assert isinstance(denials, list)
    assert [(_obj(d)["tool"], _obj(d).get("parent_call_id")) for d in denials] == [
        ("edit", None),
        ("bash", "t1"),
    ]


def test_child_records_validate_and_declare_parent_call_id() -> None:
    from jsonschema import Draft202012Validator

    schema = load_schema()
    validator = Draft202012Validator(schema)
    declared = _record_defs(schema)
    stdout, _, _ = _render("stream-json", *_delegated_turn())
    for record in _records(stdout):
        validator.validate(record)
        kind = record["type"]
        assert isinstance(kind, str)
        assert set(record) <= set(_obj(declared[kind]["properties"])), kind
    denial_fields = _obj(_obj(_obj(schema["$defs"])["permission_denial"])["properties"])
    assert "parent_call_id" in denial_fields


def test_verbose_progress_lines_of_a_child_name_its_task_call() -> None:
    _, err, _ = _render("text", *_delegated_turn(), verbose=True)
    assert "  [t1] [denied] bash: a deny rule" in err.splitlines()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "notes.txt").write_text("alpha\n")
    return work


def test_earshot_p_streams_a_childs_records_and_counts_its_usage(
    fake_provider: FakeProvider, repo: Path
) -> None:
    task_call = ToolCallSpec("t1", "task", {"description": "read", "prompt": "read notes.txt"})
    fake_provider.script(
        anthropic.tool_calls_turn([task_call]),
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("It says alpha."),
        anthropic.text_turn("The child says alpha."),
    )
    done = earshot(fake_provider, repo, "-p", "delegate", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    lines = records(done.stdout)
    child = [(r["type"], r.get("name")) for r in lines if r.get("parent_call_id") == "t1"]
    assert ("tool_call", "read") in child and ("tool_result", "read") in child
    assert [r["type"] for r in lines if r.get("parent_call_id") == "t1"].count("usage") == 2
    result = lines[-1]
    usage = result["usage"]
    assert isinstance(usage, dict)
    assert usage["input_tokens"] == 4 * anthropic.DEFAULT_USAGE.input_tokens
