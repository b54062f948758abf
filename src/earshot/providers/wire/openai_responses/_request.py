"""The OpenAI Responses request: ``ModelRequest`` -> URL, headers and JSON body (stateless).

Shape::

    POST {base_url}/responses          Authorization: Bearer <key> (per ``target.auth``)
    {model, instructions?, input: [item, ...], tools?, tool_choice?, reasoning?, include?,
     max_output_tokens?, temperature?, stream: true, store: false}

    input items, in history order:
      user / system   {role, content: [{type: input_text, text}
                                      | {type: input_image, image_url: data URL | https, detail}]}
      assistant text  {role: assistant, content: [{type: output_text, text}, ...], phase?}
      reasoning       {type: reasoning, encrypted_content, summary: [{type: summary_text, text}]}
      tool call       {type: function_call, call_id, name, arguments: "<JSON text>"}
      tool result     {type: function_call_output, call_id,
                       output: "<text>" | [{type: input_text} | {type: input_image}, ...]}

Decisions, each pinned by a snapshot or a test:

- ``store`` is always false: nothing lives server-side, every request carries the whole
  history. Reasoning survives across requests as ``encrypted_content``, which reasoning
  models return because we send ``include: ["reasoning.encrypted_content"]``.
- No item ``id`` is ever sent. With ``store: false`` there is no stored item for an id to
  name; reasoning items are accepted without one when ``encrypted_content`` is present, and a
  ``function_call`` is linked to its output by ``call_id`` alone (an ``fc_`` id there has been
  seen to break that pairing). Leaving ids out means a history can never fail with "item not
  found" on another backend instance.
- Reasoning is replayed only from this provider's metadata, and only with its
  ``encrypted_content`` and stored ``summary`` texts, unmodified, in its original place before
  the items it led to. Reasoning from another provider is dropped. A reasoning item that ends
  its assistant message (an aborted or truncated turn) is dropped too: the API rejects a
  reasoning item without the item that followed it.
- Function tools are sent ``strict: false``. Strict mode (the API's default) requires every
  property to be required and ``additionalProperties: false``, which earshot's and MCP tools'
  schemas do not promise.
- A tool result is a plain string unless it holds an image; then it is a list of
  ``input_text``/``input_image`` parts. The Responses API has no error flag for results:
  earshot's tool errors are already worded for the model.
- Images go as ``input_image`` with a ``data:`` URL, or the https URL itself (the API fetches
  it), always with ``detail: "auto"``.
- Reasoning models (``info.reasoning`` or effort values in the catalog; with no catalog entry,
  any request that names an effort) get ``reasoning: {effort?, summary: "auto"}`` and the
  ``include`` above. The effort is earshot's value when the model lists it, else the nearest
  value the model lists (ties go to the higher one); with no list of known values it is sent
  as is; with no requested effort it is left to the server's default. Other models get no
  ``reasoning``.
- ``max_output_tokens``: the request's value, else the catalog's ``max_output``, else omitted
  (the Responses API does not require it and then allows the model's own maximum; a guessed
  number could exceed a small model's limit and be refused).
- ``temperature`` is sent only when set and the catalog does not say the model rejects it.
"""

from __future__ import annotations

from typing import assert_never

import msgspec

from earshot.providers.models import ModelInfo
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
    ToolChoice,
    ToolResultPart,
    ToolSpec,
    metadata_for,
)

ENCRYPTED_REASONING = "reasoning.encrypted_content"
EFFORT_ORDER = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_AUTH_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})


def url(target: Target) -> str:
    return f"{target.base_url.rstrip('/')}/responses"


def headers(target: Target) -> dict[str, str]:
    """The user's extra headers (the credential is added by ``providers.auth_headers``)."""
    return dict(target.headers)


# --- the body --------------------------------------------------------------------------------


def body(request: ModelRequest, target: Target) -> JSONObject:
    info = target.info
    out: JSONObject = {"model": request.model}
    if request.system:
        out["instructions"] = request.system
    out["input"] = input_items(request.messages, target.provider)
    if request.tools:
        out["tools"] = [_tool(spec) for spec in request.tools]
        out["tool_choice"] = _tool_choice(request.tool_choice)
    if is_reasoning_model(info, request):
        reasoning: JSONObject = {}
        effort = map_effort(request.reasoning_effort, info)
        if effort is not None:
            reasoning["effort"] = effort
        reasoning["summary"] = "auto"
        out["reasoning"] = reasoning
        out["include"] = [ENCRYPTED_REASONING]
    max_tokens = max_output_tokens(request, info)
    if max_tokens is not None:
        out["max_output_tokens"] = max_tokens
    if request.temperature is not None and (info is None or info.temperature):
        out["temperature"] = request.temperature
    out["stream"] = True
    out["store"] = False
    return out


def is_reasoning_model(info: ModelInfo | None, request: ModelRequest) -> bool:
    if info is None:
        return request.reasoning_effort is not None
    return info.reasoning or bool(info.effort_values())


def map_effort(requested: str | None, info: ModelInfo | None) -> str | None:
    """earshot's effort as one of the model's values (see the module docstring)."""
    if requested is None:
        return None
    values = info.effort_values() if info is not None else []
    known = [v for v in values if v in EFFORT_ORDER]
    if not known or requested in values or requested not in EFFORT_ORDER:
        return requested
    want = EFFORT_ORDER.index(requested)

    def distance(value: str) -> tuple[int, int]:
        rank = EFFORT_ORDER.index(value)
        return (abs(rank - want), -rank)

    return min(known, key=distance)


def max_output_tokens(request: ModelRequest, info: ModelInfo | None) -> int | None:
    if request.max_output_tokens is not None:
        return request.max_output_tokens
    if info is not None and info.max_output > 0:
        return info.max_output
    return None


def _tool(spec: ToolSpec) -> JSONObject:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.input_schema,
        "strict": False,
    }


def _tool_choice(choice: ToolChoice) -> JSONValue:
    if isinstance(choice, ForcedTool):
        return {"type": "function", "name": choice.name}
    return choice


# --- input items -----------------------------------------------------------------------------


_KEPT: dict[tuple[int, str], tuple[Message, list[JSONValue]]] = {}
"""Each message's items, by the message object (kept with them, so its ``id`` is never
another's) and provider: each request carries the whole history, and a step adds a few
messages to it. An item is never changed once built."""
_KEPT_LIMIT = 20_000


def input_items(messages: list[Message], provider: str) -> list[JSONValue]:
    items: list[JSONValue] = []
    for message in messages:
        key = (id(message), provider)
        found = _KEPT.get(key)
        if found is None or found[0] is not message:
            if len(_KEPT) >= _KEPT_LIMIT:
                _KEPT.clear()
            found = _KEPT[key] = (message, _message_items(message, provider))
        items.extend(found[1])
    return items


def _message_items(message: Message, provider: str) -> list[JSONValue]:
    match message.role:
        case "user" | "system":
            return _input_message(message.role, message.parts)
        case "assistant":
            return _assistant_items(message.parts, provider)
        case "tool":
            return _input_message("user", message.parts)
        case _:
            assert_never(message.role)


def _input_message(role: str, parts: list[Part]) -> list[JSONValue]:
    """A user/system message; tool results found among its parts become output items, in
    place (so a ``tool`` message is just its results)."""
    items: list[JSONValue] = []
    content: list[JSONValue] = []

    def flush() -> None:
        if content:
            items.append({"role": role, "content": list(content)})
            content.clear()

    for part in parts:
        if isinstance(part, TextPart):
            if part.text:
                content.append({"type": "input_text", "text": part.text})
        elif isinstance(part, ImagePart):
            image = _image(part)
            if image is not None:
                content.append(image)
        elif isinstance(part, ToolResultPart):
            flush()
            items.append(_tool_output(part))
        # reasoning and tool calls never belong to a user message: nothing to send
    flush()
    return items


def _assistant_items(parts: list[Part], provider: str) -> list[JSONValue]:
    items: list[JSONValue] = []
    text: list[JSONValue] = []
    group: tuple[str | None, str | None] | None = None  # (item_id, phase) of the open message

    def flush() -> None:
        nonlocal group
        if text and group is not None:
            message: JSONObject = {"role": "assistant", "content": list(text)}
            if group[1] is not None:
                message["phase"] = group[1]
            items.append(message)
        text.clear()
        group = None

    for part in parts:
        if isinstance(part, TextPart):
            if not part.text:
                continue
            md = metadata_for(part, provider)
            key = (_opt_str(md.get("item_id")), _opt_str(md.get("phase")))
            if group is not None and key != group:
                flush()
            group = key
            text.append({"type": "output_text", "text": part.text})
        elif isinstance(part, ReasoningPart):
            item = _reasoning(part, provider)
            if item is not None:
                flush()
                items.append(item)
        elif isinstance(part, ToolCallPart):
            flush()
            items.append(_function_call(part))
        # images and tool results in an assistant message have no Responses form
    flush()
    while items and _is_reasoning(items[-1]):
        items.pop()
    return items


def _is_reasoning(item: JSONValue) -> bool:
    return isinstance(item, dict) and item.get("type") == "reasoning"


def _reasoning(part: ReasoningPart, provider: str) -> JSONObject | None:
    md = metadata_for(part, provider)
    encrypted = md.get("encrypted_content")
    if not isinstance(encrypted, str) or not encrypted:
        return None
    stored = md.get("summary")
    if isinstance(stored, list):
        texts = [s for s in stored if isinstance(s, str)]
    else:
        texts = [part.text] if part.text else []
    summary: list[JSONValue] = [{"type": "summary_text", "text": t} for t in texts]
    return {"type": "reasoning", "encrypted_content": encrypted, "summary": summary}


def _function_call(part: ToolCallPart) -> JSONObject:
    if isinstance(part.input, str):
        arguments = part.input  # arguments that were not valid JSON go back as they came
    else:
        arguments = msgspec.json.encode(part.input).decode()
    return {"type": "function_call", "call_id": part.id, "name": part.name, "arguments": arguments}


def _tool_output(part: ToolResultPart) -> JSONObject:
    output: JSONValue
    if any(isinstance(c, ImagePart) for c in part.content):
        pieces: list[JSONValue] = []
        for c in part.content:
            if isinstance(c, TextPart):
                if c.text:
                    pieces.append({"type": "input_text", "text": c.text})
            else:
                image = _image(c)
                if image is not None:
                    pieces.append(image)
        output = pieces
    else:
        output = "\n".join(c.text for c in part.content if isinstance(c, TextPart))
    return {"type": "function_call_output", "call_id": part.call_id, "output": output}


def _image(part: ImagePart) -> JSONObject | None:
    if part.data is not None:
        ref = f"data:{part.media_type};base64,{part.data}"
    elif part.url is not None:
        ref = part.url
    else:
        return None
    return {"type": "input_image", "image_url": ref, "detail": "auto"}


def _opt_str(value: JSONValue) -> str | None:
    return value if isinstance(value, str) else None


__all__ = [
    "EFFORT_ORDER",
    "body",
    "headers",
    "input_items",
    "is_reasoning_model",
    "map_effort",
    "max_output_tokens",
    "url",
]
