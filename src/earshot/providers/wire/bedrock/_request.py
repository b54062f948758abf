"""The Bedrock ConverseStream request: ``ModelRequest`` -> URL and JSON body.

::

    POST {base}/model/{modelId, percent-encoded}/converse-stream
    messages:        [{role: user|assistant, content: [blocks]}]
    system:          [{text}, {cachePoint}]                           (omitted when empty)
    inferenceConfig: {maxTokens, temperature}
    toolConfig:      {tools: [{toolSpec: {name, description, inputSchema: {json}}}],
                      toolChoice: {auto|any: {}} | {tool: {name}}}     (omitted when no tools)
    additionalModelRequestFields: {thinking, output_config}            (Claude reasoning)

Rules a change must keep:

- Roles and order as on the Anthropic wire: ``user``/``tool`` messages are ``user``, a
  mid-history ``system`` message is user text wrapped in ``<system>`` tags, consecutive
  messages of one role merge, tool results lead a user message and reasoning leads an
  assistant message. Empty text is never sent (Converse rejects blank text blocks).
- Blocks: ``text``; ``image`` ``{format, source: {bytes: base64}}`` (a URL image, which
  Converse cannot fetch, becomes a text note); ``toolUse {toolUseId, name, input}``;
  ``toolResult {toolUseId, content: [text|image], status: error?}``. Tool-call ids are
  rewritten to ``[A-Za-z0-9_-]`` (ids from other vendors), identically on both sides.
- Reasoning is replayed only with this provider's metadata: ``signature`` ->
  ``reasoningContent.reasoningText {text, signature}``, ``redacted_data`` ->
  ``reasoningContent.redactedContent``. Another provider's reasoning (a session resumed
  from Anthropic's own API) is dropped, as the Anthropic wire drops Bedrock's.
- Prompt-cache points (``cachePoint: {type: default}``) only for models that support them
  (Anthropic Claude, Amazon Nova): after the system prompt and after the newest user
  message; Claude also gets one after the user message before it (where the previous call
  of an agent loop ended).
- Claude reasoning uses the Anthropic wire's mapping (adaptive thinking with effort, or a
  thinking budget) in ``additionalModelRequestFields``; with thinking on, no temperature.
"""

from __future__ import annotations

import re
from typing import assert_never
from urllib.parse import quote

from earshot.providers.target import Target
from earshot.providers.types import (
    ForcedTool,
    ImagePart,
    JSONObject,
    JSONValue,
    Message,
    ModelRequest,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    metadata_for,
)
from earshot.providers.wire._turns import KeptBlocks, merge_turns, system_text
from earshot.providers.wire.anthropic._request import max_tokens_for, reasoning_fields

_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif"}
_FORMATS["image/webp"] = "webp"
_CACHE_POINT: JSONObject = {"cachePoint": {"type": "default"}}
_KEPT = KeptBlocks()
"""The blocks of the parts of recent requests (``wire._turns``)."""


def family(model: str) -> str:
    """The vendor part of a Bedrock model id: ``anthropic`` for ``us.anthropic.claude-...``
    and for an ARN that names one, ``amazon`` for Nova, ``meta``, ``mistral``, ..."""
    name = model.rsplit("/", 1)[-1]
    parts = name.split(".")
    if len(parts) >= 3 and len(parts[0]) <= 6 and parts[1] in _KNOWN_VENDORS:
        return parts[1]
    return parts[0] if len(parts) > 1 else ""


_KNOWN_VENDORS = frozenset(
    {"anthropic", "amazon", "meta", "mistral", "cohere", "ai21", "deepseek", "openai", "qwen"}
)


def cache_points(model: str) -> int:
    """How many user-message cache points the model takes (0: no prompt caching)."""
    vendor = family(model)
    if vendor == "anthropic":
        return 2
    if vendor == "amazon" and "nova" in model:
        return 1
    return 0


def url_for(target: Target, model: str) -> str:
    return f"{target.base_url.rstrip('/')}/model/{quote(model, safe='')}/converse-stream"


def wire_id(call_id: str) -> str:
    return _BAD_ID_CHARS.sub("_", call_id)[:64] or "_"


def _image(part: ImagePart) -> JSONObject:
    fmt = _FORMATS.get(part.media_type.lower())
    if part.data is not None and fmt is not None:
        return {"image": {"format": fmt, "source": {"bytes": part.data}}}
    where = part.url or part.media_type
    return {"text": f"[image not sent: {where}]"}


def _tool_result(part: ToolResultPart) -> JSONObject:
    content: list[JSONValue] = []
    for item in part.content:
        if isinstance(item, TextPart):
            if item.text:
                content.append({"text": item.text})
        else:
            content.append(_image(item))
    if not content:
        content.append({"text": "(no output)"})
    result: JSONObject = {"toolUseId": wire_id(part.call_id), "content": content}
    if part.is_error:
        result["status"] = "error"
    return {"toolResult": result}


def _reasoning(part: ReasoningPart, provider: str) -> JSONObject | None:
    md = metadata_for(part, provider)
    signature = md.get("signature")
    if isinstance(signature, str) and signature:
        return {"reasoningContent": {"reasoningText": {"text": part.text, "signature": signature}}}
    redacted = md.get("redacted_data")
    if isinstance(redacted, str) and redacted:
        return {"reasoningContent": {"redactedContent": redacted}}
    return None


def _block(part: Part, provider: str, system: bool) -> JSONObject | None:
    if isinstance(part, TextPart):
        text = system_text(part.text) if system else part.text
        return {"text": text} if part.text.strip() else None
    if isinstance(part, ImagePart):
        return _image(part)
    if isinstance(part, ReasoningPart):
        return _reasoning(part, provider)
    if isinstance(part, ToolCallPart):
        value = part.input if isinstance(part.input, dict) else {}
        return {"toolUse": {"toolUseId": wire_id(part.id), "name": part.name, "input": value}}
    if isinstance(part, ToolResultPart):
        return _tool_result(part)
    assert_never(part)


def convert_messages(messages: list[Message], provider: str, cached: int) -> list[JSONValue]:
    """The history as Converse messages, merged by role (``wire._turns``), with a cache
    point after each of the ``cached`` newest user messages."""
    turns = merge_turns(
        messages, lambda part, system: _block(part, provider, system), _KEPT, provider
    )
    out: list[JSONValue] = []
    marked = 0
    for turn in reversed(turns):
        content: list[JSONValue] = list(turn.blocks)
        if turn.role == "user" and marked < cached:
            content.append(dict(_CACHE_POINT))
            marked += 1
        out.append({"role": turn.role, "content": content})
    out.reverse()
    return out


def _tool_choice(request: ModelRequest) -> JSONObject | None:
    choice = request.tool_choice
    if isinstance(choice, ForcedTool):
        return {"tool": {"name": choice.name}}
    match choice:
        case "auto" | "none":
            return None  # Converse has no "none": the tools stay declared for the history
        case "required":
            return {"any": {}}
        case _:
            assert_never(choice)


def build_body(request: ModelRequest, target: Target) -> JSONObject:
    model = request.model
    cached = cache_points(model)
    body: JSONObject = {"messages": convert_messages(request.messages, target.provider, cached)}
    if request.system:
        system: list[JSONValue] = [{"text": request.system}]
        if cached:
            system.append(dict(_CACHE_POINT))
        body["system"] = system
    max_tokens = max_tokens_for(request, target.info)
    inference: JSONObject = {"maxTokens": max_tokens}
    extra: JSONObject = {}
    if family(model) == "anthropic":
        extra = reasoning_fields(request, target.info, max_tokens)
    temperature_ok = target.info is None or target.info.temperature
    if request.temperature is not None and "thinking" not in extra and temperature_ok:
        inference["temperature"] = request.temperature
    body["inferenceConfig"] = inference
    if request.tools:
        tools: list[JSONValue] = [
            {
                "toolSpec": {
                    "name": t.name,
                    "description": t.description or t.name,
                    "inputSchema": {"json": t.input_schema},
                }
            }
            for t in request.tools
        ]
        config: JSONObject = {"tools": tools}
        choice = _tool_choice(request)
        if choice is not None:
            config["toolChoice"] = choice
        body["toolConfig"] = config
    if extra:
        body["additionalModelRequestFields"] = extra
    return body


__all__ = ["build_body", "cache_points", "convert_messages", "family", "url_for", "wire_id"]
