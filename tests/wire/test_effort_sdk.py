"""Every effort level on every wire, for the model families the catalog knows: the body
carries the right reasoning fields, validates against the vendor's official SDK request
types, replays earlier reasoning with its signature or encrypted content, and what
``providers.effort.choose`` reports is what the body carries."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from earshot.providers.catalog import ModelCatalog
from earshot.providers.effort import EFFORT_LEVELS, REQUEST_EFFORT, EffortLevel, choose
from earshot.providers.models import ModelInfo
from earshot.providers.target import Secret, Target, WireName
from earshot.providers.types import JSONObject, JSONValue
from earshot.providers.wire import get_wire
from tests.wire.cases import CASES
from tests.wire.sdk_types import anthropic_errors, chat_errors, gemini_errors, responses_errors

CATALOG = ModelCatalog.load(use_cache=False)
REPLAY = next(case for case in CASES if case.name == "reasoning_replay")


def catalog_target(provider: str, model: str, wire: WireName, **override: JSONValue) -> Target:
    info = CATALOG.get(provider, model)
    assert info is not None, f"{provider}/{model} left the catalog"
    if override:
        info = msgspec.convert({**msgspec.to_builtins(info), **override}, ModelInfo)
    return Target(
        provider=provider,
        wire=wire,
        base_url="https://vendor.invalid/v1",
        model=model,
        auth="x-api-key" if wire == "anthropic-messages" else "bearer",
        api_key=Secret("test-key"),
        info=info,
    )


def call_for(
    target: Target, level: EffortLevel, *, temperature: float | None = None
) -> tuple[JSONObject, dict[str, str]]:
    request = msgspec.structs.replace(
        REPLAY.request,
        model=target.model,
        reasoning_effort=REQUEST_EFFORT[level],
        temperature=temperature,
        max_output_tokens=None,
    )
    call = get_wire(target.wire).build_call(request, target)
    return call.json(), dict(call.headers)


def adaptive(effort: str) -> JSONObject:
    return {
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": effort},
    }


def budget(tokens: int) -> JSONObject:
    return {"thinking": {"type": "enabled", "budget_tokens": tokens}}


def gemini_budget(tokens: int) -> JSONObject:
    return {"thinkingBudget": tokens, "includeThoughts": True}


def gemini_level(level: str) -> JSONObject:
    return {"thinkingLevel": level, "includeThoughts": True}


def levels(*values: JSONObject) -> dict[EffortLevel, JSONObject]:
    return dict(zip(EFFORT_LEVELS, values, strict=True))


ANTHROPIC: dict[str, dict[EffortLevel, JSONObject]] = {
    "claude-sonnet-4-6": levels({}, *(adaptive(v) for v in ("low", "medium", "high", "max"))),
    "claude-sonnet-4-5": levels({}, *(budget(n) for n in (2048, 8192, 16384, 32768))),
    "claude-opus-4-1": levels({}, *(budget(n) for n in (2048, 8192, 16384, 24000))),
    "claude-sonnet-5": levels(
        {"thinking": {"type": "disabled"}},
        *(adaptive(v) for v in ("low", "medium", "high", "max")),
    ),
    "claude-opus-4-7": levels({}, *(adaptive(v) for v in ("low", "medium", "high", "max"))),
}


@pytest.mark.parametrize("level", EFFORT_LEVELS)
@pytest.mark.parametrize("model", sorted(ANTHROPIC))
def test_anthropic_effort_levels_validate_and_replay_signed_thinking(
    model: str, level: EffortLevel
) -> None:
    target = catalog_target("anthropic", model, "anthropic-messages")
    body, headers = call_for(target, level)
    assert anthropic_errors(body) == []
    sent = {key: body[key] for key in ("thinking", "output_config") if key in body}
    assert sent == ANTHROPIC[model][level]
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        tokens = thinking["budget_tokens"]
        assert isinstance(tokens, int) and 1024 <= tokens < body["max_tokens"]  # type: ignore[operator]  # max_tokens is an int
        assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    else:
        assert "anthropic-beta" not in headers
    if isinstance(thinking, dict) and thinking.get("type") != "disabled":
        warm, _ = call_for(target, level, temperature=0.5)
        assert "temperature" not in warm  # thinking forbids sampling parameters
    assert _replayed(body, "thinking", "signature") == ["sig-anthropic-1"]


RESPONSES: dict[str, list[str]] = {
    "gpt-5.4": ["none", "low", "medium", "high", "xhigh"],
    "gpt-5": ["minimal", "low", "medium", "high", "high"],
    "o3": ["low", "low", "medium", "high", "high"],
}


@pytest.mark.parametrize("level", EFFORT_LEVELS)
@pytest.mark.parametrize("model", sorted(RESPONSES))
def test_responses_effort_levels_validate_and_replay_encrypted_reasoning(
    model: str, level: EffortLevel
) -> None:
    target = catalog_target("openai", model, "openai-responses")
    body, _ = call_for(target, level)
    assert responses_errors(body) == []
    effort = RESPONSES[model][EFFORT_LEVELS.index(level)]
    assert body["reasoning"] == {"effort": effort, "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    items = body["input"]
    assert isinstance(items, list)
    replayed = [i for i in items if isinstance(i, dict) and i.get("type") == "reasoning"]
    assert [i["encrypted_content"] for i in replayed] == ["enc-openai-1"]


CHAT: dict[tuple[str, str], list[str]] = {
    ("openai", "gpt-5.4"): ["none", "low", "medium", "high", "xhigh"],
    ("groq", "openai/gpt-oss-120b"): ["low", "low", "medium", "high", "high"],
    ("deepseek", "deepseek-v4-pro"): ["high", "high", "high", "high", "max"],
}


@pytest.mark.parametrize("level", EFFORT_LEVELS)
@pytest.mark.parametrize(("provider", "model"), sorted(CHAT))
def test_chat_effort_levels_validate_and_replay_reasoning(
    provider: str, model: str, level: EffortLevel
) -> None:
    shape: dict[str, JSONValue] = {"shape": "completions"} if provider == "openai" else {}
    target = catalog_target(provider, model, "openai-chat", **shape)
    body, _ = call_for(target, level)
    # Compatible servers read reasoning back from a message field OpenAI does not define.
    extensions = () if provider == "openai" else ("reasoning_content",)
    assert chat_errors(body, extensions=extensions) == []
    assert body["reasoning_effort"] == CHAT[(provider, model)][EFFORT_LEVELS.index(level)]
    if provider == "deepseek":
        assert _replayed(body, "assistant", "reasoning_content") == ["Thinking about the file."]


GEMINI: dict[str, dict[EffortLevel, JSONObject]] = {
    "gemini-2.5-flash": levels(
        {"thinkingBudget": 0},
        *(gemini_budget(n) for n in (4096, 8192, 16384, 24576)),
    ),
    "gemini-2.5-pro": levels(
        {"thinkingBudget": 128},
        *(gemini_budget(n) for n in (4096, 8192, 16384, 32768)),
    ),
    "gemini-3.1-pro-preview": levels(
        {"thinkingLevel": "LOW"},
        *(gemini_level(v) for v in ("LOW", "MEDIUM", "HIGH", "HIGH")),
    ),
    "gemini-3-flash-preview": levels(
        {"thinkingLevel": "MINIMAL"},
        *(gemini_level(v) for v in ("LOW", "MEDIUM", "HIGH", "HIGH")),
    ),
}


@pytest.mark.parametrize("level", EFFORT_LEVELS)
@pytest.mark.parametrize("model", sorted(GEMINI))
def test_gemini_effort_levels_validate_and_replay_thought_signatures(
    model: str, level: EffortLevel
) -> None:
    target = catalog_target("google", model, "google-gemini")
    body, _ = call_for(target, level)
    assert gemini_errors(body) == []
    config = body["generationConfig"]
    assert isinstance(config, dict)
    assert config["thinkingConfig"] == GEMINI[model][level]
    assert _replayed(body, "functionCall", "thoughtSignature") == ["sig-google-1"]


WIRES: list[tuple[str, str, WireName, Callable[[JSONObject], list[str]]]] = [
    *(("anthropic", m, "anthropic-messages", anthropic_errors) for m in ANTHROPIC),
    *(("openai", m, "openai-responses", responses_errors) for m in RESPONSES),
    *(("google", m, "google-gemini", gemini_errors) for m in GEMINI),
]


@pytest.mark.parametrize(("provider", "model", "wire", "_check"), WIRES)
def test_what_choose_reports_is_what_the_body_carries(
    provider: str, model: str, wire: WireName, _check: Callable[[JSONObject], list[str]]
) -> None:
    target = catalog_target(provider, model, wire)
    for level in EFFORT_LEVELS:
        choice = choose(level, target)
        body, _ = call_for(target, level)
        assert choice.request == REQUEST_EFFORT[level]
        text = str(body)
        if choice.value is not None and choice.value != "none":
            assert choice.value in text.lower()
        if level == "off":  # sent as a reasoning level or budget: the model cannot stop
            mapped = bool(choice.sent) and choice.value != "none"
        else:
            mapped = choice.value not in (None, level)
        assert bool(choice.note) == mapped, (level, choice)


def _replayed(node: JSONValue, container: str, key: str) -> list[JSONValue]:
    """Every ``key`` value inside an object of type/role/key ``container``, depth first."""
    found: list[JSONValue] = []
    if isinstance(node, dict):
        marker = node.get("type") == container or node.get("role") == container
        if (marker or container in node) and key in node:
            found.append(node[key])
        for value in node.values():
            found += _replayed(value, container, key)
    elif isinstance(node, list):
        for item in node:
            found += _replayed(item, container, key)
    return found


SNAPSHOTS = Path(__file__).parent / "snapshots"
CHECKS: dict[str, Callable[[JSONObject], list[str]]] = {
    "anthropic-messages": anthropic_errors,
    "openai-responses": responses_errors,
    "openai-chat": lambda body: chat_errors(body, extensions=("reasoning_content",)),
    "google-gemini": gemini_errors,
}


@pytest.mark.parametrize("wire", sorted(CHECKS))
def test_every_pinned_body_validates_against_the_vendor_sdk_types(wire: str) -> None:
    pinned = sorted((SNAPSHOTS / wire).glob("*.json"))
    assert pinned
    for path in pinned:
        body = json.loads(path.read_text(encoding="utf-8"))
        assert CHECKS[wire](body) == [], path.name
