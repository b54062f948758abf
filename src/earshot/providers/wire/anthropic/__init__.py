"""The ``anthropic-messages`` wire: Anthropic's Messages API, streamed.

::

    build_call   POST {base_url}/v1/messages   x-api-key, anthropic-version: 2023-06-01
                 body from _request (roles, merging, thinking replay, cache
                 breakpoints, effort/budget mapping: see that module's docstring)
    parser       SSE events -> Assembler, dispatched on the JSON ``type`` (the ``event:``
                 line is optional; ``ping`` and unknown events are ignored)
    errors       vendor error body -> classify_http (529 server, spend cap never retried)

Stream contract (what ``AnthropicParser`` guarantees on top of the ``Assembler``):

- Content blocks are keyed by their ``index``: ``text`` -> text, ``thinking`` -> reasoning
  whose ``signature_delta`` is stored as ``{"signature": ...}``, ``redacted_thinking`` -> a
  whole ``ReasoningPart(text="")`` with ``{"redacted_data": ...}``, ``tool_use`` -> a tool
  call whose ``input_json_delta`` pieces are concatenated and parsed at ``content_block_stop``
  (only ``""`` -> ``{}``). Server-side tool blocks (``server_tool_use``, ``*_tool_result``)
  are not earshot's to run or replay and are skipped.
- Usage: ``message_start`` gives the first numbers; each ``message_delta.usage`` field that is
  present replaces it (the values are cumulative and final, ``input_tokens`` included).
  ``message_start``'s numbers are reported with the first content event, not before, so an
  ``error`` right after ``message_start`` is still the stream's first event and retryable.
  ``Usage.input = input_tokens`` (Anthropic already excludes cache reads and writes),
  ``cache_read = cache_read_input_tokens``, ``cache_write = cache_creation_input_tokens``,
  ``output = output_tokens`` (includes thinking), ``reasoning =
  output_tokens_details.thinking_tokens`` when reported.
- ``message_stop`` is the terminal event: ``Finish`` with the ``message_delta`` stop reason
  mapped (end_turn/stop_sequence/pause_turn -> stop, max_tokens and
  model_context_window_exceeded -> length, tool_use -> tool_calls, refusal -> refusal) and
  the raw reason as ``vendor_reason``. A stream that ends without it is cut off: ``close``
  ends it with a ``stream_incomplete`` error.
- A non-streaming ``message`` body (a gateway that ignored ``stream: true``) is replayed as
  the events it would have streamed (``whole_payloads``).
- An in-stream ``error`` event is the terminal ``ErrorEvent``: overloaded_error and api_error
  are retryable ``server`` errors, rate_limit_error a retryable ``rate_limit``, the others as
  their HTTP twins would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from earshot.providers.errors import ProviderError, classify_http, redact
from earshot.providers.sse import SSEEvent
from earshot.providers.target import Target, WireName
from earshot.providers.types import (
    FinishReason,
    JSONValue,
    ModelRequest,
    ReasoningPart,
    StreamEvent,
    Usage,
)
from earshot.providers.wire.anthropic._events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorBody,
    ErrorDetails,
    ErrorPayload,
    MessageDelta,
    MessageStart,
    WireUsage,
    decode_event,
    event_type,
)
from earshot.providers.wire.anthropic._request import beta_header, build_body, build_headers
from earshot.providers.wire.base import Framing, HttpCall, ParserBase, encode_json

if TYPE_CHECKING:
    from earshot.providers.wire.base import StreamParser, Wire

_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "refusal",
}

# The HTTP status each Anthropic error type comes with, so that an in-stream error is
# classified exactly like the same error answered over HTTP.
_ERROR_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "gateway_timeout_error": 504,
    "overloaded_error": 529,
}
_SPEND_CAP_CODE = "enforced_spend_limit_reached"


def map_stop_reason(reason: str | None) -> FinishReason:
    """Our finish reason for Anthropic's ``stop_reason`` (unknown or missing -> ``stop``)."""
    return _STOP_REASONS.get(reason or "", "stop")


# --- errors --------------------------------------------------------------------------------


def _error(
    provider: str,
    status: int,
    error: ErrorBody,
    headers: Mapping[str, str],
    *,
    request_id: str | None = None,
    secrets: tuple[str, ...] = (),
) -> ProviderError:
    code = error.details.error_code if error.details is not None else None
    permanent = error.type == "billing_error" or status == 402 or code == _SPEND_CAP_CODE
    message = f"{provider}: {error.message or f'HTTP {status}'}"
    if error.type:
        message += f" ({code or error.type})"
    if request_id:
        message += f" [request-id {request_id}]"
    message = redact(message, secrets)
    classified = classify_http(
        status, message, headers, code=code or error.type or None, never_retry=permanent
    )
    if permanent and classified.kind != "context_overflow":
        # A spend cap or an unpaid balance: a quota answer that waiting will not clear.
        return ProviderError(
            "rate_limit",
            classified.message,
            retryable=False,
            status=status,
            retry_after=classified.retry_after,
        )
    return classified


def stream_error(provider: str, error: ErrorBody) -> ProviderError:
    """The failure an in-stream ``error`` event reports (the HTTP status was already 200)."""
    status = _ERROR_STATUS.get(error.type)
    if status is None:
        text = f"{provider}: {error.message or 'stream error'} ({error.type or 'unknown'})"
        return ProviderError("unknown", redact(text), retryable=False)
    classified = _error(provider, status, error, {})
    return ProviderError(classified.kind, classified.message, retryable=classified.retryable)


# --- the stream ----------------------------------------------------------------------------


class AnthropicParser(ParserBase):
    """One streamed Messages call. See the module docstring for the contract."""

    terminal = "message_stop"

    def __init__(self, provider: str) -> None:
        super().__init__(provider)
        self._kinds: dict[int, str] = {}
        self._signatures: dict[int, str] = {}
        self._tool_inputs: dict[int, JSONValue] = {}
        self._tool_streamed: set[int] = set()
        self._stop_reason: str | None = None
        self._input = 0
        self._output = 0
        self._cache_read = 0
        self._cache_write = 0
        self._reasoning = 0
        self._usage_pending = False

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        kind = event_type(event.data) or event.event
        match kind:
            case "message_start":
                self._take_usage(decode_event(event.data, MessageStart).message.usage)
                return []
            case "content_block_start":
                start = decode_event(event.data, BlockStart)
                return self._flush_usage() + self._block_start(start)
            case "content_block_delta":
                delta = decode_event(event.data, BlockDelta)
                return self._flush_usage() + self._block_delta(delta)
            case "content_block_stop":
                return self._block_stop(decode_event(event.data, BlockStop).index)
            case "message_delta":
                final = decode_event(event.data, MessageDelta)
                if final.delta.stop_reason is not None:
                    self._stop_reason = final.delta.stop_reason
                if final.usage is not None:
                    self._take_usage(final.usage)
                return self._flush_usage()
            case "message_stop":
                reason = map_stop_reason(self._stop_reason)
                if reason == "tool_calls" and not self.asm.has_tool_calls:
                    reason = "stop"
                return self._flush_usage() + self.asm.finish(reason, self._stop_reason)
            case "error":
                payload = decode_event(event.data, ErrorPayload)
                return self.asm.fail(stream_error(self.asm.provider, payload.error))
            case _:
                return []  # ping, and event types added after this adapter was written

    def close(self) -> list[StreamEvent]:
        return self._flush_usage() + super().close()

    def whole_payloads(self, body: JSONValue) -> list[JSONValue] | None:
        """A non-streaming Messages response as the events it would have streamed: each
        content block starts whole and stops, then the stop reason and ``message_stop``."""
        if not isinstance(body, dict):
            return None
        if body.get("type") == "error":
            return [body]
        content = body.get("content")
        if body.get("type") != "message" or not isinstance(content, list):
            return None
        usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
        events: list[JSONValue] = [
            {"type": "message_start", "message": {"id": body.get("id") or "", "usage": usage}}
        ]
        for index, block in enumerate(content):
            events.append({"type": "content_block_start", "index": index, "content_block": block})
            events.append({"type": "content_block_stop", "index": index})
        stop: JSONValue = {"stop_reason": body.get("stop_reason")}
        events.append({"type": "message_delta", "delta": stop, "usage": usage})
        events.append({"type": "message_stop"})
        return events

    def abort(self) -> list[StreamEvent]:
        return self._flush_usage() + super().abort()

    def _take_usage(self, usage: WireUsage) -> None:
        """Fields present replace what we had (Anthropic's numbers are cumulative)."""
        if usage.input_tokens is not None:
            self._input = usage.input_tokens
        if usage.output_tokens is not None:
            self._output = usage.output_tokens
        if usage.cache_read_input_tokens is not None:
            self._cache_read = usage.cache_read_input_tokens
        if usage.cache_creation_input_tokens is not None:
            self._cache_write = usage.cache_creation_input_tokens
        details = usage.output_tokens_details
        if details is not None and details.thinking_tokens is not None:
            self._reasoning = details.thinking_tokens
        self._usage_pending = True

    def _flush_usage(self) -> list[StreamEvent]:
        """The ``UsageEvent`` for numbers not yet reported. ``message_start``'s numbers wait
        for the first content event, so that an error arriving straight after
        ``message_start`` is still the stream's first event (and the call can be retried)."""
        if not self._usage_pending:
            return []
        self._usage_pending = False
        return self.asm.set_usage(
            Usage(
                input=self._input,
                output=self._output,
                cache_read=self._cache_read,
                cache_write=self._cache_write,
                reasoning=self._reasoning,
            )
        )

    def _block_start(self, start: BlockStart) -> list[StreamEvent]:
        index, block = start.index, start.content_block
        self._kinds[index] = block.type
        match block.type:
            case "text":
                self.asm.begin("text", key=index)
                return self.asm.text(block.text, key=index) if block.text else []
            case "thinking":
                self.asm.begin("reasoning", key=index)
                if block.signature:
                    self._signature(index, block.signature)
                return self.asm.reasoning(block.thinking, key=index) if block.thinking else []
            case "redacted_thinking":
                if block.data:
                    metadata: dict[str, JSONValue] = {"redacted_data": block.data}
                    part = ReasoningPart(text="", provider_metadata={self.asm.provider: metadata})
                    self.asm.add_part(part)
                return []
            case "tool_use":
                if isinstance(block.input, dict) and block.input:
                    self._tool_inputs[index] = block.input
                return self.asm.tool_start(index, block.id, block.name)
            case _:
                return []  # server tool blocks and their results: run and kept by Anthropic

    def _block_delta(self, event: BlockDelta) -> list[StreamEvent]:
        index, delta = event.index, event.delta
        kind = self._kinds.get(index)
        match delta.type:
            case "text_delta" if kind in ("text", None):
                self._kinds[index] = "text"
                return self.asm.text(delta.text, key=index)
            case "thinking_delta" if kind in ("thinking", None):
                self._kinds[index] = "thinking"
                return self.asm.reasoning(delta.thinking, key=index)
            case "signature_delta" if kind in ("thinking", None):
                self._kinds[index] = "thinking"
                self._signature(index, delta.signature)
                return []
            case "input_json_delta" if kind == "tool_use":
                if delta.partial_json:
                    self._tool_streamed.add(index)
                return self.asm.tool_delta(index, delta.partial_json)
            case _:
                return []  # citations, server-tool input, deltas for skipped blocks

    def _signature(self, index: int, piece: str) -> None:
        signature = self._signatures.get(index, "") + piece
        self._signatures[index] = signature
        self.asm.metadata("reasoning", index, {"signature": signature})

    def _block_stop(self, index: int) -> list[StreamEvent]:
        if self._kinds.get(index) != "tool_use":
            return []
        initial = self._tool_inputs.get(index)
        if initial is not None and index not in self._tool_streamed:
            return self.asm.tool_end(index, value=initial)
        return self.asm.tool_end(index)


# --- the wire ------------------------------------------------------------------------------


class AnthropicWire:
    """The ``anthropic-messages`` adapter (stateless; one instance serves every call)."""

    framing: Framing = "sse"

    @property
    def name(self) -> WireName:
        return "anthropic-messages"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        body = build_body(request, target)
        headers = build_headers(target)
        beta = beta_header(body, request)
        if beta is not None:
            given = next((k for k in headers if k.lower() == "anthropic-beta"), None)
            extra = headers.pop(given) if given is not None else ""
            betas = [b for b in extra.split(",") if b.strip() and b.strip() != beta]
            headers["anthropic-beta"] = ",".join([*betas, beta])
        url = f"{target.base_url.rstrip('/')}/v1/messages"
        return HttpCall(url=url, headers=headers, body=encode_json(body))

    def parser(self, request: ModelRequest, target: Target) -> AnthropicParser:
        return AnthropicParser(target.provider)

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        from earshot.providers.error_body import missing_key_error, read_error_body  # errors only

        vendor = read_error_body(body, status)
        missing = missing_key_error(status, vendor, target)
        if missing is not None:
            return missing
        code = vendor.symbolic_code
        error = ErrorBody(
            type=vendor.type or "",
            message=vendor.message,
            details=ErrorDetails(error_code=code) if code else None,
        )
        return _error(
            target.provider,
            status,
            error,
            headers,
            request_id=headers.get("request-id") or vendor.request_id,
            secrets=target.secrets(),
        )


WIRE = AnthropicWire()

if TYPE_CHECKING:
    _wire: Wire = WIRE
    _parser: StreamParser = AnthropicParser("anthropic")

__all__ = ["WIRE", "AnthropicParser", "AnthropicWire", "map_stop_reason", "stream_error"]
