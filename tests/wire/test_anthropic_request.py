"""What earshot sends on the ``anthropic-messages`` wire: pinned bodies, URL and headers,
reasoning mapping, max-token defaulting, tool choice, history conversion and cache marks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest

from earshot.providers.models import BudgetOption, EffortOption, ModelInfo
from earshot.providers.target import AuthStyle, Secret, Target
from earshot.providers.types import (
    ForcedTool,
    ImagePart,
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
    ToolSpec,
)
from earshot.providers.wire import get_wire
from earshot.providers.wire.anthropic._request import (
    BUDGETS,
    CACHED_USER_MESSAGES,
    DEFAULT_MAX_TOKENS,
    map_effort,
    thinking_budget,
)
from tests.wire.cases import CASES, LIST_TOOL, READ_TOOL, Case, model_info

WIRE = get_wire("anthropic-messages")
SNAPSHOTS = Path(__file__).parent / "snapshots" / "anthropic-messages"
# Read at import: the hermetic autouse fixture clears EARSHOT_* variables before each test.
UPDATE_SNAPSHOTS = os.environ.get("EARSHOT_UPDATE_SNAPSHOTS") == "1"
KEY = "sk-ant-api03-test-key-never-shown-0123456789"
# Adaptive thinking asks for summarized thinking text: newer models omit it by default.
ADAPTIVE: JSONObject = {"type": "adaptive", "display": "summarized"}


def target(
    info: ModelInfo | None = None,
    *,
    auth: AuthStyle = "x-api-key",
    key: str | None = KEY,
    base_url: str = "https://api.anthropic.com",
    headers: dict[str, str] | None = None,
) -> Target:
    return Target(
        provider="anthropic",
        wire="anthropic-messages",
        base_url=base_url,
        model="test-model",
        auth=auth,
        api_key=Secret(key) if key is not None else None,
        info=info,
        headers=headers or {},
    )


def effort_target(values: list[str] | None = None) -> Target:
    info = model_info("anthropic")
    if values is not None:
        info = _with_options(info, [EffortOption(values=values)])
    return target(info)


def budget_target(option: BudgetOption | None = None) -> Target:
    info = model_info("anthropic", effort=False, budget=True)
    if option is not None:
        info = _with_options(info, [option])
    return target(info)


def _with_options(info: ModelInfo, options: list[EffortOption | BudgetOption]) -> ModelInfo:
    return ModelInfo(
        id=info.id,
        provider=info.provider,
        context=info.context,
        max_output=info.max_output,
        vision=True,
        reasoning=True,
        reasoning_options=list(options),
    )


def body_of(request: ModelRequest, tgt: Target | None = None) -> JSONObject:
    return WIRE.build_call(request, tgt or effort_target()).json()


def user(text: str) -> Message:
    return Message(role="user", parts=[TextPart(text=text)])


def ask(
    *,
    messages: list[Message] | None = None,
    system: str = "",
    tools: list[ToolSpec] | None = None,
    tool_choice: ToolChoice = "auto",
    reasoning_effort: ReasoningEffort | None = None,
    max_output_tokens: int | None = None,
    temperature: float | None = None,
) -> ModelRequest:
    return ModelRequest(
        model="test-model",
        messages=messages if messages is not None else [user("hi")],
        system=system,
        tools=tools or [],
        tool_choice=tool_choice,
        reasoning_effort=reasoning_effort,
        max_output_tokens=max_output_tokens,
        temperature=temperature,
    )


def marked_blocks(body: JSONObject) -> list[tuple[str, int]]:
    """``(where, index)`` of every block with ``cache_control``: ``("system", i)`` or
    ``("messages", i)`` with ``i`` the message's position."""
    found: list[tuple[str, int]] = []
    sections: list[tuple[str, list[JSONValue]]] = []
    system = body.get("system")
    if isinstance(system, list):
        sections.append(("system", [{"content": system}]))
    messages = body["messages"]
    assert isinstance(messages, list)
    sections.append(("messages", messages))
    for where, items in sections:
        for i, message in enumerate(items):
            assert isinstance(message, dict)
            content = message["content"]
            assert isinstance(content, list)
            found.extend(
                (where, i) for b in content if isinstance(b, dict) and "cache_control" in b
            )
    return found


def assert_matches_snapshot(name: str, body: JSONObject) -> None:
    """Compare with ``snapshots/anthropic-messages/<name>.json``; with
    ``EARSHOT_UPDATE_SNAPSHOTS=1`` rewrite the file instead."""
    path = SNAPSHOTS / f"{name}.json"
    if UPDATE_SNAPSHOTS:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    expected: JSONValue = json.loads(path.read_text(encoding="utf-8"))
    assert body == expected, f"body differs from {path} (EARSHOT_UPDATE_SNAPSHOTS=1 rewrites it)"


# --- pinned bodies ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_body_matches_pinned_snapshot(case: Case) -> None:
    assert_matches_snapshot(case.name, body_of(case.request))


def test_every_snapshot_file_belongs_to_a_case() -> None:
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.json")) == sorted(c.name for c in CASES)


# --- URL and headers -------------------------------------------------------------------------


def test_posts_to_v1_messages_under_the_base_url_without_double_slash() -> None:
    for base in ("https://api.anthropic.com", "https://api.anthropic.com/"):
        call = WIRE.build_call(ask(), target(base_url=base))
        assert call.method == "POST"
        assert call.url == "https://api.anthropic.com/v1/messages"
        assert dict(call.params) == {}


def test_sends_the_api_version_and_no_credential_of_its_own() -> None:
    # The credential is added to the final request by providers.auth_headers.
    tgt = target()
    call = WIRE.build_call(ask(), tgt)
    assert dict(call.headers) == {"anthropic-version": "2023-06-01"}
    assert KEY not in repr(call)
    assert KEY not in repr(tgt)


def test_user_headers_merge_last() -> None:
    extra = {"anthropic-beta": "a,b", "anthropic-version": "2099-01-01"}
    headers = dict(WIRE.build_call(ask(), target(headers=extra)).headers)
    assert headers["anthropic-beta"] == "a,b"
    assert headers["anthropic-version"] == "2099-01-01"


# --- max tokens --------------------------------------------------------------------------------


def test_max_tokens_from_request_then_catalog_then_default() -> None:
    info = model_info("anthropic")
    assert body_of(ask(max_output_tokens=123), target(info))["max_tokens"] == 123
    assert body_of(ask(), target(info))["max_tokens"] == info.max_output == 32_000
    assert body_of(ask(), target(None))["max_tokens"] == DEFAULT_MAX_TOKENS == 8192
    no_limit = ModelInfo(id="m", provider="anthropic", max_output=0)
    assert body_of(ask(), target(no_limit))["max_tokens"] == DEFAULT_MAX_TOKENS


# --- reasoning -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("effort", "values", "sent"),
    [
        ("low", ["low", "medium", "high"], "low"),
        ("high", ["low", "medium", "high"], "high"),
        ("minimal", ["low", "medium", "high"], "low"),
        ("xhigh", ["low", "medium", "high"], "high"),
        ("max", ["low", "medium", "high"], "high"),
        ("xhigh", ["low", "medium", "high", "max"], "max"),
        ("xhigh", ["low", "medium", "high", "xhigh", "max"], "xhigh"),
        ("max", ["low", "medium", "high", "max"], "max"),
    ],
)
def test_effort_models_get_adaptive_thinking_with_the_nearest_effort(
    effort: ReasoningEffort, values: list[str], sent: str
) -> None:
    body = body_of(ask(reasoning_effort=effort, temperature=0.2), effort_target(values))
    assert body["thinking"] == ADAPTIVE
    assert body["output_config"] == {"effort": sent}
    assert "temperature" not in body


def test_map_effort_without_known_values_gives_none() -> None:
    assert map_effort("high", ["turbo"]) is None
    assert map_effort("none", ["low"]) is None


@pytest.mark.parametrize("tgt", [effort_target(), budget_target(), target(None)])
def test_effort_none_or_unset_sends_no_thinking_and_keeps_temperature(tgt: Target) -> None:
    for effort in (None, "none"):
        body = body_of(ask(reasoning_effort=effort, temperature=0.3), tgt)
        assert "thinking" not in body
        assert "output_config" not in body
        assert body["temperature"] == 0.3


@pytest.mark.parametrize(
    ("effort", "budget"),
    [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384), ("max", 24000)],
)
def test_budget_models_get_enabled_thinking_with_a_budget(
    effort: ReasoningEffort, budget: int
) -> None:
    # max_tokens 32000 (catalog): the budget keeps a quarter for the answer -> at most 24000.
    body = body_of(ask(reasoning_effort=effort, temperature=1.0), budget_target())
    assert body["max_tokens"] == 32_000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert "output_config" not in body
    assert "temperature" not in body


def test_budget_stays_within_option_bounds_and_below_max_tokens() -> None:
    option = BudgetOption(min=2000, max=10_000)
    assert thinking_budget("minimal", 32_000, option) == 2000
    assert thinking_budget("max", 32_000, option) == 10_000
    for max_tokens in (1366, 2048, 4096, 8192, 100_000):
        for effort in BUDGETS:
            budget = thinking_budget(effort, max_tokens, BudgetOption())
            assert budget is not None
            assert 1024 <= budget < max_tokens


def test_budget_that_cannot_fit_sends_no_thinking() -> None:
    assert thinking_budget("high", 1024, BudgetOption()) is None
    body = body_of(ask(reasoning_effort="high", max_output_tokens=1200), budget_target())
    assert "thinking" not in body


def test_unknown_model_gets_budget_thinking_and_non_reasoning_model_none() -> None:
    body = body_of(ask(reasoning_effort="medium"), target(None))
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 6144}  # 8192 - 8192 // 4
    plain = ModelInfo(id="m", provider="anthropic", max_output=4096, reasoning=False)
    assert "thinking" not in body_of(ask(reasoning_effort="medium"), target(plain))


def test_effort_wins_when_a_model_lists_both_forms() -> None:
    info = model_info("anthropic", effort=True, budget=True)
    body = body_of(ask(reasoning_effort="medium"), target(info))
    assert body["thinking"] == ADAPTIVE
    assert body["output_config"] == {"effort": "medium"}


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        ("claude-opus-4-5", {"type": "enabled", "budget_tokens": 16384}),
        ("claude-opus-4-5-20251101", {"type": "enabled", "budget_tokens": 16384}),
        ("claude-opus-4-6", ADAPTIVE),
        ("claude-sonnet-4-6", ADAPTIVE),
    ],
)
def test_opus_4_5_lists_effort_but_gets_budget_thinking(model: str, thinking: JSONObject) -> None:
    # As the catalog lists them: effort levels and a budget option on both generations.
    info = _with_options(
        model_info("anthropic"),
        [EffortOption(values=["low", "medium", "high"]), BudgetOption(min=1024)],
    )
    request = ask(reasoning_effort="high")
    request.model = model
    body = body_of(request, target(info))
    assert body["thinking"] == thinking
    assert ("output_config" in body) == (thinking["type"] == "adaptive")


def test_temperature_not_sent_to_models_without_it() -> None:
    info = ModelInfo(id="m", provider="anthropic", max_output=4096, temperature=False)
    assert "temperature" not in body_of(ask(temperature=0.5), target(info))


# --- tool choice ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", None),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        (ForcedTool(name="read_file"), {"type": "tool", "name": "read_file"}),
    ],
)
def test_tool_choice_forms(choice: ToolChoice, sent: JSONObject | None) -> None:
    body = body_of(ask(tools=[READ_TOOL, LIST_TOOL], tool_choice=choice))
    assert body.get("tool_choice") == sent
    assert body["tools"] == [
        {
            "name": "read_file",
            "description": READ_TOOL.description,
            "input_schema": READ_TOOL.input_schema,
        },
        {
            "name": "list_dir",
            "description": LIST_TOOL.description,
            "input_schema": {
                "type": "object",
                "properties": {},
            },
        },
    ]


def test_no_tools_means_no_tools_or_tool_choice() -> None:
    body = body_of(ask(tool_choice="required"))
    assert "tools" not in body
    assert "tool_choice" not in body


@pytest.mark.parametrize("choice", ["required", ForcedTool(name="read_file")])
def test_forced_tool_turns_thinking_off(choice: ToolChoice) -> None:
    body = body_of(ask(tools=[READ_TOOL], tool_choice=choice, reasoning_effort="high"))
    assert "thinking" not in body
    assert "output_config" not in body


# --- history conversion --------------------------------------------------------------------


def test_system_message_in_history_becomes_wrapped_user_text_merged_with_neighbours() -> None:
    request = ask(
        messages=[
            user("first"),
            Message(role="system", parts=[TextPart(text="Be brief.")]),
            user("second"),
        ]
    )
    assert body_of(request)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "first"},
                {"type": "text", "text": "<system>\nBe brief.\n</system>"},
                {"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}},
            ],
        }
    ]


def test_tool_results_lead_the_user_message_even_after_user_text() -> None:
    call = ToolCallPart(id="call_1", name="list_dir", input={})
    result = ToolResultPart(call_id="call_1", name="list_dir", content=[TextPart(text="a b")])
    request = ask(
        messages=[
            user("go"),
            Message(role="assistant", parts=[call]),
            Message(role="user", parts=[TextPart(text="also this")]),
            Message(role="tool", parts=[result]),
        ]
    )
    second_user = body_of(request)["messages"]
    assert isinstance(second_user, list)
    assert second_user[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call_1",
                "content": [{"type": "text", "text": "a b"}],
            },
            {"type": "text", "text": "also this", "cache_control": {"type": "ephemeral"}},
        ],
    }


def test_consecutive_assistant_messages_merge_with_thinking_first_in_order() -> None:
    think_1 = ReasoningPart(text="one", provider_metadata={"anthropic": {"signature": "s1"}})
    think_2 = ReasoningPart(text="", provider_metadata={"anthropic": {"redacted_data": "r2"}})
    request = ask(
        messages=[
            user("go"),
            Message(role="assistant", parts=[think_1, TextPart(text="A")]),
            Message(role="assistant", parts=[TextPart(text="B"), think_2]),
        ]
    )
    assistant = body_of(request)["messages"]
    assert isinstance(assistant, list)
    assert assistant[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "one", "signature": "s1"},
            {"type": "redacted_thinking", "data": "r2"},
            {"type": "text", "text": "A"},
            {"type": "text", "text": "B"},
        ],
    }


def test_foreign_reasoning_is_dropped_and_an_emptied_message_disappears() -> None:
    foreign = ReasoningPart(text="hmm", provider_metadata={"openai": {"item_id": "rs_1"}})
    unsigned = ReasoningPart(text="no signature")
    request = ask(
        messages=[
            user("a"),
            Message(role="assistant", parts=[foreign, unsigned, TextPart(text="")]),
            user("b"),
        ]
    )
    assert body_of(request)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
            ],
        }
    ]


def test_foreign_tool_ids_are_made_acceptable_consistently() -> None:
    call = ToolCallPart(id="fc_1|call.2", name="list_dir", input={})
    result = ToolResultPart(call_id="fc_1|call.2", name="list_dir", content=[])
    request = ask(
        messages=[
            user("go"),
            Message(role="assistant", parts=[call]),
            Message(role="tool", parts=[result]),
        ]
    )
    messages = body_of(request)["messages"]
    assert isinstance(messages, list)
    assert messages[1] == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "fc_1_call_2", "name": "list_dir", "input": {}}],
    }
    assert messages[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "fc_1_call_2",
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }


def test_unparseable_tool_arguments_are_replayed_as_an_empty_object() -> None:
    call = ToolCallPart(id="toolu_1", name="read_file", input='{"path": "a.t')
    request = ask(messages=[user("go"), Message(role="assistant", parts=[call])])
    messages = body_of(request)["messages"]
    assert isinstance(messages, list)
    assert messages[1] == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}],
    }


def test_cache_breakpoints_system_and_two_newest_user_messages_only() -> None:
    messages = [user("q1"), Message(role="assistant", parts=[TextPart(text="a1")])] * 3
    request = ask(system="sys", messages=[*messages, user("q4")])
    body = body_of(request)
    # q1 a1 q1 a1 q1 a1 q4: the last block of messages 4 (q1) and 6 (q4), and the system.
    assert marked_blocks(body) == [("system", 0), ("messages", 4), ("messages", 6)]
    assert body["system"] == [
        {"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}
    ]


def test_cases_never_use_more_than_four_breakpoints() -> None:
    for case in CASES:
        assert 1 <= len(marked_blocks(body_of(case.request))) <= 4


def test_no_system_prompt_means_no_system_field() -> None:
    assert "system" not in body_of(ask())


def test_image_url_and_base64_forms() -> None:
    request = ask(
        messages=[
            Message(
                role="user",
                parts=[
                    ImagePart(media_type="image/png", data="AAAA"),
                    ImagePart(media_type="image/jpeg", url="https://example.com/x.jpg"),
                ],
            )
        ]
    )
    messages = body_of(request)["messages"]
    assert isinstance(messages, list)
    assert messages[0] == {
        "role": "user",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
            },
            {
                "type": "image",
                "source": {"type": "url", "url": "https://example.com/x.jpg"},
                "cache_control": {"type": "ephemeral"},
            },
        ],
    }


def _step(i: int) -> list[Message]:
    return [
        Message(role="user", parts=[TextPart(text=f"step {i}")]),
        Message(
            role="assistant", parts=[ToolCallPart(id=f"call {i}", name="bash", input={"n": i})]
        ),
        Message(
            role="tool",
            parts=[ToolResultPart(call_id=f"call {i}", name="bash", content=[TextPart(text="ok")])],
        ),
    ]


def _breakpoints(body: JSONObject) -> int:
    messages = body["messages"]
    assert isinstance(messages, list)
    count = 0
    for message in messages:
        assert isinstance(message, dict)
        content = message["content"]
        assert isinstance(content, list)
        count += sum(1 for block in content if isinstance(block, dict) and "cache_control" in block)
    return count


def test_a_growing_history_is_sent_as_a_fresh_one_would_be() -> None:
    """Blocks are kept between the requests of a session; the body is still what the same
    history built from new objects gives, cache breakpoints moving to the newest turns."""
    history: list[Message] = []
    for i in range(5):
        history += _step(i)
        kept = body_of(ModelRequest(model="m", messages=list(history)))
        fresh = msgspec.json.decode(msgspec.json.encode(history), type=list[Message])
        assert kept == body_of(ModelRequest(model="m", messages=fresh))
        assert _breakpoints(kept) == CACHED_USER_MESSAGES  # the newest user turns only
