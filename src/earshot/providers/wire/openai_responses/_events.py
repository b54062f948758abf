"""The OpenAI Responses stream, decoded at the edge into typed Structs (HTTP error bodies are
read by ``providers.error_body``).

Shape::

    event data  {"type": ..., "sequence_number": n}        -> Envelope (dispatch on ``type``)
      response.created | .in_progress                    ignored
      response.output_item.added | .done                 ItemEvent{output_index, item}
        item  message        {id, content: [{type: output_text|refusal, text|refusal}], phase}
              reasoning      {id, encrypted_content, summary: [{text}], content: [{text}]}
              function_call  {id, call_id, name, arguments}
      response.output_text.delta | .refusal.delta        DeltaEvent{output_index, content_index,
      response.reasoning_summary_text.delta                         summary_index, item_id,
      response.reasoning_text.delta                                 delta}
      response.function_call_arguments.delta
      response.reasoning_summary_part.added              DeltaEvent (no delta)
      response.completed | .incomplete | .failed         ResponseEvent{response: {status, usage,
                                                                   error, incomplete_details}}
      error    {code, message, param}  (documented)      StreamError
               {error: {type, code, message, param}}   (recorded)

Every Struct is permissive: unknown fields are ignored and missing ones take a default, so a
field the vendor adds or drops does not fail the stream. A field of the wrong JSON type does:
that is a ``MalformedEvent``. ``code`` may be a string or (on some compatible servers) a
number; ``code_text`` normalises it.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from earshot.providers.wire.base import MalformedEvent


class Envelope(msgspec.Struct, frozen=True):
    type: str = ""


# --- output items ----------------------------------------------------------------------------


class ContentPart(msgspec.Struct, frozen=True):
    """A message content part (``output_text`` / ``refusal``) or a reasoning text part."""

    type: str = ""
    text: str | None = None
    refusal: str | None = None


class SummaryPart(msgspec.Struct, frozen=True):
    type: str = ""
    text: str = ""


class OutputItem(msgspec.Struct, frozen=True):
    type: str = ""
    id: str | None = None
    # message
    role: str | None = None
    phase: str | None = None
    content: list[ContentPart] | None = None
    # reasoning
    encrypted_content: str | None = None
    summary: list[SummaryPart] | None = None
    # function_call
    call_id: str | None = None
    name: str | None = None
    arguments: str | None = None


class ItemEvent(msgspec.Struct, frozen=True):
    item: OutputItem
    output_index: int | None = None


class DeltaEvent(msgspec.Struct, frozen=True):
    delta: str = ""
    item_id: str | None = None
    output_index: int | None = None
    content_index: int = 0
    summary_index: int = 0


# --- the terminal response -------------------------------------------------------------------


class InputDetails(msgspec.Struct, frozen=True):
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None


class OutputDetails(msgspec.Struct, frozen=True):
    reasoning_tokens: int | None = None


class WireUsage(msgspec.Struct, frozen=True):
    """Usage as the Responses API reports it: ``input_tokens`` INCLUDES cached and
    cache-write tokens; ``output_tokens`` INCLUDES reasoning tokens."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    input_tokens_details: InputDetails | None = None
    output_tokens_details: OutputDetails | None = None


class ErrorDetail(msgspec.Struct, frozen=True):
    message: str | None = None
    type: str | None = None
    code: str | int | None = None


class IncompleteDetails(msgspec.Struct, frozen=True):
    reason: str | None = None


class Response(msgspec.Struct, frozen=True):
    status: str | None = None
    usage: WireUsage | None = None
    error: ErrorDetail | None = None
    incomplete_details: IncompleteDetails | None = None


class ResponseEvent(msgspec.Struct, frozen=True):
    response: Response = Response()


class StreamError(msgspec.Struct, frozen=True):
    """The ``error`` event in either shape: documented flat fields, or recorded ``error``."""

    message: str | None = None
    code: str | int | None = None
    error: ErrorDetail | None = None

    def detail(self) -> ErrorDetail:
        nested = self.error or ErrorDetail()
        return ErrorDetail(
            message=nested.message or self.message,
            type=nested.type,
            code=nested.code if nested.code is not None else self.code,
        )


def code_text(code: str | int | None) -> str | None:
    return None if code is None else str(code)


# --- decoding --------------------------------------------------------------------------------

S = TypeVar("S", bound=msgspec.Struct)

_decoders: dict[type[msgspec.Struct], msgspec.json.Decoder[msgspec.Struct]] = {}


def decode(data: str, kind: type[S]) -> S:
    """``data`` as ``kind``, or ``MalformedEvent`` naming the problem."""
    decoder = _decoders.get(kind)
    if decoder is None:
        decoder = msgspec.json.Decoder(kind)
        _decoders[kind] = decoder
    try:
        value = decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise MalformedEvent(
            f"malformed stream event from provider ({exc}): {data[:120]!r}"
        ) from exc
    assert isinstance(value, kind)
    return value


__all__ = [
    "ContentPart",
    "DeltaEvent",
    "Envelope",
    "ErrorDetail",
    "IncompleteDetails",
    "InputDetails",
    "ItemEvent",
    "OutputDetails",
    "OutputItem",
    "Response",
    "ResponseEvent",
    "StreamError",
    "SummaryPart",
    "WireUsage",
    "code_text",
    "decode",
]
