"""The ``openai-chat`` wire: OpenAI Chat Completions and every server that copies it
(OpenRouter, Groq, DeepSeek, Mistral, xAI, Together, Fireworks, Cerebras, Moonshot, Z.ai,
GitHub Models, Ollama, LM Studio, llama.cpp, vLLM).

::

    build_call   POST {base_url}/chat/completions, Bearer auth (nothing without a key),
                 body from _request (its docstring lists every choice)
    parser       data: chunk* -> Assembler -> StreamEvent*;  data: [DONE] -> Finish
    error_from_response   any error body (``providers.error_body``) -> classify_http

Stream contracts, beyond the ones every adapter keeps (``wire.base``, ``wire.assemble``):

- ``delta.content`` is text. ``delta.reasoning_content`` (DeepSeek, llama.cpp, vLLM) and
  ``delta.reasoning`` (OpenRouter) are reasoning; the part records the field it came in as
  metadata ``{"field": ...}`` so the next request replays it there. OpenRouter's structured
  ``delta.reasoning_details`` fragments are merged into whole items and kept as metadata
  ``{"details": [...]}`` (they carry signatures that must go back verbatim); their text is
  shown only when no plain reasoning field came with them. A list-valued ``content``
  (Mistral's reasoning models) splits into text and ``thinking`` reasoning (not replayed).
- Tool calls are keyed by the fragment's ``index`` (a proxy has started at 1), falling back
  to the position in the list. A call starts once its name is known; the first fragment
  usually carries id and name, Groq sends the whole call at once. ``""`` arguments become
  ``{}``. A fragment with a new id at an index already in use is a new call (some servers
  reuse index 0). A call that never got a name is dropped. Calls end at ``finish_reason``.
  A fragment's ``extra_content`` (Gemini's thought signature) is kept as call metadata.
- ``finish_reason`` is remembered, not acted on: the ``include_usage`` chunk (``choices:
  []``) comes after it, so ``Finish`` is emitted at ``[DONE]``, or at end of stream when a
  finish reason was seen (a stream that ends without either was cut off: a
  ``stream_incomplete`` error). A non-streaming ``chat.completion`` body is replayed as one
  chunk holding the whole message (``whole_payloads``).
  stop -> stop, length/model_length -> length, tool_calls/function_call -> tool_calls,
  content_filter/sensitive -> refusal; unknown reasons -> stop; a tool_calls reason with no
  call in the message -> stop. ``delta.refusal`` text is shown as text and turns a ``stop``
  into ``refusal``.
- Usage is the top-level ``usage`` (the last one wins; Groq's ``x_groq.usage`` copy is
  ignored), converted by ``UsageBody.to_usage``.
- A chunk with an ``error`` object (OpenRouter after HTTP 200), an ``event: error``, or a
  finish reason that reports a failure (``error``, DeepSeek ``insufficient_system_resource``,
  Z.ai ``network_error``) ends the stream with an ``ErrorEvent``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from earshot.providers.errors import (
    ProviderError,
    classify_http,
    is_context_overflow,
    kind_for_status,
    redact,
)
from earshot.providers.sse import SSEEvent
from earshot.providers.target import Target, WireName
from earshot.providers.types import FinishReason, JSONObject, JSONValue, ModelRequest, StreamEvent
from earshot.providers.wire.base import Framing, HttpCall, ParserBase, encode_json
from earshot.providers.wire.openai_chat._events import (
    Delta,
    ErrorBody,
    ToolCallFragment,
    content_pieces,
    decode_chunk,
    details_text,
    merge_details,
)
from earshot.providers.wire.openai_chat._request import build_body

if TYPE_CHECKING:
    from earshot.providers.wire.base import StreamParser, Wire

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "model_length": "length",  # Mistral: the model's context ran out
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "content_filter": "refusal",
    "sensitive": "refusal",  # Z.ai
}
# Finish reasons that report a failure of the server rather than an end of the answer.
_FAILED = {
    "error": "the provider reported an error mid-stream",
    "insufficient_system_resource": "the provider ran out of capacity mid-answer",  # DeepSeek
    "network_error": "the provider's inference backend failed mid-answer",  # Z.ai
}
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
_DAILY = re.compile(r"per day|\((?:RPD|TPD)\)|daily", re.IGNORECASE)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|h|m|s))+")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


class OpenAIChatWire:
    framing: Framing = "sse"

    @property
    def name(self) -> WireName:
        return "openai-chat"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        return HttpCall(
            url=f"{target.base_url.rstrip('/')}/chat/completions",
            headers=dict(target.headers),
            body=encode_json(build_body(request, target)),
        )

    def parser(self, request: ModelRequest, target: Target) -> ChatParser:
        return ChatParser(target)

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        from earshot.providers.error_body import (  # errors only
            missing_key_error,
            read_error_body,
            shown,
        )

        vendor = read_error_body(body, status)
        missing = missing_key_error(status, vendor, target)
        if missing is not None:
            return missing
        message = shown(target, vendor.message)
        code = vendor.symbolic_code
        never_retry = (
            "insufficient_quota" in (code, vendor.type)
            or status == 402
            or (status == 429 and bool(_DAILY.search(message)))
        )
        return classify_http(
            status,
            message,
            headers,
            code=code,
            vendor_retry_after=rate_limit_reset(headers) if status == 429 else None,
            never_retry=never_retry,
        )


def rate_limit_reset(headers: Mapping[str, str]) -> float | None:
    """Seconds until an exhausted ``x-ratelimit`` window resets (OpenAI, Groq): the longest
    ``x-ratelimit-reset-*`` among the windows whose ``remaining`` is 0."""
    waits: list[float] = []
    for window in ("requests", "tokens"):
        if headers.get(f"x-ratelimit-remaining-{window}") != "0":
            continue
        seconds = parse_reset(headers.get(f"x-ratelimit-reset-{window}", ""))
        if seconds is not None:
            waits.append(seconds)
    return max(waits) if waits else None


def parse_reset(text: str) -> float | None:
    """A Go-style duration (``12ms``, ``1.5s``, ``6m0s``, ``1h2m3s``) in seconds."""
    text = text.strip()
    if not _DURATION.fullmatch(text):
        return None
    return sum(float(n) * _UNIT_SECONDS[unit] for n, unit in _DURATION_PART.findall(text))


@dataclass
class _Call:
    """A tool call being streamed at one ``index``."""

    key: tuple[int, int]
    id: str = ""
    name: str = ""
    started: bool = False
    waiting: list[str] = field(default_factory=list)  # argument text before the name came
    extra: JSONObject | None = None  # metadata: Gemini's extra_content (thought signature)


class ChatParser(ParserBase):
    """One call's stream state. See the module docstring for the contracts."""

    terminal = "a chunk with a finish_reason"

    def __init__(self, target: Target) -> None:
        super().__init__(target.provider)
        self._provider = target.provider
        self._secrets = target.secrets()
        self._calls: dict[int, _Call] = {}
        self._call_count = 0
        self._finish_reason: str | None = None
        self._refused = False
        self._last: str = ""  # "reasoning" | "text" | "tool": what the last delta extended
        self._field: str | None = None
        self._details: list[JSONObject] = []

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        from earshot.providers.error_body import read_error_body  # errors only

        data = event.data.strip()
        if not data:
            return []
        if data == "[DONE]":
            return self._finish()
        if event.event == "error":
            vendor = read_error_body(data.encode(), 0)
            error = ErrorBody(message=vendor.message, type=vendor.type, code=vendor.code)
            return self.asm.fail(self._stream_error(error))
        chunk = decode_chunk(data)
        if isinstance(chunk.error, str):
            return self.asm.fail(self._stream_error(ErrorBody(message=chunk.error)))
        if chunk.error is not None:
            return self.asm.fail(self._stream_error(chunk.error))
        out: list[StreamEvent] = []
        for choice in chunk.choices or ():
            if (choice.index or 0) != 0:
                continue  # we never ask for n > 1
            if choice.delta is not None:
                out += self._delta(choice.delta)
            if choice.finish_reason:
                out += self._on_finish_reason(choice.finish_reason)
        if chunk.usage is not None:
            out += self.asm.set_usage(chunk.usage.to_usage())
        return out

    def close(self) -> list[StreamEvent]:
        if self._finish_reason is not None:
            return self._finish()
        return self.asm.eof(self.terminal)

    def whole_payloads(self, body: JSONValue) -> list[JSONValue] | None:
        """A non-streaming ``chat.completion`` as one chunk whose delta is the whole message
        (tool calls keyed by position), then ``[DONE]``; an ``error`` body as an error chunk."""
        if not isinstance(body, dict):
            return None
        if "error" in body and "choices" not in body:
            return [body]
        choices = body.get("choices")
        if not isinstance(choices, list):
            return None
        chunk_choices: list[JSONValue] = []
        for choice in choices:
            if not isinstance(choice, dict):
                continue
            message = choice.get("message")
            chunk_choices.append(
                {
                    "index": choice.get("index", 0),
                    "delta": message if isinstance(message, dict) else {},
                    "finish_reason": choice.get("finish_reason"),
                }
            )
        chunk: JSONObject = {"choices": chunk_choices}
        if isinstance(body.get("usage"), dict):
            chunk["usage"] = body["usage"]
        return [chunk, "[DONE]"]

    # --- deltas ------------------------------------------------------------------------------

    def _delta(self, delta: Delta) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        if delta.reasoning_content:
            out += self._reasoning(
                delta.reasoning_content, "reasoning_content", delta.reasoning_details
            )
        elif delta.reasoning:
            out += self._reasoning(delta.reasoning, "reasoning", delta.reasoning_details)
        elif delta.reasoning_details:
            text = details_text(delta.reasoning_details)
            out += self._reasoning(text, "reasoning_details", delta.reasoning_details)
        if isinstance(delta.content, str):
            if delta.content:
                self._last = "text"
                out += self.asm.text(delta.content)
        elif delta.content:
            for kind, text in content_pieces(delta.content):
                if kind == "text":
                    self._last = "text"
                    out += self.asm.text(text)
                else:
                    out += self._reasoning(text, "thinking", None)
        if delta.refusal:
            self._refused = True
            self._last = "text"
            out += self.asm.text(delta.refusal)
        for position, fragment in enumerate(delta.tool_calls or ()):
            out += self._tool_fragment(position, fragment)
        return out

    def _reasoning(
        self, text: str, source: str, details: list[JSONObject] | None
    ) -> list[StreamEvent]:
        if self._last != "reasoning":
            self._last = "reasoning"
            self._field = None
            self._details = []
        out = self.asm.reasoning(text) if text else []
        values: JSONObject = {}
        if self._field is None:
            self._field = source
            values["field"] = source
        if details:
            merge_details(self._details, details)
            values["details"] = [dict(item) for item in self._details]
        if values:
            self.asm.metadata("reasoning", None, values)
        return out

    def _tool_fragment(self, position: int, fragment: ToolCallFragment) -> list[StreamEvent]:
        self._last = "tool"
        out: list[StreamEvent] = []
        index = fragment.index if fragment.index is not None else position
        function = fragment.function
        name = function.name if function is not None else None
        arguments = function.arguments if function is not None else None
        call = self._calls.get(index)
        if call is not None and call.started and fragment.id and fragment.id != call.id and name:
            out += self.asm.tool_end(call.key)  # the server reused an index for a new call
            call = None
        if call is None:
            call = _Call(key=(index, self._call_count))
            self._call_count += 1
            self._calls[index] = call
        if fragment.id and not call.id:
            call.id = fragment.id
        if fragment.extra_content:
            call.extra = {"extra_content": dict(fragment.extra_content)}
            if call.started:
                self.asm.metadata("tool", call.key, call.extra)
        if name and not call.started:
            call.name += name
        if arguments:
            call.waiting.append(arguments)
        if not call.started and call.name:
            call.started = True
            call_id = call.id or f"call_{os.urandom(12).hex()}"
            call.id = call_id
            out += self.asm.tool_start(call.key, call_id, call.name, call.extra)
        if call.started:
            for piece in call.waiting:
                out += self.asm.tool_delta(call.key, piece)
            call.waiting.clear()
        return out

    # --- the end -----------------------------------------------------------------------------

    def _on_finish_reason(self, reason: str) -> list[StreamEvent]:
        self._finish_reason = reason
        failure = _FAILED.get(reason)
        if failure is not None:
            return self.asm.fail(
                ProviderError("server", f"{failure} (finish_reason {reason})", retryable=True)
            )
        out: list[StreamEvent] = []
        for call in self._calls.values():
            if call.started:
                out += self.asm.tool_end(call.key)
        self._calls.clear()
        return out

    def _finish(self) -> list[StreamEvent]:
        raw = self._finish_reason
        reason: FinishReason = _FINISH.get(raw, "stop") if raw is not None else "stop"
        if reason == "stop" and self._refused:
            reason = "refusal"
        elif reason == "tool_calls" and not self.asm.has_tool_calls:
            reason = "stop"  # nothing to run: a loop must not wait for tool results
        return self.asm.finish(reason, raw)

    def _stream_error(self, error: ErrorBody) -> ProviderError:
        text = error.message or "the provider reported an error"
        message = redact(f"{self._provider}: {text}", self._secrets)
        code = error.code_text
        status = error.status
        if is_context_overflow(message, code):
            return ProviderError("context_overflow", message, retryable=False, status=status)
        if "insufficient_quota" in (code, error.type):
            return ProviderError("rate_limit", message, retryable=False, status=status)
        if status is not None:
            return ProviderError(kind_for_status(status), message, status=status)
        if code == "rate_limit_exceeded":
            return ProviderError("rate_limit", message, retryable=True)
        return ProviderError("server", message, retryable=True)


WIRE = OpenAIChatWire()

if TYPE_CHECKING:
    _wire: Wire = WIRE
    _parser: StreamParser = ChatParser(
        Target(provider="", wire="openai-chat", base_url="", model="", auth="none")
    )

__all__ = [
    "WIRE",
    "ChatParser",
    "OpenAIChatWire",
    "parse_reset",
    "rate_limit_reset",
]
