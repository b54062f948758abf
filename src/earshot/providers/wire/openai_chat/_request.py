"""The Chat Completions request body: ``ModelRequest`` -> ``POST {base}/chat/completions``.

Shape of what we send::

    model, stream: true, stream_options: {include_usage: true}
    messages[]    system  {role: "system", content}            request.system first
                  user    {role: "user", content: str | [text | image_url parts]}
                  assistant {role: "assistant", content: str | null,
                             tool_calls?: [{id, type: "function", function{name, arguments}}],
                             reasoning_content? | reasoning? | reasoning_details?}
                  tool    {role: "tool", tool_call_id, content: str}   one per result
    tools[]?      {type: "function", function{name, description, parameters}}
    tool_choice?  "none" | "required" | {type: "function", function{name}}
    max_completion_tokens (provider openai) | max_tokens (every other provider)
    reasoning_effort?, temperature?

Choices made for compatibility with the many servers that speak this wire:

- The system prompt is a ``system`` message, also for OpenAI reasoning models (OpenAI maps
  it to ``developer`` itself; most compatible servers know only ``system``).
- ``tool_choice`` is left out when it is ``"auto"`` (the documented default whenever tools
  are present) and whenever there are no tools.
- Output limit: ``request.max_output_tokens``, else the catalog's ``max_output``, else none
  is sent and the server's own limit applies. OpenAI's reasoning models refuse
  ``max_tokens``, while compatible servers may know only ``max_tokens``: the field is
  ``max_completion_tokens`` for provider ``openai`` and ``max_tokens`` for all others.
- ``reasoning_effort`` is sent for a model that reasons, mapped onto the levels the catalog
  lists for it (see ``map_effort``); with no catalog entry the requested level is passed
  through as is. This wire has no standard thinking-budget field.
- Images in a tool result: ``role: "tool"`` content is text on most compatible servers, so
  the tool message carries the text and the images follow in one user message (labelled
  with the call id), placed after the last tool message of the turn and merged with the
  user message that comes next, if any.
- Reasoning is replayed only from parts that carry this provider's metadata, in the field
  it streamed in (``metadata.field``, else the catalog's ``interleaved_field``); OpenRouter's
  structured ``reasoning_details`` are replayed verbatim when they were captured. DeepSeek
  and other interleaved-thinking models require this during tool loops.
- A tool call's ``extra_content`` (Gemini's OpenAI-compatible endpoint puts its thought
  signature there) is replayed as it came, for calls with this provider's metadata.
- Tool calls from any provider are sent (their ``arguments`` is the input as compact JSON,
  or the raw string when the model's arguments were not valid JSON); ``is_error`` has no
  field on this wire, so an error result is sent as its text.
"""

from __future__ import annotations

import msgspec

from earshot.providers.models import ModelInfo
from earshot.providers.target import Target
from earshot.providers.types import (
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
    ToolSpec,
    metadata_for,
)

# Effort levels from least to most reasoning, as OpenAI and the catalog name them.
EFFORT_ORDER: tuple[ReasoningEffort, ...] = (
    "none",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
)
# Message fields a compatible server reads reasoning text from on an assistant message.
REASONING_TEXT_FIELDS = ("reasoning_content", "reasoning")
DETAILS_FIELD = "reasoning_details"


def build_body(request: ModelRequest, target: Target) -> JSONObject:
    body: JSONObject = {
        "model": request.model,
        "messages": build_messages(request, target),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [_tool(tool) for tool in request.tools]
        choice = request.tool_choice
        if not isinstance(choice, str):
            body["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
        elif choice != "auto":
            body["tool_choice"] = choice
    max_tokens = max_output_tokens(request, target.info)
    if max_tokens is not None:
        field = "max_completion_tokens" if target.provider == "openai" else "max_tokens"
        body[field] = max_tokens
    effort = map_effort(request.reasoning_effort, target.info)
    if effort is not None:
        body["reasoning_effort"] = effort
    info = target.info
    if request.temperature is not None and (info is None or info.temperature):
        body["temperature"] = request.temperature
    return body


def max_output_tokens(request: ModelRequest, info: ModelInfo | None) -> int | None:
    """The request's limit, else the catalog's, else None (the server decides)."""
    if request.max_output_tokens is not None:
        return request.max_output_tokens
    if info is not None and info.max_output > 0:
        return info.max_output
    return None


def map_effort(effort: ReasoningEffort | None, info: ModelInfo | None) -> str | None:
    """The ``reasoning_effort`` to send for a requested level, or None to send none.

    No catalog entry, or a reasoning model whose levels the catalog does not list: the level
    as requested (servers that take no effort ignore the field). A model that does not
    reason: none. A model with listed levels: the requested level if listed, else the
    nearest listed level above it, else the highest listed below it; ``none`` is chosen only
    when it was asked for, and listed values we do not know (``default``) never are.
    """
    if effort is None:
        return None
    if info is None:
        return effort
    values = info.effort_values()
    if not values:
        return effort if info.reasoning else None
    if effort in values:
        return effort
    rank = EFFORT_ORDER.index(effort)
    known = [(EFFORT_ORDER.index(v), v) for v in values if v in EFFORT_ORDER and v != "none"]
    above = sorted((r, v) for r, v in known if r > rank)
    if above:
        return above[0][1]
    below = sorted((r, v) for r, v in known if r < rank)
    return below[-1][1] if below else None


def _tool(tool: ToolSpec) -> JSONObject:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.input_schema,
        },
    }


# --- messages ------------------------------------------------------------------------------


def build_messages(request: ModelRequest, target: Target) -> list[JSONValue]:
    out: list[JSONValue] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    # User content waiting to be sent after a run of tool messages (images from results).
    pending: list[JSONValue] = []
    for message in request.messages:
        if message.role != "tool" and message.role != "user" and pending:
            out.append({"role": "user", "content": pending})
            pending = []
        match message.role:
            case "system":
                text = _joined_text(message.parts)
                if text:
                    out.append({"role": "system", "content": text})
            case "user":
                parts = pending + _user_parts(message.parts)
                pending = []
                if parts:
                    out.append({"role": "user", "content": _compact(parts)})
            case "assistant":
                assistant = _assistant(message, target)
                if assistant is not None:
                    out.append(assistant)
            case "tool":
                for part in message.parts:
                    if isinstance(part, ToolResultPart):
                        out.append(_tool_message(part))
                        pending += _result_images(part)
    if pending:
        out.append({"role": "user", "content": pending})
    return out


def _compact(parts: list[JSONValue]) -> JSONValue:
    """A user content list, as a plain string when it is a single text part."""
    if len(parts) == 1:
        only = parts[0]
        if isinstance(only, dict) and only.get("type") == "text":
            return only.get("text")
    return parts


def _user_parts(parts: list[Part]) -> list[JSONValue]:
    out: list[JSONValue] = []
    for part in parts:
        if isinstance(part, TextPart):
            if part.text:
                out.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            out.append(_image(part))
    return out


def _image(part: ImagePart) -> JSONValue:
    url = part.url if part.url is not None else f"data:{part.media_type};base64,{part.data}"
    return {"type": "image_url", "image_url": {"url": url}}


def _joined_text(parts: list[Part], sep: str = "") -> str:
    return sep.join(p.text for p in parts if isinstance(p, TextPart) and p.text)


def _tool_message(part: ToolResultPart) -> JSONValue:
    text = "\n".join(c.text for c in part.content if isinstance(c, TextPart) and c.text)
    if not text and any(isinstance(c, ImagePart) for c in part.content):
        text = "(image attached in the next message)"
    return {"role": "tool", "tool_call_id": part.call_id, "content": text}


def _result_images(part: ToolResultPart) -> list[JSONValue]:
    images = [_image(c) for c in part.content if isinstance(c, ImagePart)]
    if not images:
        return []
    label = f"Image{'s' if len(images) > 1 else ''} from tool call {part.call_id} ({part.name}):"
    return [{"type": "text", "text": label}, *images]


def _assistant(message: Message, target: Target) -> JSONValue:
    text = _joined_text(message.parts)
    calls = [_call(p, target) for p in message.parts if isinstance(p, ToolCallPart)]
    if not text and not calls:
        return None
    out: JSONObject = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = list(calls)
    out.update(_reasoning_fields(message.parts, target))
    return out


def _call(part: ToolCallPart, target: Target) -> JSONValue:
    if isinstance(part.input, str):
        arguments = part.input
    else:
        arguments = msgspec.json.encode(part.input).decode()
    out: JSONObject = {
        "id": part.id,
        "type": "function",
        "function": {"name": part.name, "arguments": arguments},
    }
    extra = metadata_for(part, target.provider).get("extra_content")
    if isinstance(extra, dict):
        out["extra_content"] = extra
    return out


def _reasoning_fields(parts: list[Part], target: Target) -> JSONObject:
    """The reasoning to replay on an assistant message: our own parts only."""
    texts: dict[str, list[str]] = {}
    details: list[JSONValue] = []
    interleaved = target.info.interleaved_field if target.info is not None else None
    for part in parts:
        if not isinstance(part, ReasoningPart):
            continue
        md = metadata_for(part, target.provider)
        if not md:
            continue
        captured = md.get("details")
        if isinstance(captured, list) and captured:
            details.extend(captured)
            continue
        raw_field = md.get("field")
        field = raw_field if isinstance(raw_field, str) else interleaved
        if field in REASONING_TEXT_FIELDS and part.text:
            texts.setdefault(field, []).append(part.text)
        elif field == DETAILS_FIELD and part.text:
            details.append({"type": "reasoning.text", "text": part.text})
    out: JSONObject = {name: "".join(chunks) for name, chunks in texts.items()}
    if details:
        out[DETAILS_FIELD] = details
    return out


__all__ = ["EFFORT_ORDER", "build_body", "build_messages", "map_effort", "max_output_tokens"]
