"""The ``openai-responses`` wire: OpenAI's Responses API, used statelessly (``store: false``).

Request building lives in ``_request`` (its docstring lists what we send and
why); the vendor's events are decoded in ``_events``. This module turns
those events into earshot's stream and maps errors onto the taxonomy.

Stream mapping (every event goes through the ``Assembler``)::

    output_item.added     message        -> remember item id / phase for its text
                          reasoning      -> open a reasoning part at its output position
                          function_call  -> ToolCallStart (call_id, name)
    output_text.delta, refusal.delta     -> TextDelta, one part per (output_index,
                                            content_index); refusal marks the finish
    reasoning_summary_text.delta,
    reasoning_text.delta                 -> ReasoningDelta ("\\n\\n" between summary parts)
    function_call_arguments.delta        -> ToolCallDelta
    output_item.done      reasoning      -> metadata {item_id, encrypted_content, summary}
                          function_call  -> ToolCallEnd with the item's full arguments
                          message        -> any text that was not streamed
    completed             -> usage, Finish stop | tool_calls | refusal
    incomplete            -> usage, Finish length (max_output_tokens) | refusal
                             (content_filter)
    error, failed         -> ErrorEvent (the first of them; the other is then ignored)

Tool calls and reasoning are taken from ``output_item.done`` (the full item, with
``encrypted_content`` and ``call_id``), not from deltas. A stream that ends without a
terminal event was cut off: a ``stream_incomplete`` error (``Assembler.eof``). A
non-streaming ``response`` body is replayed as its items done plus the terminal event.

Usage: ``input_tokens`` includes cached and cache-write tokens; earshot's ``input`` does not,
so ``input = input_tokens - cached_tokens - cache_write_tokens``. ``output_tokens`` already
includes reasoning, as earshot's ``output`` does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from earshot.providers.errors import ProviderError, classify_http, is_context_overflow, redact
from earshot.providers.sse import SSEEvent
from earshot.providers.target import Target, WireName
from earshot.providers.types import (
    ErrorKind,
    FinishReason,
    JSONValue,
    ModelRequest,
    StreamEvent,
    Usage,
)
from earshot.providers.wire.base import Framing, HttpCall, ParserBase, StreamParser, encode_json
from earshot.providers.wire.openai_responses import _events as ev
from earshot.providers.wire.openai_responses import _request as req

# Error codes the vendor uses for answers that retrying cannot fix (a spent balance or cap).
NEVER_RETRY_CODES = frozenset(
    {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"}
)
_RATE_LIMIT_CODES = frozenset({"rate_limit_exceeded", "rate_limit_error", "rate_limited"})
_SERVER_CODES = frozenset(
    {
        "server_error",
        "internal_error",
        "server_is_overloaded",
        "slow_down",
        "overloaded",
        "vector_store_timeout",
        "timeout",
    }
)
_TRY_AGAIN = re.compile(r"try again in (\d+(?:\.\d+)?)\s*(ms|s)\b", re.IGNORECASE)


def retry_after_from_message(message: str) -> float | None:
    """Seconds from "Please try again in 1.2s" / "in 20ms", which OpenAI writes in 429s."""
    m = _TRY_AGAIN.search(message)
    if m is None:
        return None
    value = float(m.group(1))
    return value / 1000.0 if m.group(2).lower() == "ms" else value


def stream_error(
    code: str | None, error_type: str | None, message: str, provider: str
) -> ProviderError:
    """An in-stream ``error`` / ``response.failed`` as a ``ProviderError``.

    ``insufficient_quota`` (and billing caps) is a rate limit never retried; rate limits and
    server errors are retryable; a context overflow is terminal; codes naming a bad request
    (``invalid_*``, image problems) are terminal; anything else is taken as a retryable
    server failure, since the request itself was accepted with a 200.
    """
    names = {n for n in (code, error_type) if n}
    text = f"{provider}: {message or code or error_type or 'the response failed'}"
    kind: ErrorKind
    retryable: bool
    if names & NEVER_RETRY_CODES:
        kind, retryable = "rate_limit", False
    elif is_context_overflow(message, code) or "context_length_exceeded" in names:
        kind, retryable = "context_overflow", False
    elif names & _RATE_LIMIT_CODES:
        kind, retryable = "rate_limit", True
    elif names & _SERVER_CODES:
        kind, retryable = "server", True
    elif any(n.startswith(("invalid", "image_")) or n.endswith("_image") for n in names):
        kind, retryable = "invalid_request", False
    else:
        kind, retryable = "server", True
    retry_after = retry_after_from_message(message) if kind == "rate_limit" else None
    return ProviderError(kind, text, retryable=retryable, retry_after=retry_after)


def convert_usage(usage: ev.WireUsage) -> Usage:
    cached = _details(usage.input_tokens_details, "cached")
    written = _details(usage.input_tokens_details, "written")
    reasoning = 0
    if usage.output_tokens_details is not None:
        reasoning = usage.output_tokens_details.reasoning_tokens or 0
    return Usage(
        input=max(0, (usage.input_tokens or 0) - cached - written),
        output=usage.output_tokens or 0,
        cache_read=cached,
        cache_write=written,
        reasoning=reasoning,
    )


def _details(details: ev.InputDetails | None, which: str) -> int:
    if details is None:
        return 0
    value = details.cached_tokens if which == "cached" else details.cache_write_tokens
    return value or 0


class ResponsesParser(ParserBase):
    """One Responses stream. Parts are keyed by output position so they keep the model's
    order: text by ``("text", output_index, content_index)``, reasoning by
    ``("reasoning", output_index)``, tool calls by ``output_index``."""

    terminal = "response.completed"

    def __init__(self, provider: str, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(provider)
        self._provider = provider
        self._secrets = secrets
        self._index_of: dict[str, int] = {}  # item id -> output_index
        self._messages: dict[int, ev.OutputItem] = {}  # output_index -> message item (added)
        self._streamed: set[object] = set()  # part keys that received any delta
        self._summary_at: dict[int, int] = {}  # output_index -> last summary_index seen
        self._refused = False

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        if event.data.strip() == "[DONE]":
            return []  # not sent by OpenAI; some compatible servers end with it
        kind = ev.decode(event.data, ev.Envelope).type or event.event
        match kind:
            case "response.output_item.added":
                return self._item_added(ev.decode(event.data, ev.ItemEvent))
            case "response.output_item.done":
                return self._item_done(ev.decode(event.data, ev.ItemEvent))
            case "response.output_text.delta":
                return self._text(ev.decode(event.data, ev.DeltaEvent))
            case "response.refusal.delta":
                self._refused = True
                return self._text(ev.decode(event.data, ev.DeltaEvent))
            case "response.reasoning_summary_part.added":
                return self._summary_part(ev.decode(event.data, ev.DeltaEvent))
            case "response.reasoning_summary_text.delta":
                delta = ev.decode(event.data, ev.DeltaEvent)
                return self._summary_part(delta) + self._reasoning(delta)
            case "response.reasoning_text.delta":
                return self._reasoning(ev.decode(event.data, ev.DeltaEvent))
            case "response.function_call_arguments.delta":
                delta = ev.decode(event.data, ev.DeltaEvent)
                return self.asm.tool_delta(self._index(delta), delta.delta)
            case "response.completed" | "response.incomplete":
                return self._finish(kind, ev.decode(event.data, ev.ResponseEvent).response)
            case "response.failed":
                return self._failed(ev.decode(event.data, ev.ResponseEvent).response)
            case "error":
                detail = ev.decode(event.data, ev.StreamError).detail()
                return self._fail(detail)
            case _:
                return []  # lifecycle events, .done echoes, annotations, unknown types

    def whole_payloads(self, body: JSONValue) -> list[JSONValue] | None:
        """A non-streaming ``response`` object as each output item done, then the event its
        ``status`` names (completed, incomplete, failed); an ``error`` body as an error."""
        if not isinstance(body, dict):
            return None
        error = body.get("error")
        if "output" not in body and isinstance(error, dict):
            return [{"type": "error", "error": error}]
        output = body.get("output")
        if not isinstance(output, list):
            return None
        events: list[JSONValue] = [
            {"type": "response.output_item.done", "output_index": index, "item": item}
            for index, item in enumerate(output)
        ]
        status = body.get("status")
        if status in ("completed", "incomplete", "failed"):
            events.append({"type": f"response.{status}", "response": body})
        return events

    # --- items --------------------------------------------------------------------------------

    def _index(self, delta: ev.DeltaEvent) -> int:
        if delta.output_index is not None:
            return delta.output_index
        if delta.item_id is not None and delta.item_id in self._index_of:
            return self._index_of[delta.item_id]
        return 0

    def _item_added(self, event: ev.ItemEvent) -> list[StreamEvent]:
        item = event.item
        index = self._position(event)
        match item.type:
            case "message":
                self._messages[index] = item
            case "reasoning":
                self.asm.begin("reasoning", key=("reasoning", index))
            case "function_call":
                out = self._start_call(index, item)
                if item.arguments:
                    out += self.asm.tool_delta(index, item.arguments)
                return out
        return []

    def _position(self, event: ev.ItemEvent) -> int:
        index = event.output_index
        if index is None:
            index = self._index_of.get(event.item.id or "", len(self._index_of))
        if event.item.id:
            self._index_of[event.item.id] = index
        return index

    def _start_call(self, index: int, item: ev.OutputItem) -> list[StreamEvent]:
        call_id = item.call_id or item.id or f"call_{index}"
        metadata: dict[str, JSONValue] = {"item_id": item.id} if item.id else {}
        return self.asm.tool_start(index, call_id, item.name or "", metadata)

    def _item_done(self, event: ev.ItemEvent) -> list[StreamEvent]:
        item = event.item
        index = self._position(event)
        match item.type:
            case "function_call":
                out: list[StreamEvent] = []
                if not self.asm.has_tool(index):
                    out += self._start_call(index, item)
                return out + self.asm.tool_end(index, arguments=item.arguments)
            case "reasoning":
                return self._reasoning_done(index, item)
            case "message":
                return self._message_done(index, item)
        return []

    def _reasoning_done(self, index: int, item: ev.OutputItem) -> list[StreamEvent]:
        key = ("reasoning", index)
        summary = [part.text for part in item.summary or []]
        out: list[StreamEvent] = []
        if key not in self._streamed:
            # Nothing streamed (a server that sends only whole items): show what the item has.
            text = "\n\n".join(t for t in summary if t)
            if not text:
                text = "\n\n".join(c.text for c in item.content or [] if c.text)
            if text:
                out += self.asm.reasoning(text, key=key)
        metadata: dict[str, JSONValue] = {}
        if item.id:
            metadata["item_id"] = item.id
        if item.encrypted_content:
            metadata["encrypted_content"] = item.encrypted_content
        metadata["summary"] = list(summary)
        self.asm.metadata("reasoning", key, metadata)
        return out

    def _message_done(self, index: int, item: ev.OutputItem) -> list[StreamEvent]:
        """Text not streamed is emitted from the item; text that was streamed before its item
        was announced gets the item's id and phase now."""
        self._messages[index] = item
        out: list[StreamEvent] = []
        for content_index, part in enumerate(item.content or []):
            key = ("text", index, content_index)
            if key in self._streamed:
                self._text_metadata(key, index)
                continue
            text = part.refusal if part.type == "refusal" else part.text
            if not text:
                continue
            if part.type == "refusal":
                self._refused = True
            out += self._emit_text(key, index, text)
        return out

    # --- deltas -------------------------------------------------------------------------------

    def _text(self, delta: ev.DeltaEvent) -> list[StreamEvent]:
        index = self._index(delta)
        return self._emit_text(("text", index, delta.content_index), index, delta.delta)

    def _emit_text(self, key: object, index: int, text: str) -> list[StreamEvent]:
        if key not in self._streamed:
            self._streamed.add(key)
            self._text_metadata(key, index)
        return self.asm.text(text, key=key)

    def _text_metadata(self, key: object, index: int) -> None:
        item = self._messages.get(index)
        if item is None:
            return
        metadata: dict[str, JSONValue] = {}
        if item.id:
            metadata["item_id"] = item.id
        if item.phase:
            metadata["phase"] = item.phase
        if metadata:
            self.asm.metadata("text", key, metadata)

    def _summary_part(self, delta: ev.DeltaEvent) -> list[StreamEvent]:
        """Separate consecutive summary parts of one reasoning item by a blank line."""
        index = self._index(delta)
        last = self._summary_at.get(index)
        self._summary_at[index] = delta.summary_index
        if last is not None and delta.summary_index != last:
            return self._reasoning(ev.DeltaEvent(delta="\n\n", output_index=index))
        return []

    def _reasoning(self, delta: ev.DeltaEvent) -> list[StreamEvent]:
        key = ("reasoning", self._index(delta))
        if delta.delta:
            self._streamed.add(key)
        return self.asm.reasoning(delta.delta, key=key)

    # --- the end ------------------------------------------------------------------------------

    def _finish(self, kind: str, response: ev.Response) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        if response.usage is not None:
            out += self.asm.set_usage(convert_usage(response.usage))
        reason: FinishReason = "refusal" if self._refused else "stop"
        vendor = response.status or kind.removeprefix("response.")
        if kind == "response.incomplete":
            detail = response.incomplete_details
            vendor = (detail.reason if detail is not None else None) or "incomplete"
            reason = "refusal" if vendor == "content_filter" else "length"
        return out + self.asm.finish(reason, vendor)

    def _failed(self, response: ev.Response) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        if response.usage is not None:
            out += self.asm.set_usage(convert_usage(response.usage))
        return out + self._fail(response.error or ev.ErrorDetail())

    def _fail(self, detail: ev.ErrorDetail) -> list[StreamEvent]:
        message = redact(detail.message or "", self._secrets)
        error = stream_error(ev.code_text(detail.code), detail.type, message, self._provider)
        return self.asm.fail(error)


class OpenAIResponsesWire:
    """The Responses API adapter. Stateless: holds no per-call state (see ``parser``)."""

    framing: Framing = "sse"

    @property
    def name(self) -> WireName:
        return "openai-responses"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        return HttpCall(
            url=req.url(target),
            headers=req.headers(target),
            body=encode_json(req.body(request, target)),
        )

    def parser(self, request: ModelRequest, target: Target) -> StreamParser:
        return ResponsesParser(target.provider, target.secrets())

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        """Any error body ``providers.error_body`` reads; a raw body is never shown."""
        from earshot.providers.error_body import (  # errors only
            missing_key_error,
            read_error_body,
            shown,
        )

        vendor = read_error_body(body, status)
        missing = missing_key_error(status, vendor, target)
        if missing is not None:
            return missing
        code = vendor.symbolic_code
        never = bool({code, vendor.type} & NEVER_RETRY_CODES)
        return classify_http(
            status,
            shown(target, vendor.message),
            headers,
            code=code or vendor.type,
            vendor_retry_after=retry_after_from_message(vendor.message) if status == 429 else None,
            never_retry=never,
        )


WIRE = OpenAIResponsesWire()

if TYPE_CHECKING:
    from earshot.providers.wire.base import Wire

    _check_wire: Wire = WIRE
    _check_parser: StreamParser = ResponsesParser("openai")

__all__ = [
    "NEVER_RETRY_CODES",
    "WIRE",
    "OpenAIResponsesWire",
    "ResponsesParser",
    "convert_usage",
    "retry_after_from_message",
    "stream_error",
]
