"""Anthropic Messages stream builders (``POST /v1/messages``).

Stream shape (``event:`` name = the JSON ``type``, no ``[DONE]``)::

    message_start{message{id, model, role, content: [], usage}}   initial usage
    ping
    per block, index 0, 1, ...:
      content_block_start{index, content_block}
      content_block_delta{index, delta}*    text_delta | thinking_delta then one
                                            signature_delta | input_json_delta
      content_block_stop{index}
    message_delta{delta{stop_reason, stop_sequence}, usage}       final, cumulative usage
    message_stop

Errors: HTTP bodies ``{type: "error", error: {type, message}, request_id}`` with a
``request-id`` header; in a 200 stream, ``event: error`` with the same body.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from earshot.providers.types import JSONValue
from tests.fake_provider._replies import Frame, RawReply, SSEReply, ToolCallSpec, split_text

DEFAULT_MODEL = "claude-fake-1"
DEFAULT_MESSAGE_ID = "msg_fake_01"
DEFAULT_SIGNATURE = "EqQBCkYIAxgCKkDfakeSignature=="

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "gateway_timeout_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Usage:
    """Anthropic usage. ``input_tokens`` excludes cache reads and writes.

    ``message_start`` carries ``start_input_tokens`` (default: ``input_tokens``) and one
    output token; ``message_delta`` carries the final numbers (with ``input_tokens`` unless
    ``final_has_input`` is false, as older streams sent it).
    """

    input_tokens: int = 12
    output_tokens: int = 7
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    thinking_tokens: int | None = None
    start_input_tokens: int | None = None
    final_has_input: bool = True


DEFAULT_USAGE = Usage()


def frame(payload: dict[str, JSONValue]) -> Frame:
    """An Anthropic event: its ``event:`` line names the payload's ``type``."""
    kind = payload["type"]
    assert isinstance(kind, str)
    return Frame.of(payload, event=kind)


def message_start(
    usage: Usage = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
    message_id: str = DEFAULT_MESSAGE_ID,
) -> Frame:
    start_input = (
        usage.input_tokens if usage.start_input_tokens is None else usage.start_input_tokens
    )
    return frame(
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": start_input,
                    "cache_creation_input_tokens": usage.cache_creation_input_tokens,
                    "cache_read_input_tokens": usage.cache_read_input_tokens,
                    "cache_creation": {
                        "ephemeral_5m_input_tokens": usage.cache_creation_input_tokens,
                        "ephemeral_1h_input_tokens": 0,
                    },
                    "output_tokens": 1,
                    "service_tier": "standard",
                },
            },
        }
    )


def message_end(usage: Usage = DEFAULT_USAGE, *, stop: str = "end_turn") -> list[Frame]:
    """``message_delta`` with the stop reason and final usage, then ``message_stop``."""
    final: dict[str, JSONValue] = {}
    if usage.final_has_input:
        final["input_tokens"] = usage.input_tokens
        final["cache_creation_input_tokens"] = usage.cache_creation_input_tokens
        final["cache_read_input_tokens"] = usage.cache_read_input_tokens
    final["output_tokens"] = usage.output_tokens
    if usage.thinking_tokens is not None:
        final["output_tokens_details"] = {"thinking_tokens": usage.thinking_tokens}
    return [
        frame(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": final,
            }
        ),
        frame({"type": "message_stop"}),
    ]


def text_block(index: int, text: str, *, chunks: int = 3) -> list[Frame]:
    return _block(
        index,
        {"type": "text", "text": ""},
        [{"type": "text_delta", "text": piece} for piece in split_text(text, chunks)],
    )


def thinking_block(
    index: int, thinking: str, *, signature: str = DEFAULT_SIGNATURE, chunks: int = 3
) -> list[Frame]:
    """Thinking deltas, then one ``signature_delta`` just before the block stops."""
    deltas: list[dict[str, JSONValue]] = [
        {"type": "thinking_delta", "thinking": piece} for piece in split_text(thinking, chunks)
    ]
    deltas.append({"type": "signature_delta", "signature": signature})
    return _block(index, {"type": "thinking", "thinking": "", "signature": ""}, deltas)


def redacted_thinking_block(index: int, data: str) -> list[Frame]:
    """A ``redacted_thinking`` block arrives whole in its start event, with no deltas."""
    return _block(index, {"type": "redacted_thinking", "data": data}, [])


def tool_use_block(index: int, call: ToolCallSpec, *, arg_chunks: int = 2) -> list[Frame]:
    """``input`` starts as ``{}``; the JSON follows in ``input_json_delta`` pieces after an
    empty first piece. A call with no arguments sends only the empty piece."""
    pieces = [""]
    if call.arguments:
        pieces += split_text(call.arguments_json(), arg_chunks)
    return _block(
        index,
        {"type": "tool_use", "id": call.id, "name": call.name, "input": {}},
        [{"type": "input_json_delta", "partial_json": piece} for piece in pieces],
    )


def text_turn(
    text: str,
    *,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "end_turn",
    model: str = DEFAULT_MODEL,
    message_id: str = DEFAULT_MESSAGE_ID,
) -> SSEReply:
    return _turn(text_block(0, text, chunks=chunks), usage, stop, model, message_id)


def reasoning_turn(
    reasoning: str,
    text: str,
    *,
    signature: str = DEFAULT_SIGNATURE,
    redacted: str | None = None,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "end_turn",
    model: str = DEFAULT_MODEL,
    message_id: str = DEFAULT_MESSAGE_ID,
) -> SSEReply:
    """A thinking block (with ``signature``), then a ``redacted_thinking`` block carrying
    ``redacted`` if given, then a text block."""
    blocks = thinking_block(0, reasoning, signature=signature, chunks=chunks)
    if redacted is not None:
        blocks += redacted_thinking_block(1, redacted)
    blocks += text_block(2 if redacted is not None else 1, text, chunks=chunks)
    return _turn(blocks, usage, stop, model, message_id)


def tool_calls_turn(
    calls: Sequence[ToolCallSpec],
    *,
    text: str = "",
    reasoning: str = "",
    signature: str = DEFAULT_SIGNATURE,
    arg_chunks: int = 2,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "tool_use",
    model: str = DEFAULT_MODEL,
    message_id: str = DEFAULT_MESSAGE_ID,
) -> SSEReply:
    """Blocks in the order Anthropic sends them: thinking (if ``reasoning``), text (if
    ``text``), then one tool_use block per call."""
    blocks: list[Frame] = []
    index = 0
    if reasoning:
        blocks += thinking_block(index, reasoning, signature=signature, chunks=chunks)
        index += 1
    if text:
        blocks += text_block(index, text, chunks=chunks)
        index += 1
    for call in calls:
        blocks += tool_use_block(index, call, arg_chunks=arg_chunks)
        index += 1
    return _turn(blocks, usage, stop, model, message_id)


def error_body(status: int, message: str, *, error_type: str | None = None) -> dict[str, JSONValue]:
    return {
        "type": "error",
        "error": {"type": error_type or ERROR_TYPES.get(status, "api_error"), "message": message},
        "request_id": "req_fake_01",
    }


def error_reply(
    status: int,
    message: str,
    *,
    error_type: str | None = None,
    headers: dict[str, str] | None = None,
) -> RawReply:
    """An HTTP error; ``error_type`` defaults from the status (529 -> overloaded_error)."""
    return RawReply.json(
        status,
        error_body(status, message, error_type=error_type),
        headers={"request-id": "req_fake_01", **(headers or {})},
    )


def in_stream_error(
    text: str = "",
    *,
    message: str = "Overloaded",
    error_type: str = "overloaded_error",
    usage: Usage = DEFAULT_USAGE,
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """A 200 stream that fails: message_start, a text block cut short (if ``text``), then
    ``event: error``; no message_delta or message_stop follows."""
    frames = [message_start(usage, model=model)]
    if text:
        frames += text_block(0, text)[:-1]
    frames.append(
        frame({"type": "error", "error": {"details": None, "type": error_type, "message": message}})
    )
    return SSEReply(frames)


def _block(
    index: int, start: dict[str, JSONValue], deltas: Sequence[dict[str, JSONValue]]
) -> list[Frame]:
    frames = [frame({"type": "content_block_start", "index": index, "content_block": start})]
    frames += [frame({"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    frames.append(frame({"type": "content_block_stop", "index": index}))
    return frames


def _turn(blocks: list[Frame], usage: Usage, stop: str, model: str, message_id: str) -> SSEReply:
    frames = [message_start(usage, model=model, message_id=message_id), frame({"type": "ping"})]
    return SSEReply(frames + blocks + message_end(usage, stop=stop))
