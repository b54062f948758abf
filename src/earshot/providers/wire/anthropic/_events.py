"""The Anthropic Messages stream, decoded at the edge into typed Structs.

Shape::

    event data  {"type": ...}                        -> _Envelope (dispatch on ``type``)
      message_start        {message: {id, model, usage}}
      content_block_start  {index, content_block: {type, text|thinking|signature|data|...}}
      content_block_delta  {index, delta: {type, text|thinking|signature|partial_json}}
      content_block_stop   {index}
      message_delta        {delta: {stop_reason, stop_sequence}, usage}
      message_stop | ping
      error                {error: {type, message}}

Blocks and deltas are one permissive Struct each, keyed by their ``type`` string, so a block
type earshot does not use (``server_tool_use``, ``web_search_tool_result``, ``citations_delta``)
decodes and is skipped rather than failing the stream. Unknown fields are ignored.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from earshot.providers.types import JSONValue
from earshot.providers.wire.base import MalformedEvent


class OutputDetails(msgspec.Struct, frozen=True):
    thinking_tokens: int | None = None


class WireUsage(msgspec.Struct, frozen=True):
    """Token counts as Anthropic reports them; ``None`` where a field was absent."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    output_tokens_details: OutputDetails | None = None


class StartMessage(msgspec.Struct, frozen=True):
    id: str = ""
    model: str = ""
    usage: WireUsage = WireUsage()


class MessageStart(msgspec.Struct, frozen=True):
    message: StartMessage


class ContentBlock(msgspec.Struct, frozen=True):
    type: str
    text: str = ""
    thinking: str = ""
    signature: str = ""
    data: str = ""
    id: str = ""
    name: str = ""
    input: JSONValue = None


class BlockStart(msgspec.Struct, frozen=True):
    index: int
    content_block: ContentBlock


class Delta(msgspec.Struct, frozen=True):
    type: str
    text: str = ""
    thinking: str = ""
    signature: str = ""
    partial_json: str = ""


class BlockDelta(msgspec.Struct, frozen=True):
    index: int
    delta: Delta


class BlockStop(msgspec.Struct, frozen=True):
    index: int


class StopDelta(msgspec.Struct, frozen=True):
    stop_reason: str | None = None
    stop_sequence: str | None = None


class MessageDelta(msgspec.Struct, frozen=True):
    delta: StopDelta = StopDelta()
    usage: WireUsage | None = None


class ErrorDetails(msgspec.Struct, frozen=True):
    error_code: str | None = None


class ErrorBody(msgspec.Struct, frozen=True):
    type: str = ""
    message: str = ""
    details: ErrorDetails | None = None


class ErrorPayload(msgspec.Struct, frozen=True):
    """An in-stream ``error`` event, and the body of an HTTP error answer."""

    error: ErrorBody = ErrorBody()
    request_id: str | None = None


class _Envelope(msgspec.Struct, frozen=True):
    type: str = ""


_envelope = msgspec.json.Decoder(_Envelope)
S = TypeVar("S", bound=msgspec.Struct)


def _malformed(data: str, exc: Exception) -> MalformedEvent:
    return MalformedEvent(f"malformed stream event from anthropic ({exc}): {data[:120]!r}")


def event_type(data: str) -> str:
    """The ``type`` of an event's JSON object (``""`` when it has none), or
    ``MalformedEvent`` when the data is not a JSON object."""
    try:
        return _envelope.decode(data).type
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _malformed(data, exc) from exc


def decode_event(data: str, kind: type[S]) -> S:
    """The event's data as ``kind``, or ``MalformedEvent`` naming the problem."""
    try:
        return msgspec.json.decode(data, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _malformed(data, exc) from exc
