"""The body of a Gemini ``streamGenerateContent`` request, built from a ``ModelRequest``.

Shape::

    {"contents": [{"role": "user" | "model", "parts": [...]}, ...],
     "systemInstruction": {"parts": [{"text": system}]},          when there is a system prompt
     "tools": [{"functionDeclarations": [...]}],                   when there are tools
     "toolConfig": {"functionCallingConfig": {"mode": ...}},       when there are tools
     "generationConfig": {"maxOutputTokens", "temperature", "thinkingConfig"}}

History, in order (consecutive contents of one role are merged, except as noted):

- user and mid-history system messages: a ``user`` content of ``{text}``, ``{inlineData}``
  (base64 images) and ``{fileData: {mimeType, fileUri}}`` (https images: the Gemini API
  fetches public and signed URLs itself; one it cannot reach, such as an intranet host,
  fails the request with a 400, so callers that cannot promise reachability should inline
  the bytes instead). ``data:`` URLs are sent inline.
- assistant messages: a ``model`` content replaying every part where it was, with its
  ``thoughtSignature`` when this provider recorded one: text (a signed empty text part
  included), reasoning as ``{text, thought: true}`` only when signed by this provider
  (reasoning from elsewhere is dropped), ``{functionCall: {name, args, id?}}`` with ``id``
  only when Gemini issued it, and images as ``inlineData``. The first ``functionCall`` of a
  model content without a signature of ours gets ``skip_thought_signature_validator``,
  the placeholder Google documents for history from another model.
- tool messages: one ``user`` content holding only ``functionResponse`` parts, one per
  result, ``response: {"output": text}`` (``{"error": text}`` when ``is_error``). Newer
  Gemini models reject a function-response content that also carries text or media
  ("Requests ending with a model turn are not supported"), and 2.x models reject sibling
  parts in parallel-call turns, so this content is never merged with anything. Images a
  tool returned follow in the NEXT ``user`` content, each result's images after a short
  text naming the tool; a user message that follows the results joins that content.

Tools: ``{name, description, parameters}`` with the schema converted to Gemini's subset
(``_schema``); a tool whose schema declares no properties omits ``parameters``
(Gemini rejects an object schema with empty ``properties``). ``toolConfig`` maps
auto/none/required to AUTO/NONE/ANY, and a forced tool to ANY with
``allowedFunctionNames``.

Limits and reasoning: ``maxOutputTokens`` is ``request.max_output_tokens``, else the
catalog's ``max_output``, else omitted (the server then allows the model's maximum).
``temperature`` is sent when set and the catalog does not say the model refuses it.
``thinkingConfig`` (only for reasoning models, only when an effort is requested): models
with effort levels (Gemini 3) get ``thinkingLevel`` (the enum name, ``LOW``), the nearest
level the model offers
(ties go up; ``none`` is the lowest level, since Gemini 3 cannot switch thinking off);
budget models (Gemini 2.5) get ``thinkingBudget`` from ``_BUDGETS`` clamped to the
model's min/max (``none`` is 0 where the minimum allows it, else the minimum); never both.
``includeThoughts`` is true for any effort but ``none``. Without catalog facts the wrong
field would be a 400, so only ``includeThoughts`` is sent.
"""

from __future__ import annotations

from typing import assert_never

from earshot.providers.models import ModelInfo
from earshot.providers.target import Target
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
    ToolResultPart,
    metadata_for,
)
from earshot.providers.wire.gemini._schema import has_parameters, to_gemini_schema

SKIP_SIGNATURE = "skip_thought_signature_validator"

_EFFORT_ORDER: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
# Thinking budget per effort for budget models, before clamping to the model's range.
_BUDGETS: dict[ReasoningEffort, int] = {
    "minimal": 1024,
    "low": 4096,
    "medium": 8192,
    "high": 16384,
    "xhigh": 24576,
    "max": 32768,
}


def build_body(request: ModelRequest, target: Target) -> JSONObject:
    body: JSONObject = {}
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    body["contents"] = _contents(request.messages, target.provider)
    if request.tools:
        declarations: list[JSONValue] = []
        for tool in request.tools:
            declaration: JSONObject = {"name": tool.name, "description": tool.description}
            parameters = to_gemini_schema(tool.input_schema)
            if has_parameters(parameters):
                declaration["parameters"] = parameters
            declarations.append(declaration)
        body["tools"] = [{"functionDeclarations": declarations}]
        body["toolConfig"] = {"functionCallingConfig": _calling_config(request)}
    config = _generation_config(request, target.info)
    if config:
        body["generationConfig"] = config
    return body


# --- history ---------------------------------------------------------------------------------


class _Contents:
    """Accumulates contents, merging a part into the previous content of the same role
    unless that content is sealed (a function-response content)."""

    def __init__(self) -> None:
        self.items: list[JSONObject] = []
        self._parts: list[JSONValue] | None = None
        self._role = ""

    def add(self, role: str, parts: list[JSONValue], *, sealed: bool = False) -> None:
        if not parts:
            return
        if self._parts is not None and self._role == role and not sealed:
            self._parts.extend(parts)
            return
        own = list(parts)
        self.items.append({"role": role, "parts": own})
        self._parts, self._role = (None, "") if sealed else (own, role)


def _contents(messages: list[Message], provider: str) -> list[JSONValue]:
    out = _Contents()
    gemini_ids: dict[str, str] = {}
    responses: list[JSONValue] = []
    media: list[JSONValue] = []
    for message in messages:
        if message.role == "tool":
            # Consecutive tool messages answer one model turn: one function-response content.
            _tool_parts(message, gemini_ids, responses, media)
            continue
        if responses or media:
            out.add("user", responses, sealed=True)
            out.add("user", media)
            responses, media = [], []
        match message.role:
            case "user" | "system":
                out.add("user", _user_parts(message))
            case "assistant":
                out.add("model", _model_parts(message, provider, gemini_ids))
            case _:
                assert_never(message.role)
    out.add("user", responses, sealed=True)
    out.add("user", media)
    return list(out.items)


def _user_parts(message: Message) -> list[JSONValue]:
    parts: list[JSONValue] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text:
                parts.append({"text": part.text})
        elif isinstance(part, ImagePart):
            parts.append(_image(part))
    return parts


def _model_parts(message: Message, provider: str, gemini_ids: dict[str, str]) -> list[JSONValue]:
    parts: list[JSONValue] = []
    first_call: JSONObject | None = None
    for part in message.parts:
        meta = metadata_for(part, provider)
        signature = meta.get("thoughtSignature")
        out: JSONObject
        match part:
            case TextPart():
                if not part.text and not isinstance(signature, str):
                    continue
                out = {"text": part.text}
            case ReasoningPart():
                if not isinstance(signature, str):
                    continue
                out = {"text": part.text, "thought": True}
            case ToolCallPart():
                call: JSONObject = {"name": part.name, "args": _call_args(part.input)}
                gemini_id = meta.get("id")
                if isinstance(gemini_id, str) and gemini_id:
                    call["id"] = gemini_id
                    gemini_ids[part.id] = gemini_id
                out = {"functionCall": call}
                if first_call is None:
                    first_call = out
            case ImagePart():
                out = _image(part)
            case ToolResultPart():
                continue
            case _:
                assert_never(part)
        if isinstance(signature, str):
            out["thoughtSignature"] = signature
        parts.append(out)
    if first_call is not None and "thoughtSignature" not in first_call:
        first_call["thoughtSignature"] = SKIP_SIGNATURE
    return parts


def _call_args(value: JSONValue) -> JSONObject:
    """``args`` must be an object; arguments kept as raw text (they were not valid JSON)
    are sent back as ``{"raw_arguments": text}`` so the model sees what it wrote."""
    if isinstance(value, dict):
        return value
    return {"raw_arguments": value}


def _tool_parts(
    message: Message,
    gemini_ids: dict[str, str],
    responses: list[JSONValue],
    media: list[JSONValue],
) -> None:
    for part in message.parts:
        if not isinstance(part, ToolResultPart):
            continue
        text = "\n".join(c.text for c in part.content if isinstance(c, TextPart))
        response: JSONObject = {"name": part.name, "response": {_result_key(part): text}}
        gemini_id = gemini_ids.get(part.call_id)
        if gemini_id is not None:
            response["id"] = gemini_id
        responses.append({"functionResponse": response})
        images: list[JSONValue] = [_image(c) for c in part.content if isinstance(c, ImagePart)]
        if images:
            media.append({"text": f"Images returned by the {part.name} tool call:"})
            media.extend(images)


def _result_key(part: ToolResultPart) -> str:
    return "error" if part.is_error else "output"


def _image(part: ImagePart) -> JSONObject:
    if part.data is not None:
        return {"inlineData": {"mimeType": part.media_type, "data": part.data}}
    url = part.url or ""
    if url.startswith("data:") and ";base64," in url:
        header, _, data = url.partition(";base64,")
        mime = header.removeprefix("data:") or part.media_type
        return {"inlineData": {"mimeType": mime, "data": data}}
    return {"fileData": {"mimeType": part.media_type, "fileUri": url}}


# --- tool choice and generation config -------------------------------------------------------


def _calling_config(request: ModelRequest) -> JSONObject:
    choice = request.tool_choice
    if isinstance(choice, ForcedTool):
        return {"mode": "ANY", "allowedFunctionNames": [choice.name]}
    match choice:
        case "auto":
            return {"mode": "AUTO"}
        case "none":
            return {"mode": "NONE"}
        case "required":
            return {"mode": "ANY"}
        case _:
            assert_never(choice)


def _generation_config(request: ModelRequest, info: ModelInfo | None) -> JSONObject:
    config: JSONObject = {}
    max_tokens = request.max_output_tokens or (info.max_output if info else 0)
    if max_tokens:
        config["maxOutputTokens"] = max_tokens
    if request.temperature is not None and (info is None or info.temperature):
        config["temperature"] = request.temperature
    thinking = thinking_config(request.reasoning_effort, info)
    if thinking:
        config["thinkingConfig"] = thinking
    return config


def thinking_config(effort: ReasoningEffort | None, info: ModelInfo | None) -> JSONObject:
    """``thinkingConfig`` for an effort on a model (see the module docstring)."""
    if effort is None or (info is not None and not info.reasoning):
        return {}
    config: JSONObject = {}
    levels = info.effort_values() if info else []
    budget = info.budget_option() if info else None
    if levels:
        level = nearest_level(effort, levels)
        if level is not None:
            config["thinkingLevel"] = level.upper()  # the API's enum names
    elif budget is not None:
        low = budget.min or 0
        high = budget.max
        if effort == "none":
            config["thinkingBudget"] = low
        else:
            wanted = max(low, _BUDGETS[effort])
            config["thinkingBudget"] = min(wanted, high) if high is not None else wanted
    elif effort == "none" and info is not None and info.reasoning_options:
        config["thinkingBudget"] = 0  # a toggle-only model: off is a zero budget
    if effort != "none":
        config["includeThoughts"] = True
    return config


def nearest_level(effort: ReasoningEffort, levels: list[str]) -> str | None:
    """The level the model offers closest to ``effort`` (ties go to the higher level);
    an offered level we cannot rank is used only when it is exactly ``effort``."""
    if effort in levels:
        return effort
    ranked = [v for v in levels if v in _EFFORT_ORDER]
    if not ranked:
        return None
    want = _EFFORT_ORDER.index(effort)
    return min(
        ranked,
        key=lambda v: (abs(_EFFORT_ORDER.index(v) - want), -_EFFORT_ORDER.index(v)),
    )


__all__ = ["SKIP_SIGNATURE", "build_body", "nearest_level", "thinking_config"]
