"""What the openai-chat adapter sends: bodies pinned per shared case, URL, headers, and the
choices its request module documents (effort mapping, output limit, tool_choice, replay)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest

from earshot.providers.models import BudgetOption, EffortOption, ModelInfo, ToggleOption
from earshot.providers.target import Secret, Target
from earshot.providers.types import (
    ForcedTool,
    ImagePart,
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
from earshot.providers.wire.openai_chat import WIRE, parse_reset, rate_limit_reset
from tests.wire.cases import CASES, PNG_1PX, READ_TOOL, Case, model_info

SNAPSHOTS = Path(__file__).parent / "snapshots" / "openai-chat"
KEY = "sk-test-0123456789abcdefghij"
# Read at import: the hermetic fixture clears EARSHOT_* variables for each test.
UPDATE = os.environ.get("EARSHOT_UPDATE_SNAPSHOTS") == "1"


def openai_target(**changes: Any) -> Target:
    target = Target(
        provider="openai",
        wire="openai-chat",
        base_url="https://api.openai.com/v1",
        model="test-model",
        auth="bearer",
        api_key=Secret(KEY),
        info=model_info("openai"),
    )
    return replace(target, **changes)


def deepseek_target(**changes: Any) -> Target:
    info = msgspec.structs.replace(
        model_info("deepseek", effort=False), interleaved_field="reasoning_content"
    )
    target = Target(
        provider="deepseek",
        wire="openai-chat",
        base_url="https://api.deepseek.com",
        model="test-model",
        auth="bearer",
        api_key=Secret(KEY),
        info=info,
    )
    return replace(target, **changes)


def assert_snapshot(name: str, body: dict[str, JSONValue]) -> None:
    """``body`` equals the pinned file; ``EARSHOT_UPDATE_SNAPSHOTS=1`` rewrites it instead."""
    path = SNAPSHOTS / f"{name}.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path}; run with EARSHOT_UPDATE_SNAPSHOTS=1"
    expected = json.loads(path.read_text(encoding="utf-8"))
    # Through JSON, as the driver sends it (tuples and the like would compare differently).
    assert json.loads(msgspec.json.encode(body)) == expected


def body_of(request: ModelRequest, target: Target) -> dict[str, JSONValue]:
    return WIRE.build_call(request, target).json()


def messages_of(request: ModelRequest, target: Target) -> list[dict[str, JSONValue]]:
    messages = body_of(request, target)["messages"]
    assert isinstance(messages, list)
    return [m for m in messages if isinstance(m, dict)]


# --- snapshots ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_openai_body_matches_snapshot(case: Case) -> None:
    assert_snapshot(case.name, body_of(case.request, openai_target()))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_compat_server_body_matches_snapshot(case: Case) -> None:
    """DeepSeek as the compatible-server example: ``max_tokens`` and reasoning replay."""
    assert_snapshot(f"{case.name}.deepseek", body_of(case.request, deepseek_target()))


def test_get_wire_finds_this_adapter() -> None:
    assert get_wire("openai-chat") is WIRE
    assert WIRE.name == "openai-chat"


# --- URL and headers ------------------------------------------------------------------------


def test_url_appends_chat_completions_to_base_without_doubling_slash() -> None:
    plain = CASES[0].request
    assert WIRE.build_call(plain, openai_target()).url == (
        "https://api.openai.com/v1/chat/completions"
    )
    slashed = openai_target(base_url="http://127.0.0.1:11434/v1/")
    assert WIRE.build_call(plain, slashed).url == "http://127.0.0.1:11434/v1/chat/completions"


def test_call_carries_no_credential_and_reprs_never_show_the_key() -> None:
    target = openai_target()
    call = WIRE.build_call(CASES[0].request, target)
    assert {k.lower() for k in call.headers} == set()
    assert call.method == "POST"
    assert KEY not in repr(call)
    assert KEY not in repr(target)
    assert KEY not in str(call)


def test_configured_headers_are_merged_last() -> None:
    target = openai_target(headers={"HTTP-Referer": "https://earshot.dev", "X-Title": "earshot"})
    headers = WIRE.build_call(CASES[0].request, target).headers
    assert headers["HTTP-Referer"] == "https://earshot.dev"
    assert headers["X-Title"] == "earshot"


# --- output limit ---------------------------------------------------------------------------


def _plain(**changes: object) -> ModelRequest:
    request = ModelRequest(
        model="test-model", messages=[Message(role="user", parts=[TextPart(text="hi")])]
    )
    for name, value in changes.items():
        setattr(request, name, value)
    return request


def test_max_tokens_field_is_max_completion_tokens_for_openai_and_max_tokens_elsewhere() -> None:
    request = _plain(max_output_tokens=100)
    openai = body_of(request, openai_target())
    assert openai["max_completion_tokens"] == 100
    assert "max_tokens" not in openai
    for provider in ("groq", "openrouter", "ollama", "deepseek"):
        body = body_of(request, openai_target(provider=provider))
        assert body["max_tokens"] == 100
        assert "max_completion_tokens" not in body


def test_max_tokens_defaults_to_catalog_limit_then_to_none() -> None:
    assert body_of(_plain(), openai_target())["max_completion_tokens"] == 32_000
    body = body_of(_plain(), openai_target(info=None))
    assert "max_completion_tokens" not in body
    assert "max_tokens" not in body
    unknown_limit = msgspec.structs.replace(model_info("openai"), max_output=0)
    assert "max_completion_tokens" not in body_of(_plain(), openai_target(info=unknown_limit))


# --- reasoning effort -----------------------------------------------------------------------


def _info(
    *options: EffortOption | BudgetOption | ToggleOption, reasoning: bool = True
) -> ModelInfo:
    return ModelInfo(
        id="test-model", provider="openai", reasoning=reasoning, reasoning_options=list(options)
    )


def _effort(effort: ReasoningEffort | None, info: ModelInfo | None) -> JSONValue:
    return body_of(_plain(reasoning_effort=effort), openai_target(info=info)).get(
        "reasoning_effort"
    )


def test_effort_model_gets_the_requested_level_when_listed() -> None:
    assert _effort("high", model_info("openai")) == "high"
    assert _effort("low", model_info("openai")) == "low"


def test_effort_rounds_up_to_the_nearest_listed_level_then_down() -> None:
    deepseek_v4 = _info(ToggleOption(), EffortOption(values=["high", "max"]))
    assert _effort("low", deepseek_v4) == "high"
    assert _effort("xhigh", deepseek_v4) == "max"
    gpt5 = _info(EffortOption(values=["minimal", "low", "medium", "high"]))
    assert _effort("xhigh", gpt5) == "high"
    assert _effort("max", gpt5) == "high"
    assert _effort("none", gpt5) == "minimal"  # the least reasoning the model offers
    mistral = _info(EffortOption(values=["none", "high"]))
    assert _effort("none", mistral) == "none"
    assert _effort("medium", mistral) == "high"


def test_effort_never_picks_none_or_unknown_values_for_a_reasoning_request() -> None:
    qwen_on_groq = _info(EffortOption(values=["none", "default"]))
    assert _effort("high", qwen_on_groq) is None
    assert _effort("none", qwen_on_groq) == "none"


def test_budget_only_model_gets_no_effort_on_this_wire() -> None:
    """A budget model with no listed levels reasons: the level passes through as is; this
    wire has no budget field."""
    budget = _info(BudgetOption(min=1024, max=32000))
    assert _effort("high", budget) == "high"
    body = body_of(_plain(reasoning_effort="high"), openai_target(info=budget))
    assert "thinking" not in body
    assert "reasoning" not in body


def test_effort_is_dropped_for_a_model_that_does_not_reason() -> None:
    assert _effort("high", _info(reasoning=False)) is None


def test_effort_passes_through_without_catalog_info_and_is_absent_when_not_asked() -> None:
    assert _effort("medium", None) == "medium"
    assert _effort(None, model_info("openai")) is None


# --- tool_choice and tools -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", None),
        ("none", "none"),
        ("required", "required"),
        (ForcedTool(name="read_file"), {"type": "function", "function": {"name": "read_file"}}),
    ],
)
def test_tool_choice_forms(choice: ToolChoice, sent: JSONValue) -> None:
    body = body_of(_plain(tools=[READ_TOOL], tool_choice=choice), openai_target())
    assert body.get("tool_choice") == sent
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": READ_TOOL.description,
                "parameters": READ_TOOL.input_schema,
            },
        }
    ]


def test_no_tools_means_no_tools_and_no_tool_choice() -> None:
    body = body_of(_plain(tool_choice="required"), openai_target())
    assert "tools" not in body
    assert "tool_choice" not in body


def test_temperature_sent_only_when_set_and_the_model_takes_it() -> None:
    assert body_of(_plain(temperature=0.2), openai_target())["temperature"] == 0.2
    assert "temperature" not in body_of(_plain(), openai_target())
    fixed = msgspec.structs.replace(model_info("openai"), temperature=False)
    assert "temperature" not in body_of(_plain(temperature=0.2), openai_target(info=fixed))


# --- message conversion -----------------------------------------------------------------------


def test_tool_result_images_follow_as_one_user_message_merged_with_the_next_user_turn() -> None:
    case = next(c for c in CASES if c.name == "tool_results_with_images")
    messages = messages_of(case.request, openai_target())
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user"]
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "a.png (1x1)"}
    assert messages[4] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "permission denied",
    }
    assert messages[5]["content"] == [
        {"type": "text", "text": "Image from tool call call_1 (read_file):"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_1PX}"}},
        {"type": "text", "text": "Thanks; now summarise."},
    ]


def test_tool_result_images_at_the_end_of_history_get_their_own_user_message() -> None:
    request = _plain(
        messages=[
            Message(role="user", parts=[TextPart(text="look")]),
            Message(
                role="assistant",
                parts=[ToolCallPart(id="c1", name="screenshot", input={})],
            ),
            Message(
                role="tool",
                parts=[
                    ToolResultPart(
                        call_id="c1",
                        name="screenshot",
                        content=[ImagePart(media_type="image/png", data=PNG_1PX)],
                    )
                ],
            ),
        ]
    )
    messages = messages_of(request, openai_target())
    assert messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}
        ],
    }
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "(image attached in the next message)",
    }
    assert messages[3]["role"] == "user"
    assert messages[3]["content"] == [
        {"type": "text", "text": "Image from tool call c1 (screenshot):"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_1PX}"}},
    ]


def test_invalid_json_arguments_are_replayed_as_the_raw_string() -> None:
    request = _plain(
        messages=[
            Message(role="user", parts=[TextPart(text="go")]),
            Message(role="assistant", parts=[ToolCallPart(id="c1", name="run", input='{"a": ')]),
            Message(
                role="tool",
                parts=[ToolResultPart(call_id="c1", name="run", content=[TextPart(text="bad")])],
            ),
        ]
    )
    calls = messages_of(request, openai_target())[1]["tool_calls"]
    assert isinstance(calls, list)
    assert calls[0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "run", "arguments": '{"a": '},
    }


def test_reasoning_replays_only_this_providers_parts_in_their_field() -> None:
    parts: list[ReasoningPart | TextPart] = [
        ReasoningPart(text="mine. ", provider_metadata={"openrouter": {"field": "reasoning"}}),
        ReasoningPart(text="anthropic's", provider_metadata={"anthropic": {"signature": "s"}}),
        ReasoningPart(text="no metadata"),
        ReasoningPart(text="more", provider_metadata={"openrouter": {"field": "reasoning"}}),
        TextPart(text="answer"),
    ]
    request = _plain(
        messages=[
            Message(role="user", parts=[TextPart(text="q")]),
            Message(role="assistant", parts=list(parts)),
            Message(role="user", parts=[TextPart(text="next")]),
        ]
    )
    assistant = messages_of(request, openai_target(provider="openrouter"))[1]
    assert assistant == {"role": "assistant", "content": "answer", "reasoning": "mine. more"}
    # The same history sent to another provider carries no reasoning at all.
    assert messages_of(request, openai_target(provider="groq"))[1] == {
        "role": "assistant",
        "content": "answer",
    }


def test_reasoning_without_a_recorded_field_uses_the_catalog_interleaved_field() -> None:
    request = _plain(
        messages=[
            Message(role="user", parts=[TextPart(text="q")]),
            Message(
                role="assistant",
                parts=[
                    ReasoningPart(text="think", provider_metadata={"moonshot": {"kept": True}}),
                    TextPart(text="a"),
                ],
            ),
        ]
    )
    with_field = msgspec.structs.replace(
        model_info("moonshot"), interleaved_field="reasoning_content"
    )
    sent = messages_of(request, openai_target(provider="moonshot", info=with_field))[1]
    assert sent["reasoning_content"] == "think"
    without = messages_of(request, openai_target(provider="moonshot"))[1]
    assert "reasoning_content" not in without


def test_openrouter_reasoning_details_are_replayed_verbatim() -> None:
    details: list[JSONValue] = [
        {"type": "reasoning.text", "text": "step", "signature": "sig-1", "index": 0},
        {"type": "reasoning.encrypted", "data": "blob", "index": 1},
    ]
    request = _plain(
        messages=[
            Message(role="user", parts=[TextPart(text="q")]),
            Message(
                role="assistant",
                parts=[
                    ReasoningPart(
                        text="step",
                        provider_metadata={
                            "openrouter": {"field": "reasoning", "details": details}
                        },
                    ),
                    ToolCallPart(id="c1", name="read_file", input={"path": "a"}),
                ],
            ),
            Message(
                role="tool",
                parts=[
                    ToolResultPart(call_id="c1", name="read_file", content=[TextPart(text="x")])
                ],
            ),
        ]
    )
    assistant = messages_of(request, openai_target(provider="openrouter"))[1]
    assert assistant["reasoning_details"] == details
    assert "reasoning" not in assistant


def test_empty_messages_and_parts_are_not_sent() -> None:
    request = _plain(
        messages=[
            Message(role="user", parts=[TextPart(text=""), TextPart(text="hi")]),
            Message(role="assistant", parts=[TextPart(text="")]),
            Message(role="user", parts=[TextPart(text="")]),
            Message(role="system", parts=[TextPart(text="Be brief.")]),
            Message(role="user", parts=[TextPart(text="a"), TextPart(text="b")]),
        ]
    )
    assert messages_of(request, openai_target(info=None)) == [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    ]


# --- error helpers ----------------------------------------------------------------------------


def test_go_durations_in_rate_limit_reset_headers() -> None:
    assert parse_reset("12ms") == pytest.approx(0.012)
    assert parse_reset("1.5s") == pytest.approx(1.5)
    assert parse_reset("6m0s") == pytest.approx(360.0)
    assert parse_reset("1h2m3s") == pytest.approx(3723.0)
    assert parse_reset("soon") is None
    assert parse_reset("") is None
    headers = {
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "2s",
        "x-ratelimit-remaining-tokens": "10",
        "x-ratelimit-reset-tokens": "30s",
    }
    assert rate_limit_reset(headers) == pytest.approx(2.0)
    assert rate_limit_reset({"x-ratelimit-reset-requests": "2s"}) is None
