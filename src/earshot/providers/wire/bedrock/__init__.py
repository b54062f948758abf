"""The ``amazon-bedrock`` wire: Bedrock Runtime's ConverseStream, for every model family.

::

    build_call   POST {base}/model/{modelId}/converse-stream   body from _request (see there)
                 framing "aws-event-stream": the answer is AWS event-stream binary frames,
                 decoded (CRCs checked) into one event per message by ``eventstream``
                 auth "aws-sigv4": signed over the final body bytes by ``providers.auth``
                 (or a Bedrock API key as a bearer token)
    parser       events -> Assembler
    errors       x-amzn-ErrorType / __type + message -> the taxonomy

Stream contract:

- Blocks are keyed by ``contentBlockIndex``: text deltas -> text; ``reasoningContent`` text
  -> reasoning whose ``signature`` is kept as ``{"signature"}`` and ``redactedContent`` as a
  whole ``ReasoningPart(text="")`` with ``{"redacted_data"}`` (metadata under the provider
  id, so they replay on Bedrock only); ``toolUse`` start/input fragments/stop -> a tool call.
- ``messageStop`` carries the stop reason (end_turn/stop_sequence -> stop, tool_use ->
  tool_calls, max_tokens/model_context_window_exceeded -> length,
  guardrail_intervened/content_filtered -> refusal) but ``metadata`` (usage) follows it: the
  ``Finish`` is emitted at ``metadata``, or at the end of the stream once ``messageStop`` was
  seen. A stream without ``messageStop`` is cut off.
- Usage: ``input = inputTokens`` (Bedrock counts cache reads and writes apart),
  ``cache_read``/``cache_write`` from their fields, ``output = outputTokens``.
- An exception frame is the terminal error: throttlingException -> rate_limit,
  modelStreamErrorException/internalServerException/serviceUnavailableException -> server
  (retryable), validationException -> invalid_request or context_overflow ("too long").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from earshot.providers.errors import ProviderError, classify_http, is_context_overflow, redact
from earshot.providers.eventstream import FRAMING_ERROR
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
from earshot.providers.wire.base import Framing, HttpCall, ParserBase, encode_json
from earshot.providers.wire.bedrock._events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorBody,
    MessageStop,
    Metadata,
    decode_error_body,
    decode_event,
)
from earshot.providers.wire.bedrock._request import build_body, url_for

if TYPE_CHECKING:
    from earshot.providers.wire.base import StreamParser, Wire

_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "refusal",
    "content_filtered": "refusal",
}

# The HTTP status each Bedrock exception comes with, so an in-stream exception is
# classified like the same answer over HTTP.
_STATUS: dict[str, int] = {
    "accessdeniedexception": 403,
    "unrecognizedclientexception": 403,
    "invalidsignatureexception": 403,
    "expiredtokenexception": 403,
    "expiredtoken": 403,
    "incompletesignatureexception": 403,
    "missingauthenticationtokenexception": 403,
    "validationexception": 400,
    "resourcenotfoundexception": 404,
    "modeltimeoutexception": 408,
    "modelerrorexception": 424,
    "throttlingexception": 429,
    "servicequotaexceededexception": 429,
    "modelnotreadyexception": 429,
    "internalserverexception": 500,
    "modelstreamerrorexception": 500,
    "serviceunavailableexception": 503,
}


def bedrock_error(
    provider: str,
    status: int | None,
    kind: str,
    message: str,
    headers: Mapping[str, str],
    secrets: tuple[str, ...] = (),
) -> ProviderError:
    """One Bedrock failure (HTTP or in-stream) on the taxonomy."""
    key = kind.split(":", 1)[0].strip().lower()
    code = _STATUS.get(key, status or 500)
    name = kind.split(":", 1)[0] or f"HTTP {code}"
    text = redact(f"{provider}: {message or name} ({name})", secrets)
    if key == "validationexception" and (
        "too long" in message.lower() or is_context_overflow(message)
    ):
        return ProviderError("context_overflow", text, retryable=False, status=code)
    if key in ("expiredtokenexception", "expiredtoken") or "expired" in message.lower():
        text += "; refresh your AWS credentials (e.g. `aws sso login`)"
    classified = classify_http(code, text, headers)
    if status is None:  # in-stream: the transport status was 200
        return ProviderError(classified.kind, classified.message, retryable=classified.retryable)
    return classified


class BedrockParser(ParserBase):
    """One ConverseStream call. See the module docstring for the contract."""

    terminal = "messageStop"

    def __init__(self, provider: str) -> None:
        super().__init__(provider)
        self._tools: set[int] = set()
        self._signatures: dict[int, str] = {}
        self._stop: str | None = None

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        kind = event.event
        if kind == FRAMING_ERROR:
            error = ProviderError("server", f"{self.asm.provider}: {event.data}", retryable=True)
            return self.asm.fail(error)
        if kind.startswith(("exception:", "error:")):
            body = decode_error_body(event.data)
            name = kind.split(":", 1)[1]
            return self.asm.fail(bedrock_error(self.asm.provider, None, name, body.text, {}))
        match kind:
            case "contentBlockStart":
                start = decode_event(event.data, BlockStart)
                tool = start.start.toolUse
                if tool is None:
                    return []
                self._tools.add(start.contentBlockIndex)
                return self.asm.tool_start(start.contentBlockIndex, tool.toolUseId, tool.name)
            case "contentBlockDelta":
                return self._delta(decode_event(event.data, BlockDelta))
            case "contentBlockStop":
                index = decode_event(event.data, BlockStop).contentBlockIndex
                return self.asm.tool_end(index) if index in self._tools else []
            case "messageStop":
                self._stop = decode_event(event.data, MessageStop).stopReason
                return []
            case "metadata":
                usage = decode_event(event.data, Metadata).usage
                out: list[StreamEvent] = []
                if usage is not None:
                    out += self.asm.set_usage(
                        Usage(
                            input=usage.inputTokens,
                            output=usage.outputTokens,
                            cache_read=usage.cacheReadInputTokens,
                            cache_write=usage.cacheWriteInputTokens,
                        )
                    )
                return out + (self._finish() if self._stop is not None else [])
            case _:
                return []  # messageStart, and event types added after this adapter

    def _delta(self, event: BlockDelta) -> list[StreamEvent]:
        index, delta = event.contentBlockIndex, event.delta
        if delta.text is not None:
            return self.asm.text(delta.text, key=index)
        if delta.toolUse is not None:
            return self.asm.tool_delta(index, delta.toolUse.input)
        reasoning = delta.reasoningContent
        if reasoning is None:
            return []
        if reasoning.redactedContent:
            metadata: dict[str, JSONValue] = {"redacted_data": reasoning.redactedContent}
            self.asm.add_part(
                ReasoningPart(text="", provider_metadata={self.asm.provider: metadata})
            )
            return []
        if reasoning.signature:
            signature = self._signatures.get(index, "") + reasoning.signature
            self._signatures[index] = signature
            self.asm.metadata("reasoning", index, {"signature": signature})
        return self.asm.reasoning(reasoning.text, key=index) if reasoning.text else []

    def _finish(self) -> list[StreamEvent]:
        reason = _STOP_REASONS.get(self._stop or "", "stop")
        if reason == "tool_calls" and not self.asm.has_tool_calls:
            reason = "stop"
        return self.asm.finish(reason, self._stop)

    def close(self) -> list[StreamEvent]:
        if self._stop is not None:
            return self._finish()
        return super().close()


class BedrockWire:
    """The ``amazon-bedrock`` adapter (stateless)."""

    framing: Framing = "aws-event-stream"

    @property
    def name(self) -> WireName:
        return "amazon-bedrock"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        return HttpCall(
            url=url_for(target, request.model),
            headers={"accept": "application/vnd.amazon.eventstream", **target.headers},
            body=encode_json(build_body(request, target)),
        )

    def parser(self, request: ModelRequest, target: Target) -> BedrockParser:
        return BedrockParser(target.provider)

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        payload: ErrorBody = decode_error_body(body)
        kind = headers.get("x-amzn-errortype") or payload.type_ or ""
        kind = kind.rsplit("#", 1)[-1]
        return bedrock_error(target.provider, status, kind, payload.text, headers, target.secrets())


WIRE = BedrockWire()

if TYPE_CHECKING:
    _wire: Wire = WIRE
    _parser: StreamParser = BedrockParser("amazon-bedrock")

__all__ = ["WIRE", "BedrockParser", "BedrockWire", "bedrock_error"]
