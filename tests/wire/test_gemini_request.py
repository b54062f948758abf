"""What earshot sends on the ``google-gemini`` wire: pinned bodies, URL and headers, the
thinking mapping for level and budget models, max-token defaulting, tool choice, the
schema conversion and history conversion (signatures, function responses, images)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from earshot.providers.models import BudgetOption, EffortOption, ModelInfo, ToggleOption
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
from earshot.providers.wire.gemini._schema import to_gemini_schema
from tests.wire.cases import CASES, LIST_TOOL, PNG_1PX, READ_TOOL, Case, model_info

WIRE = get_wire("google-gemini")
SNAPSHOTS = Path(__file__).parent / "snapshots" / "google-gemini"
# Read at import: the hermetic autouse fixture clears EARSHOT_* variables before each test.
UPDATE_SNAPSHOTS = os.environ.get("EARSHOT_UPDATE_SNAPSHOTS") == "1"
KEY = "AIzaSyTestKeyNeverShown0123456789abcd"


def target(
    info: ModelInfo | None = None,
    *,
    auth: AuthStyle = "x-goog-api-key",
    key: str | None = KEY,
    base_url: str = "https://generativelanguage.googleapis.com",
    headers: dict[str, str] | None = None,
) -> Target:
    return Target(
        provider="google",
        wire="google-gemini",
        base_url=base_url,
        model="test-model",
        auth=auth,
        api_key=Secret(key) if key is not None else None,
        info=info,
        headers=headers or {},
    )


def info_with(
    options: list[EffortOption | BudgetOption | ToggleOption],
    *,
    reasoning: bool = True,
    max_output: int = 65536,
    temperature: bool = True,
) -> ModelInfo:
    return ModelInfo(
        id="test-model",
        provider="google",
        max_output=max_output,
        reasoning=reasoning,
        temperature=temperature,
        reasoning_options=list(options),
    )


def user(text: str) -> Message:
    return Message(role="user", parts=[TextPart(text=text)])


def ask(
    *,
    messages: list[Message] | None = None,
    tools: list[ToolSpec] | None = None,
    tool_choice: ToolChoice = "auto",
    reasoning_effort: ReasoningEffort | None = None,
    max_output_tokens: int | None = None,
    temperature: float | None = None,
    model: str = "test-model",
) -> ModelRequest:
    return ModelRequest(
        model=model,
        messages=messages if messages is not None else [user("hi")],
        tools=tools or [],
        tool_choice=tool_choice,
        reasoning_effort=reasoning_effort,
        max_output_tokens=max_output_tokens,
        temperature=temperature,
    )


def body_of(request: ModelRequest, tgt: Target | None = None) -> JSONObject:
    return WIRE.build_call(request, tgt or target(model_info("google"))).json()


def generation(body: JSONObject) -> JSONObject:
    config = body.get("generationConfig", {})
    assert isinstance(config, dict)
    return config


def contents(body: JSONObject) -> list[JSONValue]:
    items = body["contents"]
    assert isinstance(items, list)
    return items


def parts_of(item: JSONValue) -> list[JSONObject]:
    """The parts of one content, each a JSON object."""
    assert isinstance(item, dict)
    parts = item["parts"]
    assert isinstance(parts, list)
    return [p for p in parts if isinstance(p, dict)]


def check_snapshot(name: str, body: JSONObject) -> None:
    """``body`` equals the pinned snapshot ``snapshots/google-gemini/<name>.json``; with
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
    check_snapshot(case.name, body_of(case.request))


def test_every_snapshot_belongs_to_a_case() -> None:
    names = {case.name for case in CASES}
    assert {p.stem for p in SNAPSHOTS.glob("*.json")} == names


# --- URL and headers -------------------------------------------------------------------------


def test_url_is_stream_generate_content_with_sse_param() -> None:
    call = WIRE.build_call(ask(model="gemini-3-pro-preview"), target(base_url="https://g.test/"))
    assert call.url == "https://g.test/v1beta/models/gemini-3-pro-preview:streamGenerateContent"
    assert call.params == {"alt": "sse"}
    assert call.method == "POST"


@pytest.mark.parametrize(
    ("base_url", "model", "url"),
    [
        ("https://g.test/v1beta", "m", "https://g.test/v1beta/models/m:streamGenerateContent"),
        ("https://g.test/v1", "m", "https://g.test/v1/models/m:streamGenerateContent"),
        ("https://g.test", "models/m-2", "https://g.test/v1beta/models/m-2:streamGenerateContent"),
    ],
)
def test_url_keeps_a_configured_version_and_drops_a_models_prefix(
    base_url: str, model: str, url: str
) -> None:
    assert WIRE.build_call(ask(model=model), target(base_url=base_url)).url == url


def test_request_model_falls_back_to_the_target_model() -> None:
    call = WIRE.build_call(ask(model=""), target())
    assert call.url.endswith("/models/test-model:streamGenerateContent")


def test_call_carries_no_credential_and_never_shows_the_key() -> None:
    tgt = target()
    call = WIRE.build_call(ask(), tgt)
    assert dict(call.headers) == {}
    assert KEY not in repr(call)
    assert KEY not in repr(tgt)


def test_configured_headers_are_merged_last() -> None:
    tgt = target(headers={"x-goog-user-project": "p1", "x-goog-api-key": "override"})
    headers = WIRE.build_call(ask(), tgt).headers
    assert headers["x-goog-user-project"] == "p1"
    assert headers["x-goog-api-key"] == "override"


# --- thinking --------------------------------------------------------------------------------

PRO_LEVELS = ["low", "high"]
FLASH_LEVELS = ["minimal", "low", "medium", "high"]


@pytest.mark.parametrize(
    ("levels", "effort", "level"),
    [
        (FLASH_LEVELS, "minimal", "minimal"),
        (FLASH_LEVELS, "low", "low"),
        (FLASH_LEVELS, "medium", "medium"),
        (FLASH_LEVELS, "high", "high"),
        (FLASH_LEVELS, "xhigh", "high"),
        (FLASH_LEVELS, "max", "high"),
        (FLASH_LEVELS, "none", "minimal"),
        (PRO_LEVELS, "minimal", "low"),
        (PRO_LEVELS, "medium", "high"),  # a tie between low and high goes up
        (PRO_LEVELS, "none", "low"),
        (PRO_LEVELS, "max", "high"),
    ],
)
def test_effort_models_get_the_nearest_thinking_level(
    levels: list[str], effort: ReasoningEffort, level: str
) -> None:
    config = generation(
        body_of(ask(reasoning_effort=effort), target(info_with([EffortOption(values=levels)])))
    )
    thinking = config["thinkingConfig"]
    assert isinstance(thinking, dict)
    assert thinking["thinkingLevel"] == level.upper()
    assert "thinkingBudget" not in thinking
    assert thinking.get("includeThoughts") is (True if effort != "none" else None)


@pytest.mark.parametrize(
    ("option", "effort", "budget"),
    [
        (BudgetOption(min=128, max=32768), "minimal", 1024),
        (BudgetOption(min=128, max=32768), "low", 4096),
        (BudgetOption(min=128, max=32768), "medium", 8192),
        (BudgetOption(min=128, max=32768), "high", 16384),
        (BudgetOption(min=128, max=32768), "xhigh", 24576),
        (BudgetOption(min=128, max=32768), "max", 32768),
        (BudgetOption(min=128, max=32768), "none", 128),  # 2.5 Pro cannot switch off
        (BudgetOption(min=0, max=24576), "none", 0),  # 2.5 Flash can
        (BudgetOption(min=0, max=24576), "max", 24576),
        (BudgetOption(min=512, max=24576), "minimal", 1024),
        (BudgetOption(min=2048, max=24576), "minimal", 2048),
    ],
)
def test_budget_models_get_a_thinking_budget_within_their_range(
    option: BudgetOption, effort: ReasoningEffort, budget: int
) -> None:
    config = generation(body_of(ask(reasoning_effort=effort), target(info_with([option]))))
    thinking = config["thinkingConfig"]
    assert isinstance(thinking, dict)
    assert thinking["thinkingBudget"] == budget
    assert "thinkingLevel" not in thinking
    assert thinking.get("includeThoughts") is (True if effort != "none" else None)


def test_a_model_with_levels_and_a_budget_gets_only_the_level() -> None:
    tgt = target(model_info("google", effort=True, budget=True))
    thinking = generation(body_of(ask(reasoning_effort="low"), tgt))["thinkingConfig"]
    assert thinking == {"thinkingLevel": "LOW", "includeThoughts": True}


def test_toggle_only_model_switches_thinking_off_with_a_zero_budget() -> None:
    tgt = target(info_with([ToggleOption()]))
    assert generation(body_of(ask(reasoning_effort="none"), tgt))["thinkingConfig"] == {
        "thinkingBudget": 0
    }
    assert generation(body_of(ask(reasoning_effort="high"), tgt))["thinkingConfig"] == {
        "includeThoughts": True
    }


def test_without_catalog_facts_only_thoughts_are_requested() -> None:
    assert generation(body_of(ask(reasoning_effort="high"), target(None)))["thinkingConfig"] == {
        "includeThoughts": True
    }
    assert "thinkingConfig" not in generation(body_of(ask(reasoning_effort="none"), target(None)))


def test_no_thinking_config_without_an_effort_or_for_a_non_reasoning_model() -> None:
    assert "thinkingConfig" not in generation(body_of(ask()))
    plain_model = target(info_with([], reasoning=False))
    assert "thinkingConfig" not in generation(body_of(ask(reasoning_effort="high"), plain_model))


# --- limits and sampling ---------------------------------------------------------------------


def test_max_output_tokens_from_request_then_catalog_then_omitted() -> None:
    tgt = target(info_with([], max_output=65536))
    assert generation(body_of(ask(max_output_tokens=500), tgt))["maxOutputTokens"] == 500
    assert generation(body_of(ask(), tgt))["maxOutputTokens"] == 65536
    assert "maxOutputTokens" not in generation(body_of(ask(), target(None)))
    assert "generationConfig" not in body_of(ask(), target(None))


def test_temperature_is_sent_only_when_set_and_allowed() -> None:
    assert generation(body_of(ask(temperature=0.2)))["temperature"] == 0.2
    assert "temperature" not in generation(body_of(ask()))
    refuses = target(info_with([], temperature=False))
    assert "temperature" not in generation(body_of(ask(temperature=0.2), refuses))


# --- tools -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        (ForcedTool(name="read_file"), {"mode": "ANY", "allowedFunctionNames": ["read_file"]}),
    ],
)
def test_tool_choice_forms(choice: ToolChoice, config: JSONObject) -> None:
    body = body_of(ask(tools=[READ_TOOL, LIST_TOOL], tool_choice=choice))
    assert body["toolConfig"] == {"functionCallingConfig": config}


def test_no_tools_means_no_tools_or_tool_config() -> None:
    body = body_of(ask(tool_choice="required"))
    assert "tools" not in body
    assert "toolConfig" not in body


def test_a_tool_without_parameters_omits_them() -> None:
    body = body_of(ask(tools=[LIST_TOOL]))
    assert body["tools"] == [
        {"functionDeclarations": [{"name": "list_dir", "description": LIST_TOOL.description}]}
    ]


def test_schema_conversion_keeps_the_gemini_subset_and_drops_the_rest() -> None:
    schema: JSONObject = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Args",
        "additionalProperties": False,
        "properties": {
            "path": {"type": "string", "description": "Where", "pattern": "^/", "default": "/"},
            "mode": {"enum": ["r", "w"]},
            "count": {"type": ["integer", "null"], "minimum": 1, "format": "int32"},
            "url": {"type": "string", "format": "uri"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 5},
            "level": {"enum": [1, 2, 3], "type": "integer"},
            "kind": {"const": "file"},
            "meta": {"type": "object", "properties": {}, "additionalProperties": True},
        },
        "required": ["path", "ghost"],
    }
    assert to_gemini_schema(schema) == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Where"},
            "mode": {"type": "string", "enum": ["r", "w"]},
            "count": {"type": "integer", "format": "int32", "nullable": True, "minimum": 1},
            "url": {"type": "string"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
            "level": {"type": "integer"},
            "kind": {"type": "string", "enum": ["file"]},
            "meta": {"type": "object"},
        },
        "required": ["path"],
    }


def test_schema_conversion_folds_null_alternatives_and_maps_one_of() -> None:
    schema: JSONObject = {
        "type": "object",
        "properties": {
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "d"},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "choice": {"enum": ["a", None]},
            "multi": {"type": ["string", "number"]},
        },
    }
    assert to_gemini_schema(schema)["properties"] == {
        "maybe": {"type": "string", "description": "d", "nullable": True},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "choice": {"type": "string", "enum": ["a"], "nullable": True},
        "multi": {"anyOf": [{"type": "string"}, {"type": "number"}]},
    }


def test_schema_conversion_inlines_local_refs_and_cuts_cycles() -> None:
    schema: JSONObject = {
        "type": "object",
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number"}}},
            "Node": {
                "type": "object",
                "properties": {"child": {"$ref": "#/$defs/Node"}, "at": {"$ref": "#/$defs/Point"}},
            },
        },
        "properties": {
            "root": {"$ref": "#/$defs/Node", "description": "the root"},
            "wrapped": {"allOf": [{"$ref": "#/$defs/Point"}]},
            "dangling": {"$ref": "#/$defs/Missing"},
        },
    }
    point = {"type": "object", "properties": {"x": {"type": "number"}}}
    assert to_gemini_schema(schema)["properties"] == {
        "root": {
            "type": "object",
            "description": "the root",
            "properties": {"child": {"type": "object"}, "at": point},
        },
        "wrapped": point,
        "dangling": {"type": "object"},
    }


# --- history ---------------------------------------------------------------------------------


def call_part(call_id: str, name: str = "read_file", **meta: JSONValue) -> ToolCallPart:
    return ToolCallPart(
        id=call_id,
        name=name,
        input={"path": "a"},
        provider_metadata={"google": dict(meta)} if meta else {},
    )


def result(call_id: str, text: str = "ok", name: str = "read_file") -> ToolResultPart:
    return ToolResultPart(call_id=call_id, name=name, content=[TextPart(text=text)])


def test_results_of_consecutive_tool_messages_share_one_function_response_content() -> None:
    messages = [
        user("go"),
        Message(role="assistant", parts=[call_part("c1"), call_part("c2")]),
        Message(role="tool", parts=[result("c1")]),
        Message(role="tool", parts=[result("c2", "two")]),
        user("and then?"),
    ]
    items = contents(body_of(ask(messages=messages)))
    assert items[2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "read_file", "response": {"output": "ok"}}},
            {"functionResponse": {"name": "read_file", "response": {"output": "two"}}},
        ],
    }
    # Text after function responses in the same content is rejected by newer models.
    assert items[3] == {"role": "user", "parts": [{"text": "and then?"}]}
    assert len(items) == 4


def test_gemini_issued_call_ids_are_echoed_and_ours_are_not() -> None:
    messages = [
        user("go"),
        Message(role="assistant", parts=[call_part("g-1", id="g-1"), call_part("ours-2")]),
        Message(role="tool", parts=[result("g-1"), result("ours-2")]),
    ]
    items = contents(body_of(ask(messages=messages)))
    calls = [p["functionCall"] for p in parts_of(items[1])]
    assert calls == [
        {"name": "read_file", "args": {"path": "a"}, "id": "g-1"},
        {"name": "read_file", "args": {"path": "a"}},
    ]
    response_content = items[2]
    assert isinstance(response_content, dict)
    assert response_content["parts"] == [
        {"functionResponse": {"name": "read_file", "response": {"output": "ok"}, "id": "g-1"}},
        {"functionResponse": {"name": "read_file", "response": {"output": "ok"}}},
    ]


def test_signed_parts_replay_in_place_and_foreign_reasoning_is_dropped() -> None:
    assistant = Message(
        role="assistant",
        parts=[
            ReasoningPart(text="mine", provider_metadata={"google": {"thoughtSignature": "s1"}}),
            ReasoningPart(text="theirs", provider_metadata={"anthropic": {"signature": "x"}}),
            ReasoningPart(text="unsigned"),
            TextPart(text="Answer", provider_metadata={"google": {"thoughtSignature": "s2"}}),
            TextPart(text=""),
            TextPart(text="", provider_metadata={"google": {"thoughtSignature": "s3"}}),
        ],
    )
    items = contents(body_of(ask(messages=[user("q"), assistant, user("more")])))
    assert items[1] == {
        "role": "model",
        "parts": [
            {"text": "mine", "thought": True, "thoughtSignature": "s1"},
            {"text": "Answer", "thoughtSignature": "s2"},
            {"text": "", "thoughtSignature": "s3"},
        ],
    }


def test_placeholder_signature_only_on_an_unsigned_first_call() -> None:
    foreign = Message(
        role="assistant",
        parts=[
            TextPart(text="t", provider_metadata={"google": {"thoughtSignature": "on-text"}}),
            call_part("c1"),
            call_part("c2"),
        ],
    )
    signed = Message(
        role="assistant", parts=[call_part("c3", thoughtSignature="real"), call_part("c4")]
    )
    messages = [
        user("go"),
        foreign,
        Message(role="tool", parts=[result("c1"), result("c2")]),
        signed,
        Message(role="tool", parts=[result("c3"), result("c4")]),
    ]
    items = contents(body_of(ask(messages=messages)))
    signatures = [[p.get("thoughtSignature") for p in parts_of(items[i])] for i in (1, 3)]
    assert signatures == [
        ["on-text", "skip_thought_signature_validator", None],
        ["real", None],
    ]


def test_tool_result_images_follow_in_the_next_user_content() -> None:
    image = ImagePart(media_type="image/png", data=PNG_1PX)
    messages = [
        user("look"),
        Message(role="assistant", parts=[call_part("c1", name="shot")]),
        Message(
            role="tool",
            parts=[ToolResultPart(call_id="c1", name="shot", content=[image])],
        ),
    ]
    items = contents(body_of(ask(messages=messages)))
    assert items[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "shot", "response": {"output": ""}}}],
    }
    assert items[3] == {
        "role": "user",
        "parts": [
            {"text": "Images returned by the shot tool call:"},
            {"inlineData": {"mimeType": "image/png", "data": PNG_1PX}},
        ],
    }


def test_other_history_shapes() -> None:
    messages = [
        user("one"),
        Message(role="system", parts=[TextPart(text="Be brief from now on.")]),
        Message(
            role="user",
            parts=[ImagePart(media_type="image/png", url=f"data:image/png;base64,{PNG_1PX}")],
        ),
        Message(role="assistant", parts=[TextPart(text="a")]),
        Message(
            role="assistant",
            parts=[ToolCallPart(id="c1", name="read_file", input="{not json")],
        ),
        Message(role="tool", parts=[result("c1", "bad arguments")]),
    ]
    items = contents(body_of(ask(messages=messages)))
    assert items[0] == {
        "role": "user",
        "parts": [
            {"text": "one"},
            {"text": "Be brief from now on."},
            {"inlineData": {"mimeType": "image/png", "data": PNG_1PX}},
        ],
    }
    assert items[1] == {
        "role": "model",
        "parts": [
            {"text": "a"},
            {
                "functionCall": {"name": "read_file", "args": {"raw_arguments": "{not json"}},
                "thoughtSignature": "skip_thought_signature_validator",
            },
        ],
    }
    assert len(items) == 3
