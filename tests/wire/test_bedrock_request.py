"""What earshot sends on the ``amazon-bedrock`` wire: ConverseStream bodies pinned per shared
case, the URL, cache points per model family, images, tool choice and tool-call ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.providers.target import Target
from earshot.providers.types import (
    ForcedTool,
    ImagePart,
    JSONObject,
    JSONValue,
    Message,
    ModelRequest,
    TextPart,
    ToolCallPart,
)
from earshot.providers.wire.bedrock import WIRE
from earshot.providers.wire.bedrock._request import cache_points, family, wire_id
from tests.wire.cases import CASES, PNG_1PX, READ_TOOL, Case, model_info

SNAPSHOTS = Path(__file__).parent / "snapshots" / "amazon-bedrock"
UPDATE = bool(__import__("os").environ.get("EARSHOT_UPDATE_SNAPSHOTS"))
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def target(model: str = CLAUDE) -> Target:
    return Target(
        provider="amazon-bedrock",
        wire="amazon-bedrock",
        base_url="https://bedrock-runtime.eu-west-1.amazonaws.com",
        model=model,
        auth="aws-sigv4",
        info=model_info("amazon-bedrock", effort=False, budget=True),
        cloud={"region": "eu-west-1"},
    )


def body_of(request: ModelRequest, model: str = CLAUDE) -> JSONObject:
    return WIRE.build_call(replace_model(request, model), target(model)).json()


def replace_model(request: ModelRequest, model: str) -> ModelRequest:
    return ModelRequest(
        model=model,
        messages=request.messages,
        system=request.system,
        tools=request.tools,
        tool_choice=request.tool_choice,
        reasoning_effort=request.reasoning_effort,
        max_output_tokens=request.max_output_tokens,
        temperature=request.temperature,
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_body_matches_pinned_snapshot(case: Case) -> None:
    body = body_of(case.request)
    path = SNAPSHOTS / f"{case.name}.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    expected: JSONValue = json.loads(path.read_text(encoding="utf-8"))
    assert body == expected, f"body differs from {path} (EARSHOT_UPDATE_SNAPSHOTS=1 rewrites it)"


def test_url_percent_encodes_the_model_id_and_arn() -> None:
    ask = CASES[0].request
    assert WIRE.build_call(replace_model(ask, CLAUDE), target()).url == (
        "https://bedrock-runtime.eu-west-1.amazonaws.com/model/"
        "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    )
    arn = "arn:aws:bedrock:eu-west-1:123:inference-profile/eu.anthropic.claude-x"
    assert "/model/arn%3Aaws%3Abedrock%3Aeu-west-1%3A123%3Ainference-profile%2Feu.anthropic" in (
        WIRE.build_call(replace_model(ask, arn), target(arn)).url
    )


@pytest.mark.parametrize(
    ("model", "vendor", "points"),
    [
        ("anthropic.claude-3-5-haiku-20241022-v1:0", "anthropic", 2),
        ("global.anthropic.claude-opus-4-8", "anthropic", 2),
        ("arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-x", "anthropic", 2),
        ("amazon.nova-pro-v1:0", "amazon", 1),
        ("us.meta.llama3-3-70b-instruct-v1:0", "meta", 0),
        ("mistral.mistral-large-2407-v1:0", "mistral", 0),
    ],
)
def test_family_and_cache_points(model: str, vendor: str, points: int) -> None:
    assert family(model) == vendor
    assert cache_points(model) == points


def test_models_without_prompt_caching_get_no_cache_points() -> None:
    body = body_of(CASES[0].request, "us.meta.llama3-3-70b-instruct-v1:0")
    assert "cachePoint" not in json.dumps(body)
    assert "additionalModelRequestFields" not in body


def test_images_by_format_and_a_url_image_as_a_note() -> None:
    request = ModelRequest(
        model=CLAUDE,
        messages=[
            Message(
                role="user",
                parts=[
                    ImagePart(media_type="image/png", data=PNG_1PX),
                    ImagePart(media_type="image/jpeg", url="https://example.com/a.jpg"),
                    TextPart(text="what is this?"),
                ],
            )
        ],
    )
    content = body_of(request)["messages"]
    assert isinstance(content, list)
    first = content[0]
    assert isinstance(first, dict)
    assert first["content"] == [
        {"image": {"format": "png", "source": {"bytes": PNG_1PX}}},
        {"text": "[image not sent: https://example.com/a.jpg]"},
        {"text": "what is this?"},
        {"cachePoint": {"type": "default"}},
    ]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", None),
        ("none", None),
        ("required", {"any": {}}),
        (ForcedTool(name="read_file"), {"tool": {"name": "read_file"}}),
    ],
)
def test_tool_choice(choice: object, expected: JSONValue) -> None:
    request = ModelRequest(
        model=CLAUDE,
        messages=[Message(role="user", parts=[TextPart(text="go")])],
        tools=[READ_TOOL],
        tool_choice=choice,  # type: ignore[arg-type]  # the parametrized ToolChoice values
    )
    config = body_of(request)["toolConfig"]
    assert isinstance(config, dict)
    assert config.get("toolChoice") == expected


def test_foreign_tool_call_ids_are_made_acceptable_on_both_sides() -> None:
    assert wire_id("call:abc/1.2") == "call_abc_1_2"
    assert len(wire_id("x" * 100)) == 64
    call = ToolCallPart(id="call:1", name="read_file", input={"path": "a"})
    request = ModelRequest(
        model=CLAUDE,
        messages=[
            Message(role="user", parts=[TextPart(text="go")]),
            Message(role="assistant", parts=[call]),
        ],
        tools=[READ_TOOL],
    )
    assert '"toolUseId":"call_1"' in json.dumps(body_of(request), separators=(",", ":"))
