"""earshot.v1 headless output: the records a script reads from ``earshot -p``.

The lock (``LOCKED``) is the compatibility rule as code: every record type and field listed
here must stay, in the published schema and in what the renderer writes. Adding a type or a
field passes; renaming or removing one fails, which is the question "is this a v2?" asked
before it is answered by accident.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from importlib.resources import files

import pytest
from jsonschema import Draft202012Validator

from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    HookRan,
    ModelCallStarted,
    Notice,
    PermissionDecided,
    ReasoningDelta,
    StopReason,
    TextDelta,
    ToolCallRequested,
    ToolCallStreaming,
    ToolFinished,
    ToolProgress,
    TurnEnded,
    TurnStarted,
    denial,
)
from earshot.core.tools.display import ScopeView
from earshot.headless.render import (
    FORMATS,
    SCHEMA,
    HeadlessRenderer,
    InitInfo,
    OutputFormat,
    exit_status,
    load_schema,
    parse_output_format,
)
from earshot.providers.types import (
    FinishReason,
    JSONObject,
    JSONValue,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)


def _fields(names: str) -> set[str]:
    return set(names.split())


LOCKED: dict[str, set[str]] = {
    "init": _fields("schema type session_id model cwd tools permission_mode version memory_files"),
    "message": _fields("schema type text"),
    "reasoning": _fields("schema type text"),
    "tool_call": _fields("schema type id name input"),
    "tool_result": _fields("schema type call_id name is_error content brief duration_ms"),
    "tool_progress": _fields("schema type call_id message progress total"),
    "permission": _fields("schema type call_id tool decision reason rule"),
    "usage": _fields(
        "schema type model input_tokens output_tokens cache_read_tokens cache_write_tokens"
        " reasoning_tokens cost_usd total_cost_usd"
    ),
    "notice": _fields("schema type level message"),
    "scope": _fields("schema type goal paths steps"),
    "hook": _fields(
        "schema type event command matcher source exit_code duration_ms decision output"
    ),
    "error": _fields("schema type kind message"),
    "result": _fields(
        "schema type success stop_reason text session_id num_turns duration_ms usage cost_usd"
        " total_cost_usd cost_note permission_denials error"
    ),
}
LOCKED_TOKENS = _fields(
    "input_tokens output_tokens cache_read_tokens cache_write_tokens reasoning_tokens"
)
LOCKED_ERROR_DETAIL = _fields("kind message")
LOCKED_DENIAL = _fields("call_id tool input reason")

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-SECRET_OLD_LINE\n+SECRET_NEW_LINE\n"
INFO = InitInfo(
    session_id="s-123",
    model="anthropic/claude-sonnet-4-5",
    cwd="/repo",
    tools=["read", "edit", "bash"],
    permission_mode="default",
    version="0.1.0",
    memory_files=["/repo/AGENTS.md"],
)


# --- building a realistic turn ---------------------------------------------------------


def _assistant(
    parts: list[TextPart | ReasoningPart | ToolCallPart],
    *,
    usage: Usage,
    cost: float | None,
    total_usage: Usage,
    total_cost: float | None,
    finish: FinishReason = "stop",
) -> AssistantMessage:
    return AssistantMessage(
        message=Message(role="assistant", parts=[*parts]),
        model="anthropic/claude-sonnet-4-5",
        finish_reason=finish,
        usage=usage,
        cost_usd=cost,
        total_usage=total_usage,
        total_cost_usd=total_cost,
    )


READ_CALL = ToolCallPart(id="c1", name="read", input={"path": "app.py"})
EDIT_CALL = ToolCallPart(id="c2", name="edit", input={"path": "app.py", "find": "a", "new": "b"})
FIRST = Usage(input=1200, output=80, cache_read=3000, cache_write=0, reasoning=30)
SECOND = Usage(input=400, output=20, cache_read=4200)


def _tool_turn(*, cost: float | None = 0.012) -> tuple[list[AgentEvent], TurnEnded]:
    """Two model calls: reasoning, text and two tool calls (one allowed, one denied with a
    diff as its detail), a retry notice, then the final answer."""
    total_cost = None if cost is None else cost * 2
    events: list[AgentEvent] = [
        TurnStarted(input=Message(role="user", parts=[TextPart(text="fix the bug")])),
        ModelCallStarted(index=0, model="anthropic/claude-sonnet-4-5"),
        ReasoningDelta(text="The bug is "),
        ReasoningDelta(text="in app.py."),
        TextDelta(text="Let me look."),
        ToolCallStreaming(id="c1", name="read"),
        ToolCallStreaming(id="c2", name="edit"),
        _assistant(
            [
                ReasoningPart(text="The bug is in app.py."),
                TextPart(text="Let me look."),
                READ_CALL,
                EDIT_CALL,
            ],
            usage=FIRST,
            cost=cost,
            total_usage=FIRST,
            total_cost=cost,
            finish="tool_calls",
        ),
        ToolCallRequested(call=READ_CALL, read_only=True, title="read app.py"),
        PermissionDecided(call_id="c1", tool="read", outcome="allow", reason="read-only tool"),
        ToolProgress(call_id="c1", message="reading app.py", progress=1.0, total=2.0),
        ToolProgress(call_id="c1", message="still reading"),
        ToolFinished(
            result=ToolResultPart(call_id="c1", name="read", content=[TextPart(text="1\ta = 1\n")]),
            brief="1 line",
            duration_ms=3.4,
        ),
        ToolCallRequested(call=EDIT_CALL, read_only=False, title="edit app.py", detail=DIFF),
        PermissionDecided(
            call_id="c2",
            tool="edit",
            outcome="deny",
            reason="needs approval and nobody can be asked in headless mode",
            rule="mode:default",
            asked=True,
        ),
        ToolFinished(
            result=ToolResultPart(
                call_id="c2",
                name="edit",
                content=[TextPart(text="denied: needs approval")],
                is_error=True,
            ),
            brief="denied",
            duration_ms=0.1,
        ),
        Notice(level="info", message="rate limited; retrying in 2 s"),
        ModelCallStarted(index=1, model="anthropic/claude-sonnet-4-5"),
        TextDelta(text="I could not edit app.py."),
        _assistant(
            [TextPart(text="I could not edit app.py.")],
            usage=SECOND,
            cost=cost,
            total_usage=FIRST + SECOND,
            total_cost=total_cost,
        ),
    ]
    ended = TurnEnded(
        reason="end_turn",
        text="I could not edit app.py.",
        model_calls=2,
        usage=FIRST + SECOND,
        cost_usd=total_cost,
        total_usage=FIRST + SECOND,
        total_cost_usd=total_cost,
        permission_denials=[denial(EDIT_CALL, "needs approval and nobody can be asked")],
    )
    return events, ended


def _failed_turn() -> tuple[list[AgentEvent], TurnEnded]:
    events: list[AgentEvent] = [
        TurnStarted(input=Message(role="user", parts=[TextPart(text="hello")])),
        ModelCallStarted(index=0, model="openai/gpt-5"),
        TextDelta(text="Hel"),
        Notice(level="warning", message="retry 3 of 3 failed"),
    ]
    ended = TurnEnded(
        reason="error",
        text="",
        model_calls=1,
        usage=Usage(),
        cost_usd=0.0,
        total_usage=Usage(),
        total_cost_usd=0.0,
        error_kind="rate_limit",
        error="429 Too Many Requests: quota exceeded",
    )
    return events, ended


def _render(
    fmt: OutputFormat,
    events: Sequence[AgentEvent],
    ended: TurnEnded,
    *,
    verbose: bool = False,
) -> tuple[str, str, JSONObject]:
    out, err = io.StringIO(), io.StringIO()
    renderer = HeadlessRenderer(fmt, out, err, verbose=verbose)
    renderer.init(INFO)
    for event in events:
        renderer.event(event)
    renderer.event(ended)
    result = renderer.finish(ended, session_id="s-123", duration_ms=1234.6, num_turns=2)
    return out.getvalue(), err.getvalue(), result


def _records(stdout: str) -> list[JSONObject]:
    records: list[JSONObject] = []
    for line in stdout.splitlines():
        value = json.loads(line)
        assert isinstance(value, dict), line
        records.append(value)
    return records


def _obj(value: JSONValue) -> JSONObject:
    assert isinstance(value, dict)
    return value


def _names(value: JSONValue) -> set[str]:
    assert isinstance(value, list)
    return {item for item in value if isinstance(item, str)}


def _record_defs(schema: JSONObject) -> dict[str, JSONObject]:
    """Record type -> its ``$defs`` entry, following the top-level ``oneOf``."""
    defs = _obj(schema["$defs"])
    found: dict[str, JSONObject] = {}
    one_of = schema["oneOf"]
    assert isinstance(one_of, list)
    for ref in one_of:
        target = _obj(ref)["$ref"]
        assert isinstance(target, str)
        entry = _obj(defs[target.removeprefix("#/$defs/")])
        kind = _obj(_obj(entry["properties"])["type"])["const"]
        assert isinstance(kind, str)
        found[kind] = entry
    return found


def _lock_violations(schema: JSONObject) -> list[str]:
    problems: list[str] = []
    declared = _record_defs(schema)
    for kind, fields in LOCKED.items():
        if kind not in declared:
            problems.append(f"record type {kind!r} is gone")
            continue
        properties = set(_obj(declared[kind]["properties"]))
        required = _names(declared[kind]["required"])
        problems += [f"{kind}.{f} is gone" for f in sorted(fields - properties)]
        problems += [f"{kind}.{f} is no longer required" for f in sorted(fields - required)]
    defs = _obj(schema["$defs"])
    for name, fields in (
        ("tokens", LOCKED_TOKENS),
        ("error_detail", LOCKED_ERROR_DETAIL),
        ("permission_denial", LOCKED_DENIAL),
    ):
        properties = set(_obj(_obj(defs[name])["properties"]))
        problems += [f"{name}.{f} is gone" for f in sorted(fields - properties)]
    return problems


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema())


# --- the contract --------------------------------------------------------------------------


def test_schema_string_is_pinned() -> None:
    assert SCHEMA == "earshot.v1"


def test_schema_file_ships_as_package_data_and_is_a_valid_2020_12_schema() -> None:
    text = files("earshot.headless.schema").joinpath("earshot.v1.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema == load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_every_stream_json_line_parses_carries_the_schema_and_validates(
    validator: Draft202012Validator,
) -> None:
    for events, ended in (_tool_turn(), _failed_turn(), _tool_turn(cost=None)):
        stdout, _, _ = _render("stream-json", events, ended)
        assert stdout.endswith("\n")
        for record in _records(stdout):
            assert record["schema"] == SCHEMA
            validator.validate(record)


def test_stream_json_writes_records_in_event_order() -> None:
    events, ended = _tool_turn()
    stdout, _, _ = _render("stream-json", events, ended)
    kinds = [r["type"] for r in _records(stdout)]
    assert kinds == [
        "init",
        "reasoning",
        "message",
        "usage",
        "tool_call",
        "permission",
        "tool_progress",
        "tool_progress",
        "tool_result",
        "tool_call",
        "permission",
        "tool_result",
        "notice",
        "message",
        "usage",
        "result",
    ]


def test_last_stream_json_line_is_the_object_json_prints() -> None:
    for events, ended in (_tool_turn(), _failed_turn()):
        streamed, _, streamed_result = _render("stream-json", events, ended)
        printed, err, printed_result = _render("json", events, ended)
        assert printed.count("\n") == 1, "json prints one object on one line"
        assert _records(streamed)[-1] == _records(printed)[0] == printed_result
        assert streamed_result == printed_result
        assert "{" not in err


def test_record_types_and_field_names_are_locked_in_the_schema() -> None:
    assert _lock_violations(load_schema()) == []


def test_lock_fails_on_a_renamed_field_or_a_removed_type() -> None:
    schema = load_schema()
    defs = _obj(schema["$defs"])
    permission = _obj(_obj(defs["permission"])["properties"])
    permission["verdict"] = permission.pop("decision")
    one_of = schema["oneOf"]
    assert isinstance(one_of, list)
    schema["oneOf"] = [r for r in one_of if _obj(r)["$ref"] != "#/$defs/reasoning"]
    assert _lock_violations(schema) == [
        "record type 'reasoning' is gone",
        "permission.decision is gone",
    ]


def test_records_written_carry_every_locked_field_and_only_declared_ones() -> None:
    declared = _record_defs(load_schema())
    seen: dict[str, set[str]] = {}
    for events, ended in (_tool_turn(), _failed_turn(), _scoped_turn(), _hooked_turn()):
        stdout, _, _ = _render("stream-json", events, ended)
        for record in _records(stdout):
            kind = record["type"]
            assert isinstance(kind, str)
            seen.setdefault(kind, set()).update(record)
            assert set(record) <= set(_obj(declared[kind]["properties"])), kind
    assert set(LOCKED) <= set(seen)
    for kind, fields in LOCKED.items():
        assert fields <= seen[kind], kind


def test_result_nested_objects_keep_their_locked_fields() -> None:
    events, ended = _tool_turn()
    result = _render("json", events, ended)[2]
    assert set(_obj(result["usage"])) >= LOCKED_TOKENS
    denials = result["permission_denials"]
    assert isinstance(denials, list)
    assert [set(_obj(d)) >= LOCKED_DENIAL for d in denials] == [True]
    failed = _render("json", *_failed_turn())[2]
    assert set(_obj(failed["error"])) >= LOCKED_ERROR_DETAIL


# --- formats -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelled", "meant"),
    [
        ("text", "text"),
        ("json", "json"),
        ("stream-json", "stream-json"),
        ("json@v1", "json"),
        ("stream-json@v1", "stream-json"),
    ],
)
def test_accepted_output_formats(spelled: str, meant: str) -> None:
    assert spelled in FORMATS
    assert parse_output_format(spelled) == meant


def test_json_at_v1_prints_exactly_what_json_prints() -> None:
    events, ended = _tool_turn()
    plain = _render(parse_output_format("json"), events, ended)[0]
    pinned = _render(parse_output_format("json@v1"), events, ended)[0]
    plain_result = _obj(json.loads(plain))
    pinned_result = _obj(json.loads(pinned))
    assert plain_result == pinned_result


@pytest.mark.parametrize(
    "value", ["json@v2", "stream-json@v2", "yaml", "", "JSON", "text@v1", "json@"]
)
def test_unknown_output_formats_are_refused_with_one_line(value: str) -> None:
    with pytest.raises(ValueError, match="accepted: text, json, stream-json") as caught:
        parse_output_format(value)
    assert "\n" not in str(caught.value)


def test_json_mode_prints_nothing_but_the_result() -> None:
    events, ended = _tool_turn()
    stdout, stderr, _ = _render("json", events, ended)
    [only] = _records(stdout)
    assert only["type"] == "result"
    assert stderr == ""


def test_text_mode_prints_only_the_final_text_and_names_denials_on_stderr() -> None:
    events, ended = _tool_turn()
    stdout, stderr, result = _render("text", events, ended)
    assert stdout == "I could not edit app.py.\n"
    assert stderr.startswith("earshot: 1 tool call was denied (edit); rerun with")
    assert stderr.count("\n") == 1
    assert result["success"] is True


def test_verbose_text_mode_reports_tools_and_permissions_on_stderr_only() -> None:
    events, ended = _tool_turn()
    stdout, stderr, _ = _render("text", events, ended, verbose=True)
    assert stdout == "I could not edit app.py.\n"
    assert "[tool] read app.py" in stderr
    assert "[denied] edit: needs approval" in stderr
    assert "[error] edit: denied" in stderr
    assert "SECRET" not in stderr
    assert "[progress] c1: reading app.py (1/2)" in stderr
    assert "still reading" not in stderr  # a report without a count: the record only


def test_deltas_are_not_records() -> None:
    events: list[AgentEvent] = [
        TextDelta(text="partial"),
        ReasoningDelta(text="thinking"),
        ToolCallStreaming(id="c9", name="bash"),
    ]
    _, ended = _tool_turn()
    stdout, _, _ = _render("stream-json", events, ended)
    assert [r["type"] for r in _records(stdout)] == ["init", "result"]
    assert "partial" not in stdout


def test_a_call_with_only_tool_calls_writes_no_message_record() -> None:
    call = _assistant([READ_CALL], usage=FIRST, cost=0.01, total_usage=FIRST, total_cost=0.01)
    _, ended = _tool_turn()
    stdout, _, _ = _render("stream-json", [call], ended)
    assert [r["type"] for r in _records(stdout)] == ["init", "usage", "result"]


# --- what records say ------------------------------------------------------------------


def test_permission_records_never_carry_the_detail() -> None:
    events, ended = _tool_turn()
    stdout, _, _ = _render("stream-json", events, ended)
    permissions = [r for r in _records(stdout) if r["type"] == "permission"]
    assert [p["decision"] for p in permissions] == ["allow", "deny"]
    denied = permissions[1]
    assert denied["reason"] == "needs approval and nobody can be asked in headless mode"
    assert denied["rule"] == "mode:default"
    assert "SECRET" not in json.dumps(permissions)
    assert "detail" not in denied
    assert "SECRET" not in stdout


def test_successful_turn_result() -> None:
    events, ended = _tool_turn()
    result = _render("json", events, ended)[2]
    assert result["success"] is True
    assert result["stop_reason"] == "end_turn"
    assert result["text"] == "I could not edit app.py."
    assert result["session_id"] == "s-123"
    assert result["num_turns"] == 2
    assert result["duration_ms"] == 1235
    assert result["usage"] == {
        "input_tokens": 1600,
        "output_tokens": 100,
        "cache_read_tokens": 7200,
        "cache_write_tokens": 0,
        "reasoning_tokens": 30,
    }
    assert result["total_cost_usd"] == pytest.approx(0.024)
    assert result["cost_note"] is None
    assert result["error"] is None
    assert result["permission_denials"] == [
        {
            "call_id": "c2",
            "tool": "edit",
            "input": {"path": "app.py", "find": "a", "new": "b"},
            "reason": "needs approval and nobody can be asked",
        }
    ]


def test_failed_turn_gives_success_false_with_the_error() -> None:
    events, ended = _failed_turn()
    stdout, stderr, result = _render("stream-json", events, ended)
    records = _records(stdout)
    assert [r["type"] for r in records[-2:]] == ["error", "result"]
    expected_error = {"kind": "rate_limit", "message": "429 Too Many Requests: quota exceeded"}
    assert {k: records[-2][k] for k in ("kind", "message")} == expected_error
    assert result["success"] is False
    assert result["stop_reason"] == "error"
    assert result["error"] == expected_error
    assert exit_status(ended) == 1
    assert stderr == "earshot: warning: retry 3 of 3 failed\n", "warnings reach a person"


def test_failed_turn_in_text_mode_says_why_on_stderr() -> None:
    events, ended = _failed_turn()
    stdout, stderr, _ = _render("text", events, ended)
    assert stdout == ""
    assert "earshot: warning: retry 3 of 3 failed\n" in stderr
    assert stderr.endswith(
        "earshot: the model call failed (rate_limit): 429 Too Many Requests: quota exceeded\n"
    )


@pytest.mark.parametrize(
    ("reason", "status"),
    [
        ("end_turn", 0),
        ("max_turns", 1),
        ("budget", 1),
        ("length", 1),
        ("refusal", 1),
        ("error", 1),
        ("aborted", 130),
    ],
)
def test_success_only_for_end_turn(reason: StopReason, status: int) -> None:
    ended = TurnEnded(
        reason=reason,
        text="partial answer",
        model_calls=3,
        usage=Usage(),
        cost_usd=0.0,
        total_usage=Usage(),
        total_cost_usd=0.0,
    )
    stdout, stderr, result = _render("text", [], ended)
    assert result["success"] is (reason == "end_turn")
    assert result["stop_reason"] == reason
    assert (result["error"] is None) is (reason != "error")
    assert exit_status(ended) == status
    assert stdout == "partial answer\n"
    assert (stderr == "") is (reason == "end_turn")


def test_unknown_cost_is_null_with_a_note(validator: Draft202012Validator) -> None:
    events, ended = _tool_turn(cost=None)
    stdout, _, result = _render("stream-json", events, ended)
    usages = [r for r in _records(stdout) if r["type"] == "usage"]
    assert [(u["cost_usd"], u["total_cost_usd"]) for u in usages] == [(None, None)] * 2
    assert result["cost_usd"] is None
    assert result["total_cost_usd"] is None
    note = result["cost_note"]
    assert isinstance(note, str)
    assert "anthropic/claude-sonnet-4-5" in note
    validator.validate(result)


def test_finish_writes_once() -> None:
    _, ended = _tool_turn()
    renderer = HeadlessRenderer("json", io.StringIO(), io.StringIO())
    renderer.finish(ended, session_id="s", duration_ms=1.0, num_turns=0)
    with pytest.raises(RuntimeError):
        renderer.finish(ended, session_id="s", duration_ms=1.0, num_turns=0)


def _scoped_turn() -> tuple[list[AgentEvent], TurnEnded]:
    """The tool turn with a scope declaration before its last event."""
    events, ended = _tool_turn()
    declared = ToolFinished(
        result=ToolResultPart(call_id="s1", name="declare_scope", content=[TextPart(text="ok")]),
        brief="scope: src/**",
        duration_ms=0.1,
        display=ScopeView(goal="fix the parser", paths=["src/**"], steps=["read", "fix"]),
    )
    return [*events[:-1], declared, events[-1]], ended


def test_a_scope_declaration_is_a_scope_record(validator: Draft202012Validator) -> None:
    stdout, _, _ = _render("stream-json", *_scoped_turn())
    scopes = [r for r in _records(stdout) if r["type"] == "scope"]
    assert scopes == [
        {
            "schema": SCHEMA,
            "type": "scope",
            "goal": "fix the parser",
            "paths": ["src/**"],
            "steps": ["read", "fix"],
        }
    ]
    for record in scopes:
        validator.validate(record)


def _hooked_turn() -> tuple[list[AgentEvent], TurnEnded]:
    """The tool turn with a blocking PreToolUse hook run before its last event."""
    events, ended = _tool_turn()
    ran = HookRan(
        event="PreToolUse",
        command="./no-shell.sh",
        matcher="Bash",
        source="user",
        exit_code=2,
        duration_ms=3.4,
        decision="block",
        output="no shell today",
    )
    return [*events[:-1], ran, events[-1]], ended


def test_a_hook_run_is_a_hook_record_not_a_notice(validator: Draft202012Validator) -> None:
    stdout, _, _ = _render("stream-json", *_hooked_turn())
    hooks = [r for r in _records(stdout) if r["type"] == "hook"]
    assert hooks == [
        {
            "schema": SCHEMA,
            "type": "hook",
            "event": "PreToolUse",
            "command": "./no-shell.sh",
            "matcher": "Bash",
            "source": "user",
            "exit_code": 2,
            "duration_ms": 3,
            "decision": "block",
            "output": "no shell today",
        }
    ]
    validator.validate(hooks[0])
    assert "no-shell" not in json.dumps([r for r in _records(stdout) if r["type"] == "notice"])
