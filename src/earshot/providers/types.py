"""The unified message and stream types every layer above the wire adapters speaks.

Shape::

    Message          role + list[Part]
    Part             TextPart | ReasoningPart | ImagePart | ToolCallPart | ToolResultPart
    ModelRequest     model, system, messages, tools, tool_choice, reasoning_effort,
                     max_output_tokens, temperature, abort
    StreamEvent      TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCallEnd
                     | UsageEvent | Retrying | Finish | ErrorEvent
    Usage            input, output, cache_read, cache_write, reasoning (flat)

Contracts:

- Every part carries ``provider_metadata``: a JSON object namespaced by provider id
  (``{"anthropic": {"signature": "..."}}``). Only the adapter that wrote an entry reads it; it
  is persisted verbatim and replayed on the next request. It is JSON-valued by construction
  (``JSONValue``), so it survives a JSONL round trip unchanged.
- A stream yields exactly one terminal event, ``Finish`` or ``ErrorEvent``, and nothing after
  it, even when the vendor's stream closes early. ``Finish.message`` is the assembled assistant
  message (all parts, in order, with their metadata); deltas before it are for display.
- ``Usage.input`` counts prompt tokens that were neither read from nor written to a cache:
  the whole prompt is ``input + cache_read + cache_write``. ``output`` includes reasoning
  tokens; ``reasoning`` is the part of ``output`` spent on reasoning. Each field is priced
  once, so cost is a plain dot product with the catalog's prices.

This module defines ``msgspec.Struct`` classes and is therefore never compiled with mypyc
(mypyc drops Struct class keywords); compiled modules import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

import msgspec

from earshot._base.json import JSONObject, JSONValue

if TYPE_CHECKING:
    import anyio

ProviderMetadata: TypeAlias = "dict[str, JSONValue]"

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "tool_calls", "refusal", "error", "aborted"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
ErrorKind = Literal[
    "auth",
    "rate_limit",
    "context_overflow",
    "invalid_request",
    "server",
    "network",
    "stream_incomplete",
    "abort",
    "unknown",
]

ERROR_KINDS: tuple[ErrorKind, ...] = (
    "auth",
    "rate_limit",
    "context_overflow",
    "invalid_request",
    "server",
    "network",
    "stream_incomplete",
    "abort",
    "unknown",
)
FINISH_REASONS: tuple[FinishReason, ...] = (
    "stop",
    "length",
    "tool_calls",
    "refusal",
    "error",
    "aborted",
)


# --- message parts -------------------------------------------------------------------------


class TextPart(msgspec.Struct, tag="text", frozen=True, kw_only=True, omit_defaults=True):
    text: str
    provider_metadata: ProviderMetadata = {}


class ReasoningPart(msgspec.Struct, tag="reasoning", frozen=True, kw_only=True, omit_defaults=True):
    """Model reasoning. ``text`` may be empty when the vendor returns only an opaque blob
    (Anthropic redacted thinking, OpenAI encrypted reasoning); the blob is in metadata."""

    text: str
    provider_metadata: ProviderMetadata = {}


class ImagePart(msgspec.Struct, tag="image", frozen=True, kw_only=True, omit_defaults=True):
    """An image: base64 ``data`` with its ``media_type``, or an https ``url`` kept as a
    reference (for vendors that accept one). Exactly one of ``data`` and ``url`` is set."""

    media_type: str
    data: str | None = None
    url: str | None = None
    provider_metadata: ProviderMetadata = {}


class ToolCallPart(msgspec.Struct, tag="tool_call", frozen=True, kw_only=True, omit_defaults=True):
    """A tool call from the model. ``input`` is the parsed arguments (``{}`` for a call with
    none)."""

    id: str
    name: str
    input: JSONValue
    provider_metadata: ProviderMetadata = {}


ToolResultContent: TypeAlias = TextPart | ImagePart


class ToolResultPart(
    msgspec.Struct, tag="tool_result", frozen=True, kw_only=True, omit_defaults=True
):
    """The result of one tool call. ``name`` is the called tool's name (Gemini needs it)."""

    call_id: str
    name: str
    content: list[ToolResultContent]
    is_error: bool = False
    provider_metadata: ProviderMetadata = {}


Part: TypeAlias = TextPart | ReasoningPart | ImagePart | ToolCallPart | ToolResultPart


class Message(msgspec.Struct, frozen=True, kw_only=True):
    """One message. ``tool`` messages hold ``ToolResultPart``s; ``system`` messages are for
    mid-history instructions (the main system prompt is ``ModelRequest.system``)."""

    role: Role
    parts: list[Part]


# --- request -------------------------------------------------------------------------------


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """A tool the model may call: its name, description and JSON Schema for the input."""

    name: str
    description: str
    input_schema: JSONObject


class ForcedTool(msgspec.Struct, frozen=True, kw_only=True):
    """``tool_choice`` that forces one named tool."""

    name: str


ToolChoice: TypeAlias = Literal["auto", "none", "required"] | ForcedTool


class ModelRequest(msgspec.Struct, kw_only=True):
    """One call to a model. ``model`` is the vendor's model id. ``abort``, when set, cancels
    the request at any point: before sending, during retries' back-off, mid-stream."""

    model: str
    messages: list[Message]
    system: str = ""
    tools: list[ToolSpec] = []
    tool_choice: ToolChoice = "auto"
    reasoning_effort: ReasoningEffort | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    abort: anyio.Event | None = None


# --- usage and stream events ---------------------------------------------------------------


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    """Token counts for one model call. See the module docstring for what each field counts."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0

    @property
    def prompt_total(self) -> int:
        return self.input + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            reasoning=self.reasoning + other.reasoning,
        )


class TextDelta(msgspec.Struct, tag="text_delta", frozen=True, kw_only=True):
    text: str


class ReasoningDelta(msgspec.Struct, tag="reasoning_delta", frozen=True, kw_only=True):
    text: str


class ToolCallStart(msgspec.Struct, tag="tool_call_start", frozen=True, kw_only=True):
    id: str
    name: str


class ToolCallDelta(msgspec.Struct, tag="tool_call_delta", frozen=True, kw_only=True):
    """A fragment of a tool call's JSON arguments, as the vendor streamed it."""

    id: str
    arguments: str


class ToolCallEnd(msgspec.Struct, tag="tool_call_end", frozen=True, kw_only=True):
    """A complete tool call: the same part that ``Finish.message`` will carry."""

    call: ToolCallPart


class UsageEvent(msgspec.Struct, tag="usage", frozen=True, kw_only=True):
    """Usage so far in this call. The last one before ``Finish`` is final."""

    usage: Usage


class Retrying(msgspec.Struct, tag="retrying", frozen=True, kw_only=True):
    """A failed attempt of this call will be retried after ``delay`` seconds. Announced
    before the wait, never after content was streamed, and never terminal.

    ``attempt`` is the attempt about to be made (2 for the first retry) of
    ``max_attempts``; ``reason`` is a few words for a status line ("rate limited",
    "connection reset"); ``message`` the failure in full."""

    attempt: int
    max_attempts: int
    kind: ErrorKind
    reason: str
    message: str
    delay: float
    status: int | None = None


class Finish(msgspec.Struct, tag="finish", frozen=True, kw_only=True):
    reason: FinishReason
    message: Message
    usage: Usage
    vendor_reason: str | None = None


class ErrorEvent(msgspec.Struct, tag="error", frozen=True, kw_only=True):
    """The terminal event of a failed call. ``partial`` holds what was streamed before the
    failure (it is never sent back to a provider as-is by the adapters); ``usage`` what the
    vendor had reported for the call by then (None when it reported nothing), so a cut
    call is still paid for."""

    kind: ErrorKind
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    partial: Message | None = None
    usage: Usage | None = None


StreamEvent: TypeAlias = (
    TextDelta
    | ReasoningDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | UsageEvent
    | Retrying
    | Finish
    | ErrorEvent
)


def text_of(message: Message) -> str:
    """The concatenated text parts of a message (reasoning excluded)."""
    return "".join(p.text for p in message.parts if isinstance(p, TextPart))


def metadata_for(part: Part, provider: str) -> dict[str, JSONValue]:
    """This provider's namespace of a part's metadata (empty when absent or not an object)."""
    entry = part.provider_metadata.get(provider)
    return entry if isinstance(entry, dict) else {}


__all__ = [
    "ERROR_KINDS",
    "FINISH_REASONS",
    "ErrorEvent",
    "ErrorKind",
    "Finish",
    "FinishReason",
    "ForcedTool",
    "ImagePart",
    "JSONObject",
    "JSONValue",
    "Message",
    "ModelRequest",
    "Part",
    "ProviderMetadata",
    "ReasoningDelta",
    "ReasoningEffort",
    "ReasoningPart",
    "Retrying",
    "Role",
    "StreamEvent",
    "TextDelta",
    "TextPart",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallPart",
    "ToolCallStart",
    "ToolChoice",
    "ToolResultContent",
    "ToolResultPart",
    "ToolSpec",
    "Usage",
    "UsageEvent",
    "metadata_for",
    "text_of",
]
