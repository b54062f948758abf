"""The Anthropic Messages request body: ``ModelRequest`` -> JSON.

Body layout (keys in this order)::

    model, max_tokens, stream: true,
    system:   [{type: text, text, cache_control}]            (omitted when empty)
    messages: [{role: user|assistant, content: [blocks]}]
    tools:    [{name, description, input_schema}]             (omitted when none)
    tool_choice, thinking, output_config, temperature         (each only when it applies)

Rules a change must keep:

- Roles. ``user`` and ``tool`` messages become ``user``; ``assistant`` stays. A ``system``
  message in the history becomes user text wrapped as ``<system>\\n...\\n</system>`` (the API
  has no mid-conversation system role). Consecutive messages of the same wire role are merged
  into one, and in every user message the ``tool_result`` blocks come first, then the rest
  (the API requires results directly after the assistant turn that called them).
- Assistant content. Reasoning is replayed only when it carries this provider's metadata:
  ``signature`` -> ``thinking`` block (text and signature verbatim), ``redacted_data`` ->
  ``redacted_thinking``; other reasoning is dropped. Thinking blocks keep their original order
  and go before the text and ``tool_use`` blocks of the same message. Empty text is never sent.
  A tool call whose input is not a JSON object (unparseable arguments kept as a string) is
  sent with ``input: {}``. Tool-call ids are sent with characters outside ``[A-Za-z0-9_-]``
  replaced by ``_`` (ids from other vendors), identically in ``tool_use`` and ``tool_result``.
- Images: base64 ``data`` -> ``source: {type: base64}``, an https ``url`` ->
  ``source: {type: url}`` (the API fetches it), in user messages and inside tool results.
- Prompt cache: at most 3 of the API's 4 ``cache_control: {type: ephemeral}`` breakpoints:
  the system prompt (which also covers the tools, as tools precede it in the cache prefix),
  and the last block of each of the two newest user messages. The newest writes this call's
  prefix; the one before it is where the previous call of an agent loop ended, so that
  call's write is looked up exactly, however many blocks were appended since.
- Max tokens: ``request.max_output_tokens``, else the catalog's ``max_output``, else
  ``DEFAULT_MAX_TOKENS``.
- Reasoning (``request.reasoning_effort``; ``None`` and ``"none"`` send no thinking):
  a model with effort values gets ``thinking: {type: adaptive, display: summarized}`` and
  ``output_config: {effort}``, the level mapped onto the nearest value the model has (see
  ``map_effort``), except Claude Opus 4.5, which lists effort values but answers 400 to
  adaptive thinking. ``display: summarized`` keeps the thinking text visible on the models
  whose default is to omit it. Opus 4.5, every other reasoning model and a model with no
  catalog entry get ``thinking: {type: enabled, budget_tokens}`` (see ``thinking_budget``);
  a catalog model without reasoning gets none. ``"none"`` on a model the catalog gives a
  toggle (one that thinks unless told not to) sends ``thinking: {type: disabled}``. A
  ``tool_choice`` that forces a tool turns thinking off (the API rejects the pair). With
  thinking on, ``temperature`` is not sent.
- Interleaved thinking: Claude 4 models on the budget form think between tool calls only
  with the ``interleaved-thinking-2025-05-14`` beta (``beta_header``); adaptive thinking
  interleaves by itself.
"""

from __future__ import annotations

import re
from typing import assert_never

from earshot.providers.models import BudgetOption, ModelInfo, ToggleOption
from earshot.providers.target import Target
from earshot.providers.types import (
    ForcedTool,
    ImagePart,
    JSONObject,
    JSONValue,
    Message,
    ModelRequest,
    Part,
    ReasoningEffort,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    metadata_for,
)
from earshot.providers.wire._turns import KeptBlocks, merge_turns, system_text

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192
MIN_BUDGET = 1024
CACHED_USER_MESSAGES = 2

# Effort levels from least to most; ``none`` is handled before mapping.
_LEVELS: tuple[ReasoningEffort, ...] = ("minimal", "low", "medium", "high", "xhigh", "max")
# Thinking budget per level for models that take ``budget_tokens``.
BUDGETS: dict[ReasoningEffort, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 24576,
    "max": 32768,
}

# Models that list effort levels in the catalog but predate adaptive thinking: the API
# answers 400 to ``thinking: {type: adaptive}`` for them, so they take the budget form.
_NO_ADAPTIVE_MODELS = re.compile(r"claude-opus-4[-.]5(?!\d)")
# Claude 4 models (not 3.x): with budget thinking they interleave thinking between tool
# calls only when asked with this beta.
_INTERLEAVED_MODELS = re.compile(r"claude-(?:opus|sonnet|haiku)-4(?!\d)")
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"

_CACHE: JSONObject = {"type": "ephemeral"}
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_KEPT = KeptBlocks()
"""The blocks of the parts of recent requests (``wire._turns``)."""


# --- headers -------------------------------------------------------------------------------


def build_headers(target: Target) -> dict[str, str]:
    """The API version, then the user's extra headers (the credential is added by
    ``providers.auth_headers``)."""
    headers = {"anthropic-version": ANTHROPIC_VERSION}
    headers.update(target.headers)
    return headers


# --- reasoning -----------------------------------------------------------------------------


def map_effort(effort: ReasoningEffort, values: list[str]) -> str | None:
    """The model's value for an earshot level: the level itself when the model has it, else
    the lowest value above it, else the highest value below it (``None``: no known values)."""
    if effort in values:
        return effort
    if effort == "none":
        return None
    known = [level for level in _LEVELS if level in values]
    if not known:
        return None
    rank = _LEVELS.index(effort)
    above = [level for level in known if _LEVELS.index(level) > rank]
    return above[0] if above else known[-1]


def thinking_budget(effort: ReasoningEffort, max_tokens: int, option: BudgetOption) -> int | None:
    """``BUDGETS[effort]`` clamped to the option's min/max and to at most three quarters of
    ``max_tokens`` (the budget counts toward it; the answer keeps the rest), never below
    ``MIN_BUDGET``. ``None`` when no budget fits (thinking is then not sent)."""
    if effort == "none":
        return None
    lower = max(MIN_BUDGET, option.min or 0)
    upper = max_tokens - max_tokens // 4
    if option.max is not None:
        upper = min(upper, option.max)
    if lower > upper:
        return None
    return min(max(BUDGETS[effort], lower), upper)


def reasoning_fields(request: ModelRequest, info: ModelInfo | None, max_tokens: int) -> JSONObject:
    effort = request.reasoning_effort
    forced = request.tools and (
        request.tool_choice == "required" or isinstance(request.tool_choice, ForcedTool)
    )
    if effort == "none" and info is not None and _has_toggle(info):
        return {"thinking": {"type": "disabled"}}
    if effort is None or effort == "none" or forced:
        return {}
    values = info.effort_values() if info is not None else []
    if values and not _NO_ADAPTIVE_MODELS.search(request.model):
        adaptive: JSONObject = {"type": "adaptive", "display": "summarized"}
        mapped = map_effort(effort, values)
        if mapped is None:
            return {"thinking": adaptive}
        return {"thinking": adaptive, "output_config": {"effort": mapped}}
    if info is not None and not info.reasoning:
        return {}
    option = (info.budget_option() if info is not None else None) or BudgetOption()
    budget = thinking_budget(effort, max_tokens, option)
    if budget is None:
        return {}
    return {"thinking": {"type": "enabled", "budget_tokens": budget}}


def _has_toggle(info: ModelInfo) -> bool:
    return any(isinstance(option, ToggleOption) for option in info.reasoning_options)


def beta_header(body: JSONObject, request: ModelRequest) -> str | None:
    """The ``anthropic-beta`` value a body needs: interleaved thinking for a Claude 4 model
    on budget thinking with tools (None when nothing is needed)."""
    thinking = body.get("thinking")
    budget = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    if budget and "tools" in body and _INTERLEAVED_MODELS.search(request.model):
        return INTERLEAVED_BETA
    return None


def _tool_choice(request: ModelRequest) -> JSONObject | None:
    choice = request.tool_choice
    if isinstance(choice, ForcedTool):
        return {"type": "tool", "name": choice.name}
    match choice:
        case "auto":
            return None
        case "none":
            return {"type": "none"}
        case "required":
            return {"type": "any"}
        case _:
            assert_never(choice)


# --- messages ------------------------------------------------------------------------------


def wire_id(call_id: str) -> str:
    """A tool-call id the API accepts (``^[A-Za-z0-9_-]+$``)."""
    return _BAD_ID_CHARS.sub("_", call_id) or "_"


def _image(part: ImagePart) -> JSONObject | None:
    if part.data is not None:
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": part.media_type, "data": part.data},
        }
    if part.url is not None:
        return {"type": "image", "source": {"type": "url", "url": part.url}}
    return None


def _tool_result(part: ToolResultPart) -> JSONObject:
    content: list[JSONValue] = []
    for item in part.content:
        if isinstance(item, TextPart):
            if item.text:
                content.append({"type": "text", "text": item.text})
        else:
            image = _image(item)
            if image is not None:
                content.append(image)
    block: JSONObject = {"type": "tool_result", "tool_use_id": wire_id(part.call_id)}
    if content:
        block["content"] = content
    if part.is_error:
        block["is_error"] = True
    return block


def _thinking(part: ReasoningPart, provider: str) -> JSONObject | None:
    md = metadata_for(part, provider)
    signature = md.get("signature")
    if isinstance(signature, str) and signature:
        return {"type": "thinking", "thinking": part.text, "signature": signature}
    redacted = md.get("redacted_data")
    if isinstance(redacted, str) and redacted:
        return {"type": "redacted_thinking", "data": redacted}
    return None


def _block(part: Part, provider: str, system: bool) -> JSONObject | None:
    if isinstance(part, TextPart):
        text = system_text(part.text) if system else part.text
        return {"type": "text", "text": text} if part.text else None
    if isinstance(part, ImagePart):
        return _image(part)
    if isinstance(part, ReasoningPart):
        return _thinking(part, provider)
    if isinstance(part, ToolCallPart):
        value = part.input if isinstance(part.input, dict) else {}
        return {"type": "tool_use", "id": wire_id(part.id), "name": part.name, "input": value}
    if isinstance(part, ToolResultPart):
        return _tool_result(part)
    assert_never(part)


def convert_messages(messages: list[Message], provider: str) -> list[JSONObject]:
    """The history as wire messages: merged by role, ordered, empties dropped
    (``wire._turns``), with cache breakpoints on the newest user messages."""
    turns = merge_turns(
        messages, lambda part, system: _block(part, provider, system), _KEPT, provider
    )
    wire: list[JSONObject] = []
    marked = 0
    for turn in reversed(turns):
        blocks = list(turn.blocks)
        if turn.role == "user" and marked < CACHED_USER_MESSAGES:
            blocks[-1] = {**blocks[-1], "cache_control": dict(_CACHE)}
            marked += 1
        content: list[JSONValue] = list(blocks)
        wire.append({"role": turn.role, "content": content})
    wire.reverse()
    return wire


# --- the body ------------------------------------------------------------------------------


def max_tokens_for(request: ModelRequest, info: ModelInfo | None) -> int:
    if request.max_output_tokens:
        return request.max_output_tokens
    if info is not None and info.max_output > 0:
        return info.max_output
    return DEFAULT_MAX_TOKENS


def build_body(request: ModelRequest, target: Target) -> JSONObject:
    info = target.info
    max_tokens = max_tokens_for(request, info)
    body: JSONObject = {"model": request.model, "max_tokens": max_tokens, "stream": True}
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": dict(_CACHE)}]
    messages: list[JSONValue] = [*convert_messages(request.messages, target.provider)]
    body["messages"] = messages
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
        choice = _tool_choice(request)
        if choice is not None:
            body["tool_choice"] = choice
    reasoning = reasoning_fields(request, info, max_tokens)
    body.update(reasoning)
    temperature_ok = info is None or info.temperature
    if request.temperature is not None and "thinking" not in reasoning and temperature_ok:
        body["temperature"] = request.temperature
    return body


__all__ = [
    "ANTHROPIC_VERSION",
    "BUDGETS",
    "DEFAULT_MAX_TOKENS",
    "INTERLEAVED_BETA",
    "MIN_BUDGET",
    "beta_header",
    "build_body",
    "build_headers",
    "convert_messages",
    "map_effort",
    "max_tokens_for",
    "reasoning_fields",
    "thinking_budget",
    "wire_id",
]
