"""Bedrock ConverseStream events and error bodies, decoded at the edge into typed Structs.

Each AWS event-stream message carries its kind in headers (``:message-type`` event or
exception, ``:event-type`` or ``:exception-type``) and a JSON payload::

    messageStart       {role}
    contentBlockStart  {contentBlockIndex, start: {toolUse: {toolUseId, name}}}
    contentBlockDelta  {contentBlockIndex, delta: {text} | {toolUse: {input}} |
                        {reasoningContent: {text} | {signature} | {redactedContent}}}
    contentBlockStop   {contentBlockIndex}
    messageStop        {stopReason, additionalModelResponseFields}
    metadata           {usage: {inputTokens, outputTokens, cacheReadInputTokens,
                        cacheWriteInputTokens}, metrics}
    exception          {message} (or {Message})

An HTTP error answer is ``{"message": ...}`` with its type in the ``x-amzn-ErrorType``
header (``ThrottlingException:http://...``) or a ``__type`` field. Unknown fields are ignored.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from earshot.providers.wire.base import MalformedEvent


class ToolUseStart(msgspec.Struct, frozen=True):
    toolUseId: str = ""
    name: str = ""


class BlockStartBody(msgspec.Struct, frozen=True):
    toolUse: ToolUseStart | None = None


class BlockStart(msgspec.Struct, frozen=True):
    contentBlockIndex: int = 0
    start: BlockStartBody = BlockStartBody()


class ToolUseDelta(msgspec.Struct, frozen=True):
    input: str = ""


class ReasoningDelta(msgspec.Struct, frozen=True):
    text: str | None = None
    signature: str | None = None
    redactedContent: str | None = None


class Delta(msgspec.Struct, frozen=True):
    text: str | None = None
    toolUse: ToolUseDelta | None = None
    reasoningContent: ReasoningDelta | None = None


class BlockDelta(msgspec.Struct, frozen=True):
    contentBlockIndex: int = 0
    delta: Delta = Delta()


class BlockStop(msgspec.Struct, frozen=True):
    contentBlockIndex: int = 0


class MessageStop(msgspec.Struct, frozen=True):
    stopReason: str = ""


class WireUsage(msgspec.Struct, frozen=True):
    inputTokens: int = 0
    outputTokens: int = 0
    cacheReadInputTokens: int = 0
    cacheWriteInputTokens: int = 0


class Metadata(msgspec.Struct, frozen=True):
    usage: WireUsage | None = None


class ErrorBody(msgspec.Struct, frozen=True):
    message: str = ""
    Message: str = ""
    type_: str = msgspec.field(default="", name="__type")

    @property
    def text(self) -> str:
        return self.message or self.Message


T = TypeVar("T")


def decode_event(data: str | bytes, kind: type[T]) -> T:
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.DecodeError as exc:
        raise MalformedEvent(f"malformed Bedrock {kind.__name__} event ({exc})") from exc


def decode_error_body(body: bytes | str) -> ErrorBody:
    try:
        return msgspec.json.decode(body, type=ErrorBody)
    except msgspec.DecodeError:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        return ErrorBody(message=" ".join(text.split())[:300])


__all__ = [
    "BlockDelta",
    "BlockStart",
    "BlockStop",
    "ErrorBody",
    "MessageStop",
    "Metadata",
    "WireUsage",
    "decode_error_body",
    "decode_event",
]
