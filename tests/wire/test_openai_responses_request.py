"""What the openai-responses adapter sends: the pinned body per shared case, the URL and
auth, effort mapping, max-token defaulting, tool_choice forms and history replay rules.

Snapshots live in ``tests/wire/snapshots/openai-responses/<case>.json``; run with
``EARSHOT_UPDATE_SNAPSHOTS=1`` to rewrite them (then review the diff against notes-wire.md
section 3: the snapshot is the spec of what we send).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest

from earshot.providers.models import EffortOption, ModelInfo
from earshot.providers.target import AuthStyle, Secret, Target
from earshot.providers.types import (
    ForcedTool,
    JSONObject,
    JSONValue,
    Message,
    ModelRequest,
    ReasoningEffort,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
)
from earshot.providers.wire import get_wire
from tests.wire.cases import CASES, LIST_TOOL, READ_TOOL, Case, model_info

WIRE = get_wire("openai-responses")
KEY = "sk-test-responses-0123456789abcdef"
SNAPSHOTS = Path(__file__).parent / "snapshots" / "openai-responses"
# Read at import: the hermetic fixture clears EARSHOT_* variables inside each test.
UPDATE = os.environ.get("EARSHOT_UPDATE_SNAPSHOTS") == "1"


def target(
    *,
    info: ModelInfo | None = None,
    auth: AuthStyle = "bearer",
    api_key: str | None = KEY,
    base_url: str = "https://api.openai.com/v1",
    headers: dict[str, str] | None = None,
) -> Target:
    return Target(
        provider="openai",
        wire="openai-responses",
        base_url=base_url,
        model="test-model",
        auth=auth,
        api_key=Secret(api_key) if api_key is not None else None,
        info=info,
        headers=headers or {},
    )


def body_of(request: ModelRequest, tgt: Target | None = None) -> JSONObject:
    return WIRE.build_call(request, tgt or target(info=model_info("openai"))).json()


def assert_snapshot(name: str, value: JSONObject) -> None:
    path = SNAPSHOTS / f"{name}.json"
    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path}; run with EARSHOT_UPDATE_SNAPSHOTS=1"
    assert value == json.loads(path.read_text(encoding="utf-8"))


def user(text: str) -> Message:
    return Message(role="user", parts=[TextPart(text=text)])


def simple(**changes: object) -> ModelRequest:
    request = ModelRequest(model="test-model", messages=[user("hi")])
    for name, value in changes.items():
        setattr(request, name, value)
    return request


def items(request: ModelRequest, tgt: Target | None = None) -> list[JSONValue]:
    value = body_of(request, tgt)["input"]
    assert isinstance(value, list)
    return value


# --- pinned bodies -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_request_body_matches_snapshot(case: Case) -> None:
    assert_snapshot(case.name, body_of(case.request))


def test_every_request_is_stateless_and_streamed() -> None:
    for case in CASES:
        body = body_of(case.request)
        assert body["store"] is False
        assert body["stream"] is True
        assert "previous_response_id" not in body
        for item in items(case.request):
            assert isinstance(item, dict)
            assert "id" not in item, "no item id is sent under store:false"


# --- URL and headers ---------------------------------------------------------------------------


def test_posts_to_responses_under_the_versioned_base_url() -> None:
    call = WIRE.build_call(simple(), target(base_url="https://api.openai.com/v1/"))
    assert call.method == "POST"
    assert call.url == "https://api.openai.com/v1/responses"
    assert dict(call.params) == {}


def test_call_carries_no_credential_and_never_shows_the_key() -> None:
    tgt = target()
    call = WIRE.build_call(simple(), tgt)
    assert dict(call.headers) == {}
    assert KEY not in repr(call)
    assert KEY not in repr(tgt)


def test_configured_headers_are_merged_last_and_win_whatever_their_case() -> None:
    tgt = target(headers={"OpenAI-Organization": "org-1", "Authorization": "Bearer other"})
    headers = dict(WIRE.build_call(simple(), tgt).headers)
    assert headers == {"OpenAI-Organization": "org-1", "Authorization": "Bearer other"}


# --- reasoning effort ----------------------------------------------------------------------


def effort_model(*values: str) -> ModelInfo:
    return ModelInfo(
        id="test-model",
        provider="openai",
        reasoning=True,
        reasoning_options=[EffortOption(values=list(values))],
    )


@pytest.mark.parametrize(
    ("values", "requested", "sent"),
    [
        (("low", "medium", "high"), "high", "high"),
        (("low", "medium", "high"), "max", "high"),
        (("low", "medium", "high"), "xhigh", "high"),
        (("low", "medium", "high"), "minimal", "low"),
        (("low", "medium", "high"), "none", "low"),
        (("none", "low", "medium", "high", "xhigh"), "none", "none"),
        (("none", "low", "medium", "high", "xhigh"), "max", "xhigh"),
        (("minimal", "low", "medium", "high"), "none", "minimal"),
        (("low", "high"), "medium", "high"),
    ],
)
def test_effort_maps_onto_the_values_the_model_lists(
    values: tuple[str, ...], requested: ReasoningEffort, sent: str
) -> None:
    body = body_of(simple(reasoning_effort=requested), target(info=effort_model(*values)))
    assert body["reasoning"] == {"effort": sent, "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


def test_budget_only_reasoning_model_gets_the_effort_as_requested() -> None:
    info = model_info("openai", effort=False, budget=True)
    body = body_of(simple(reasoning_effort="medium"), target(info=info))
    assert body["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


def test_reasoning_model_without_a_requested_effort_leaves_it_to_the_server() -> None:
    body = body_of(simple(), target(info=effort_model("low", "medium", "high")))
    assert body["reasoning"] == {"summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


def test_non_reasoning_model_gets_no_reasoning_even_if_asked() -> None:
    info = ModelInfo(id="gpt-4.1", provider="openai", reasoning=False)
    body = body_of(simple(reasoning_effort="high"), target(info=info))
    assert "reasoning" not in body
    assert "include" not in body


def test_unknown_model_reasons_only_when_an_effort_is_requested() -> None:
    assert "reasoning" not in body_of(simple(), target(info=None))
    body = body_of(simple(reasoning_effort="xhigh"), target(info=None))
    assert body["reasoning"] == {"effort": "xhigh", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


# --- max tokens, temperature -------------------------------------------------------------------


def test_max_output_tokens_prefers_the_request_then_the_catalog_then_omits() -> None:
    info = ModelInfo(id="m", provider="openai", max_output=64_000)
    assert body_of(simple(max_output_tokens=500), target(info=info))["max_output_tokens"] == 500
    assert body_of(simple(), target(info=info))["max_output_tokens"] == 64_000
    assert "max_output_tokens" not in body_of(simple(), target(info=None))
    zero = ModelInfo(id="m", provider="openai", max_output=0)
    assert "max_output_tokens" not in body_of(simple(), target(info=zero))


def test_temperature_is_dropped_for_models_that_reject_it() -> None:
    plain = ModelInfo(id="m", provider="openai")
    no_temp = ModelInfo(id="m", provider="openai", temperature=False)
    assert body_of(simple(temperature=0.2), target(info=plain))["temperature"] == 0.2
    assert "temperature" not in body_of(simple(temperature=0.2), target(info=no_temp))
    assert "temperature" not in body_of(simple(), target(info=plain))


# --- tools -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        (ForcedTool(name="read_file"), {"type": "function", "name": "read_file"}),
    ],
)
def test_tool_choice_forms(choice: ToolChoice, sent: JSONValue) -> None:
    body = body_of(simple(tools=[READ_TOOL, LIST_TOOL], tool_choice=choice))
    assert body["tool_choice"] == sent


def test_tools_are_flat_and_not_strict() -> None:
    body = body_of(simple(tools=[LIST_TOOL]))
    assert body["tools"] == [
        {
            "type": "function",
            "name": "list_dir",
            "description": "List the working directory.",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        }
    ]


def test_no_tools_means_no_tools_and_no_tool_choice() -> None:
    body = body_of(simple(tool_choice="required"))
    assert "tools" not in body
    assert "tool_choice" not in body


# --- history replay ------------------------------------------------------------------------


def reasoning(provider: str, encrypted: str, summary: list[str]) -> ReasoningPart:
    md: dict[str, JSONValue] = {
        "item_id": "rs_x",
        "encrypted_content": encrypted,
        "summary": list[JSONValue](summary),
    }
    return ReasoningPart(text="\n\n".join(summary), provider_metadata={provider: md})


def call(call_id: str, args: JSONValue = None) -> ToolCallPart:
    return ToolCallPart(id=call_id, name="read_file", input={} if args is None else args)


def result(call_id: str, text: str) -> Message:
    part = ToolResultPart(call_id=call_id, name="read_file", content=[TextPart(text=text)])
    return Message(role="tool", parts=[part])


def test_reasoning_is_replayed_verbatim_in_order_before_its_call() -> None:
    msgs = [
        user("go"),
        Message(
            role="assistant",
            parts=[reasoning("openai", "enc-A", ["first", "second"]), call("c1")],
        ),
        result("c1", "ok"),
    ]
    sent = items(simple(messages=msgs))
    assert sent[1] == {
        "type": "reasoning",
        "encrypted_content": "enc-A",
        "summary": [
            {"type": "summary_text", "text": "first"},
            {"type": "summary_text", "text": "second"},
        ],
    }
    assert sent[2] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "read_file",
        "arguments": "{}",
    }


def test_reasoning_from_another_provider_or_without_encrypted_content_is_dropped() -> None:
    no_blob = ReasoningPart(text="t", provider_metadata={"openai": {"item_id": "rs_1"}})
    msgs = [
        user("go"),
        Message(
            role="assistant",
            parts=[
                reasoning("anthropic", "sig", ["x"]),
                ReasoningPart(text="plain"),
                no_blob,
                call("c1"),
            ],
        ),
        result("c1", "ok"),
    ]
    kinds = [item.get("type") for item in items(simple(messages=msgs)) if isinstance(item, dict)]
    assert "reasoning" not in kinds


def test_reasoning_that_ends_an_assistant_message_is_dropped() -> None:
    msgs = [
        user("go"),
        Message(role="assistant", parts=[reasoning("openai", "enc-cut", ["half"])]),
        user("again"),
    ]
    sent = items(simple(messages=msgs))
    assert [i.get("role") for i in sent if isinstance(i, dict)] == ["user", "user"]


def test_assistant_text_keeps_its_phase_and_message_grouping_without_ids() -> None:
    def text(value: str, item_id: str, phase: str) -> TextPart:
        return TextPart(
            text=value, provider_metadata={"openai": {"item_id": item_id, "phase": phase}}
        )

    msgs = [
        user("news?"),
        Message(
            role="assistant",
            parts=[
                text("Checking.", "msg_1", "commentary"),
                text("Here:", "msg_2", "final_answer"),
                text(" done", "msg_2", "final_answer"),
                TextPart(text=""),
            ],
        ),
    ]
    assert items(simple(messages=msgs))[1:] == [
        {
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking."}],
            "phase": "commentary",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "Here:"},
                {"type": "output_text", "text": " done"},
            ],
            "phase": "final_answer",
        },
    ]


def test_arguments_that_were_not_json_go_back_as_they_came() -> None:
    msgs = [
        user("go"),
        Message(role="assistant", parts=[call("c1", '{"path": ')]),
        result("c1", "bad"),
    ]
    sent = items(simple(messages=msgs))
    assert sent[1] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "read_file",
        "arguments": '{"path": ',
    }


def test_mid_history_system_message_is_an_input_message() -> None:
    msgs = [user("a"), Message(role="system", parts=[TextPart(text="Be brief.")])]
    assert items(simple(messages=msgs))[1] == {
        "role": "system",
        "content": [{"type": "input_text", "text": "Be brief."}],
    }


def test_empty_tool_result_is_an_empty_string() -> None:
    part = ToolResultPart(call_id="c1", name="read_file", content=[])
    msgs = [
        user("go"),
        Message(role="assistant", parts=[call("c1")]),
        Message(role="tool", parts=[part]),
    ]
    assert items(simple(messages=msgs))[2] == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "",
    }


def test_a_growing_history_is_sent_as_a_fresh_one_would_be() -> None:
    """Items are kept between the requests of a session; the body is still what the same
    history built from new objects gives."""
    history: list[Message] = []
    for i in range(4):
        history += [
            Message(role="user", parts=[TextPart(text=f"step {i}")]),
            Message(
                role="assistant",
                parts=[
                    TextPart(text="running it"),
                    ToolCallPart(id=f"call_{i}", name="bash", input={"n": i}),
                ],
            ),
            Message(
                role="tool",
                parts=[
                    ToolResultPart(call_id=f"call_{i}", name="bash", content=[TextPart(text="ok")])
                ],
            ),
        ]
        kept = body_of(ModelRequest(model="m", messages=list(history)))
        fresh = msgspec.json.decode(msgspec.json.encode(history), type=list[Message])
        assert kept == body_of(ModelRequest(model="m", messages=fresh))
        items = kept["input"]
        assert isinstance(items, list) and len(items) == 4 * (i + 1)
