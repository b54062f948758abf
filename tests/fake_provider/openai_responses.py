"""OpenAI Responses stream builders (``POST /v1/responses``).

Stream shape (``event:`` name = the JSON ``type``; every event has ``sequence_number``
0, 1, 2, ...; no ``[DONE]``)::

    response.created, response.in_progress           response{id, status: in_progress}
    per output item, output_index 0, 1, ...:
      response.output_item.added{output_index, item}
      reasoning: response.reasoning_summary_part.added
                 response.reasoning_summary_text.delta*  .done
                 response.reasoning_summary_part.done
      message:   response.content_part.added
                 response.output_text.delta*  .done
                 response.content_part.done
      function_call: response.function_call_arguments.delta*  .done{arguments}
      response.output_item.done{output_index, item}   the full item: take it from here
    response.completed | response.incomplete | response.failed   response{output, usage}

The reasoning item's ``encrypted_content`` in ``output_item.added`` is a placeholder that
differs from the final one in ``output_item.done``, as a reminder of which one to keep.
Errors: HTTP bodies as Chat Completions; in a 200 stream an ``error`` event then
``response.failed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from earshot.providers.types import JSONValue
from tests.fake_provider import openai_chat
from tests.fake_provider._replies import Frame, RawReply, SSEReply, ToolCallSpec, split_text

DEFAULT_MODEL = "gpt-fake-1"
DEFAULT_RESPONSE_ID = "resp_fake01"
DEFAULT_ENCRYPTED_CONTENT = "gAAAAABfakeEncryptedReasoning=="
PENDING_ENCRYPTED_CONTENT = "gAAAAABfakePending=="

ErrorShape = Literal["nested", "flat"]
Event: TypeAlias = "dict[str, JSONValue]"


@dataclass(frozen=True)
class Usage:
    """Responses usage: ``input_tokens`` includes ``cached_tokens``; ``output_tokens``
    includes ``reasoning_tokens``."""

    input_tokens: int = 12
    output_tokens: int = 7
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    def payload(self) -> dict[str, JSONValue]:
        return {
            "input_tokens": self.input_tokens,
            "input_tokens_details": {"cached_tokens": self.cached_tokens},
            "output_tokens": self.output_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
            "total_tokens": self.input_tokens + self.output_tokens,
        }


DEFAULT_USAGE = Usage()


def reasoning_item(
    item_id: str,
    summary: str,
    *,
    encrypted_content: str = DEFAULT_ENCRYPTED_CONTENT,
    chunks: int = 3,
) -> list[Event]:
    """Events for one reasoning item; an empty ``summary`` sends no summary part."""
    added: Event = {
        "id": item_id,
        "type": "reasoning",
        "encrypted_content": PENDING_ENCRYPTED_CONTENT,
        "summary": [],
    }
    part: Event = {"type": "summary_text", "text": summary}
    events: list[Event] = [{"type": "response.output_item.added", "item": added}]
    if summary:
        where: Event = {"item_id": item_id, "summary_index": 0}
        empty: Event = {"type": "summary_text", "text": ""}
        events.append({"type": "response.reasoning_summary_part.added", **where, "part": empty})
        events += [
            {"type": "response.reasoning_summary_text.delta", **where, "delta": piece}
            for piece in split_text(summary, chunks)
        ]
        events.append({"type": "response.reasoning_summary_text.done", **where, "text": summary})
        events.append({"type": "response.reasoning_summary_part.done", **where, "part": part})
    done: Event = {
        "id": item_id,
        "type": "reasoning",
        "encrypted_content": encrypted_content,
        "summary": [part] if summary else [],
    }
    events.append({"type": "response.output_item.done", "item": done})
    return events


def message_item(item_id: str, text: str, *, chunks: int = 3) -> list[Event]:
    where: Event = {"item_id": item_id, "content_index": 0}
    final_part: Event = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    empty_part: Event = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}

    def item(status: str, content: list[JSONValue]) -> Event:
        return {
            "id": item_id,
            "type": "message",
            "status": status,
            "content": content,
            "role": "assistant",
        }

    events: list[Event] = [
        {"type": "response.output_item.added", "item": item("in_progress", [])},
        {"type": "response.content_part.added", **where, "part": empty_part},
    ]
    events += [
        {"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []}
        for piece in split_text(text, chunks)
    ]
    events += [
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": final_part},
        {"type": "response.output_item.done", "item": item("completed", [final_part])},
    ]
    return events


def function_call_item(item_id: str, call: ToolCallSpec, *, arg_chunks: int = 2) -> list[Event]:
    """A call with no arguments streams ``"{}"``."""
    arguments = call.arguments_json()

    def item(status: str, args: str) -> Event:
        return {
            "id": item_id,
            "type": "function_call",
            "status": status,
            "arguments": args,
            "call_id": call.id,
            "name": call.name,
        }

    events: list[Event] = [{"type": "response.output_item.added", "item": item("in_progress", "")}]
    events += [
        {"type": "response.function_call_arguments.delta", "item_id": item_id, "delta": piece}
        for piece in split_text(arguments, arg_chunks)
    ]
    events += [
        {
            "type": "response.function_call_arguments.done",
            "item_id": item_id,
            "arguments": arguments,
        },
        {"type": "response.output_item.done", "item": item("completed", arguments)},
    ]
    return events


def text_turn(
    text: str,
    *,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "completed",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """``stop`` other than "completed" ends with ``response.incomplete`` and that value as
    ``incomplete_details.reason`` (e.g. "max_output_tokens")."""
    return _turn([message_item("msg_fake_01", text, chunks=chunks)], usage, stop, model)


def reasoning_turn(
    reasoning: str,
    text: str,
    *,
    encrypted_content: str = DEFAULT_ENCRYPTED_CONTENT,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "completed",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """A reasoning item (summary ``reasoning``, may be empty) then a message item."""
    items = [
        reasoning_item("rs_fake_01", reasoning, encrypted_content=encrypted_content, chunks=chunks),
        message_item("msg_fake_01", text, chunks=chunks),
    ]
    return _turn(items, usage, stop, model)


def tool_calls_turn(
    calls: Sequence[ToolCallSpec],
    *,
    text: str = "",
    reasoning: str | None = None,
    encrypted_content: str = DEFAULT_ENCRYPTED_CONTENT,
    arg_chunks: int = 2,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "completed",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """Items in order: reasoning (if ``reasoning`` is not None; "" gives one without a
    summary), message (if ``text``), then one function_call item per call, whose
    ``call_id`` is the spec's id and whose item id is ``fc_fake_<n>``."""
    items: list[list[Event]] = []
    if reasoning is not None:
        items.append(
            reasoning_item(
                "rs_fake_01", reasoning, encrypted_content=encrypted_content, chunks=chunks
            )
        )
    if text:
        items.append(message_item("msg_fake_01", text, chunks=chunks))
    for number, call in enumerate(calls, start=1):
        items.append(function_call_item(f"fc_fake_{number:02d}", call, arg_chunks=arg_chunks))
    return _turn(items, usage, stop, model)


def error_reply(
    status: int,
    message: str,
    *,
    error_type: str | None = None,
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> RawReply:
    """An HTTP error, in the same body shape as Chat Completions."""
    return openai_chat.error_reply(
        status, message, error_type=error_type, code=code, param=param, headers=headers
    )


def in_stream_error(
    text: str = "",
    *,
    message: str = "The server had an error while processing your request.",
    code: str = "server_error",
    error_type: str = "server_error",
    shape: ErrorShape = "nested",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """A 200 stream that fails: created, in_progress, the start of a message (if ``text``),
    an ``error`` event, then ``response.failed``. ``shape`` "nested" is what the API was
    recorded sending (``{type: "error", error: {type, code, message, param}}``); "flat" is
    the documented ``{type: "error", code, message, param}``."""
    events: list[Event] = []
    if text:
        for event in message_item("msg_fake_01", text)[:3]:
            events.append({**event, "output_index": 0})
    if shape == "nested":
        detail: Event = {"type": error_type, "code": code, "message": message, "param": None}
        events.append({"type": "error", "error": detail})
    else:
        events.append({"type": "error", "code": code, "message": message, "param": None})
    failed = _response("failed", model, [], None)
    failed["error"] = {"code": code, "message": message}
    events.append({"type": "response.failed", "response": failed})
    return SSEReply(_number(_opening(model) + events))


def _turn(items: list[list[Event]], usage: Usage, stop: str, model: str) -> SSEReply:
    events = _opening(model)
    output: list[JSONValue] = []
    for index, item_events in enumerate(items):
        for event in item_events:
            if event["type"] != "error":
                event["output_index"] = index
            if event["type"] == "response.output_item.done":
                output.append(event["item"])
        events += item_events
    if stop == "completed":
        final = _response("completed", model, output, usage)
        events.append({"type": "response.completed", "response": final})
    else:
        final = _response("incomplete", model, output, usage)
        final["incomplete_details"] = {"reason": stop}
        events.append({"type": "response.incomplete", "response": final})
    return SSEReply(_number(events))


def _opening(model: str) -> list[Event]:
    return [
        {"type": "response.created", "response": _response("in_progress", model, [], None)},
        {"type": "response.in_progress", "response": _response("in_progress", model, [], None)},
    ]


def _response(status: str, model: str, output: list[JSONValue], usage: Usage | None) -> Event:
    return {
        "id": DEFAULT_RESPONSE_ID,
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": model,
        "output": output,
        "usage": usage.payload() if usage is not None else None,
    }


def _number(events: list[Event]) -> list[Frame]:
    frames: list[Frame] = []
    for number, event in enumerate(events):
        kind = event["type"]
        assert isinstance(kind, str)
        frames.append(Frame.of({**event, "sequence_number": number}, event=kind))
    return frames
