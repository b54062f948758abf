"""Gemini's SSE stream to earshot stream events.

Each ``data:`` payload is a whole GenerateContentResponse (``_events.Chunk``):

- text parts are deltas of one text run; ``thought: true`` parts are reasoning deltas;
- a ``thoughtSignature`` is stored (``{"thoughtSignature": sig}``) on the part that carried
  it: a signed text or reasoning part ends its run, so the signature stays where Gemini put
  it; a signed EMPTY text part becomes its own ``TextPart("")``;
- ``functionCall`` normally arrives whole (``ToolCallStart``, one ``ToolCallDelta`` with the
  arguments as JSON, ``ToolCallEnd``). Vertex-style streamed arguments (``name`` with
  ``willContinue``, then ``partialArgs`` at JSON paths, closed by ``functionCall: {}``) are
  assembled into the arguments object and reported as one delta when the call closes.
  A call without an ``id`` gets ``gemini-call-<random>-<n>``; Gemini's own id is used and
  kept in metadata (``{"id": ...}``) so the next request echoes it;
- ``inlineData`` parts (generated images) are kept as ``ImagePart``s;
- ``usageMetadata`` is repeated; the last one with counts wins (``usage_from``);
- ``finishReason`` (and ``promptFeedback.blockReason`` with no candidates) is remembered.
  Gemini has no other terminal event, so the stream finishes when the connection ends
  cleanly after it; a transport failure after it also finishes (the answer was complete).
  Without one the answer was cut off: the base ``eof`` ends it as ``stream_incomplete``;
- a non-streaming body (one response object, or the JSON array ``streamGenerateContent``
  sends without ``alt=sse``) is replayed chunk by chunk (``whole_payloads``);
- an ``error`` payload ends the stream with the classified ``ErrorEvent``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Literal

import msgspec

from earshot.providers.errors import ProviderError
from earshot.providers.sse import SSEEvent
from earshot.providers.types import (
    FinishReason,
    ImagePart,
    JSONObject,
    JSONValue,
    StreamEvent,
    Usage,
)
from earshot.providers.wire.base import MalformedEvent, ParserBase
from earshot.providers.wire.gemini._events import (
    Chunk,
    ErrorBody,
    FunctionCall,
    Part,
    PartialArg,
    UsageMetadata,
    chunk_decoder,
)

ErrorMapper = Callable[[ErrorBody], ProviderError]

_REFUSALS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)


def map_finish_reason(reason: str) -> FinishReason:
    """STOP (and the unused UNSPECIFIED) -> stop, MAX_TOKENS -> length, content blocks ->
    refusal; anything else (MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, LANGUAGE, OTHER,
    unknown values) -> error. The assembler turns stop into tool_calls when calls were
    made; the raw value is always kept as ``vendor_reason``."""
    if reason in ("STOP", "FINISH_REASON_UNSPECIFIED"):
        return "stop"
    if reason == "MAX_TOKENS":
        return "length"
    if reason in _REFUSALS:
        return "refusal"
    return "error"


def usage_from(meta: UsageMetadata) -> Usage:
    """``promptTokenCount`` includes cached tokens; ``thoughtsTokenCount`` is separate from
    ``candidatesTokenCount`` and billed as output; ``toolUsePromptTokenCount`` (tool results
    Gemini fetched itself) is separate from the prompt count and billed as input."""
    prompt = meta.promptTokenCount or 0
    cached = meta.cachedContentTokenCount or 0
    thoughts = meta.thoughtsTokenCount or 0
    return Usage(
        input=max(0, prompt - cached) + (meta.toolUsePromptTokenCount or 0),
        output=(meta.candidatesTokenCount or 0) + thoughts,
        cache_read=cached,
        reasoning=thoughts,
    )


class _StreamedCall:
    """A call whose arguments arrive as ``partialArgs`` fragments."""

    __slots__ = ("args", "continuing", "key")

    def __init__(self, key: int) -> None:
        self.key = key
        self.args: JSONObject = {}
        self.continuing: str | None = None  # the path whose string value is still open

    def apply(self, fragment: PartialArg) -> None:
        path = _parse_path(fragment.jsonPath)
        value: JSONValue
        if fragment.stringValue is not None:
            value = fragment.stringValue
            if self.continuing == fragment.jsonPath:
                previous = _get(self.args, path)
                if isinstance(previous, str):
                    value = previous + value
        elif fragment.numberValue is not None:
            number = fragment.numberValue
            value = int(number) if number.is_integer() else number
        elif fragment.boolValue is not None:
            value = fragment.boolValue
        else:
            value = None
        _set(self.args, path, value)
        self.continuing = fragment.jsonPath if fragment.willContinue else None


class GeminiParser(ParserBase):
    terminal = "a candidate with a finishReason"

    def __init__(self, provider: str, errors: ErrorMapper) -> None:
        super().__init__(provider)
        self._errors = errors
        self._finish: tuple[FinishReason, str] | None = None
        self._usage: Usage | None = None
        self._calls = 0
        self._call_prefix = f"gemini-call-{secrets.token_hex(4)}"
        self._open: _StreamedCall | None = None

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        try:
            chunk: Chunk = chunk_decoder.decode(event.data)
        except msgspec.DecodeError as exc:
            snippet = event.data[:120]
            raise MalformedEvent(
                f"malformed stream event from Gemini ({exc}): {snippet!r}"
            ) from exc
        if chunk.error is not None:
            return self.asm.fail(self._errors(chunk.error))
        out: list[StreamEvent] = []
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is not None:
            if candidate.content is not None:
                for part in candidate.content.parts:
                    out.extend(self._part(part))
            if candidate.finishReason:
                self._finish = (map_finish_reason(candidate.finishReason), candidate.finishReason)
        elif chunk.promptFeedback is not None and chunk.promptFeedback.blockReason:
            self._finish = ("refusal", chunk.promptFeedback.blockReason)
        if chunk.usageMetadata is not None and chunk.usageMetadata.has_counts:
            usage = usage_from(chunk.usageMetadata)
            if usage != self._usage:
                self._usage = usage
                out.extend(self.asm.set_usage(usage))
        return out

    # --- parts ---------------------------------------------------------------------------------

    def _part(self, part: Part) -> list[StreamEvent]:
        signature = part.thoughtSignature
        meta: dict[str, JSONValue] = {"thoughtSignature": signature} if signature else {}
        if part.functionCall is not None:
            return self._function_call(part.functionCall, meta)
        out = self._close_open_call()
        if part.inlineData is not None:
            image_meta: dict[str, JSONValue] = {self.asm.provider: meta} if meta else {}
            self.asm.add_part(
                ImagePart(
                    media_type=part.inlineData.mimeType,
                    data=part.inlineData.data,
                    provider_metadata=image_meta,
                )
            )
            return out
        text = part.text or ""
        if not text and not meta:
            return out  # an empty unsigned part, or a kind we do not model (executableCode)
        kind: Literal["text", "reasoning"] = "reasoning" if part.thought else "text"
        if not meta:
            out.extend(self.asm.text(text) if kind == "text" else self.asm.reasoning(text))
            return out
        if not text:
            self.asm.end_run()  # a signed empty part stands alone, after what came before
        out.extend(self.asm.text(text) if kind == "text" else self.asm.reasoning(text))
        self.asm.metadata(kind, None, meta)
        self.asm.end_run()
        return out

    def _function_call(self, call: FunctionCall, meta: dict[str, JSONValue]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        streamed = self._open
        if streamed is not None and call.name:
            out.extend(self._close_open_call())  # a new call began without closing the last
            streamed = None
        if streamed is None:
            if not call.name:
                return out  # a stray closing ``{}`` with nothing open
            key = self._calls
            self._calls += 1
            call_meta = dict(meta)
            if call.id:
                call_meta["id"] = call.id
            call_id = call.id or f"{self._call_prefix}-{key}"
            out.extend(self.asm.tool_start(key, call_id, call.name, call_meta))
            if not call.willContinue and not call.partialArgs:
                args: JSONObject = call.args or {}
                if args:
                    out.extend(self.asm.tool_delta(key, _dumps(args)))
                out.extend(self.asm.tool_end(key, value=args))
                return out
            streamed = _StreamedCall(key)
            if call.args:
                streamed.args.update(call.args)
            self._open = streamed
        elif meta:
            self.asm.metadata("tool", streamed.key, meta)
        for fragment in call.partialArgs or []:
            streamed.apply(fragment)
        if not call.willContinue:
            out.extend(self._close_open_call())
        return out

    def _close_open_call(self, *, complete: bool = True) -> list[StreamEvent]:
        streamed = self._open
        if streamed is None:
            return []
        self._open = None
        text = _dumps(streamed.args)
        if not complete:
            # Arguments cut off mid-stream: keep them as text, not as an object, so the loop
            # reports them as invalid instead of running the tool with half its input.
            return self.asm.tool_end(streamed.key, value=text)
        out: list[StreamEvent] = []
        if streamed.args:
            out.extend(self.asm.tool_delta(streamed.key, text))
        out.extend(self.asm.tool_end(streamed.key, value=streamed.args))
        return out

    # --- the end -------------------------------------------------------------------------------

    def close(self) -> list[StreamEvent]:
        if self._finish is None:
            out = self._close_open_call(complete=False)
            return out + self.asm.eof(self.terminal)
        out = self._close_open_call()
        reason, vendor = self._finish
        return out + self.asm.finish(reason, vendor)

    def whole_payloads(self, body: JSONValue) -> list[JSONValue] | None:
        """A non-streaming answer: one GenerateContentResponse, or the JSON array of them
        that ``streamGenerateContent`` sends without ``alt=sse``; each is one chunk."""
        items = body if isinstance(body, list) else [body]
        if not items or not all(isinstance(item, dict) for item in items):
            return None
        known = ("candidates", "promptFeedback", "usageMetadata", "error")
        if not any(key in item for item in items if isinstance(item, dict) for key in known):
            return None
        return list(items)

    def fail(self, error: ProviderError) -> list[StreamEvent]:
        if self._finish is not None:
            return self.close()
        return self.asm.fail(error)


def _dumps(value: JSONValue) -> str:
    return msgspec.json.encode(value).decode()


# --- JSON paths for partialArgs -----------------------------------------------------------------

_SEGMENT = re.compile(
    r"\.(?P<name>[^.\[\]]+)|\[(?P<index>\d+)\]|\['(?P<sq>(?:[^'\\]|\\.)*)'\]"
    r'|\["(?P<dq>(?:[^"\\]|\\.)*)"\]'
)
PathKey = str | int


def _parse_path(path: str) -> list[PathKey]:
    """``$.a.b[0]['c d']`` as ``["a", "b", 0, "c d"]``; ``MalformedEvent`` otherwise."""
    if not path.startswith("$"):
        raise MalformedEvent(f"Gemini sent a partial argument at an unreadable path {path!r}")
    keys: list[PathKey] = []
    pos = 1
    while pos < len(path):
        m = _SEGMENT.match(path, pos)
        if m is None:
            raise MalformedEvent(f"Gemini sent a partial argument at an unreadable path {path!r}")
        if m.group("index") is not None:
            keys.append(int(m.group("index")))
        else:
            raw = m.group("name") or m.group("sq") or m.group("dq") or ""
            keys.append(re.sub(r"\\(.)", r"\1", raw) if m.group("name") is None else raw)
        pos = m.end()
    if not keys:
        raise MalformedEvent("Gemini sent a partial argument for the whole arguments object")
    return keys


def _get(root: JSONObject, path: list[PathKey]) -> JSONValue:
    node: JSONValue = root
    for key in path:
        if isinstance(key, int) and isinstance(node, list) and key < len(node):
            node = node[key]
        elif isinstance(key, str) and isinstance(node, dict):
            node = node.get(key)
        else:
            return None
    return node


def _set(root: JSONObject, path: list[PathKey], value: JSONValue) -> None:
    node: JSONValue = root
    for key, following in zip(path, [*path[1:], None], strict=True):
        last = following is None
        fresh: JSONValue = [] if isinstance(following, int) else {}
        if isinstance(key, int):
            if not isinstance(node, list):
                raise MalformedEvent("Gemini sent partial arguments that index a non-array")
            while len(node) <= key:
                node.append(None)
            if last:
                node[key] = value
            elif not isinstance(node[key], dict | list):
                node[key] = fresh
            node = node[key]
        else:
            if not isinstance(node, dict):
                raise MalformedEvent(
                    "Gemini sent partial arguments that name a field of a non-object"
                )
            if last:
                node[key] = value
            elif not isinstance(node.get(key), dict | list):
                node[key] = fresh
            node = node[key]


__all__ = ["ErrorMapper", "GeminiParser", "map_finish_reason", "usage_from"]
