"""``Assembler``: the one place that turns an adapter's observations into stream events and
the final assistant message, so every adapter keeps the same invariants.

Invariants it holds for every adapter:

- exactly one terminal event (``Finish`` or ``ErrorEvent``); nothing is emitted after it;
- ``Finish.message`` holds the parts in the order they began, with their provider metadata
  namespaced under the adapter's provider id;
- empty text and reasoning runs with no metadata are dropped from the message;
- every ``ToolCallStart`` is followed by a ``ToolCallEnd`` before the terminal event, with
  arguments parsed as JSON (``""`` becomes ``{}``; unparseable text is kept as the raw string
  so the loop can tell the model its arguments were not valid JSON);
- on abort, tool calls whose arguments were still streaming are dropped from the message;
- a stream that ends without its terminal event is a ``stream_incomplete`` error (``eof``),
  never a ``Finish``: a cut answer must not pass for a whole one.

Parts are addressed by a key the adapter chooses (a content-block index, an output index, a
tool-call index). ``text``/``reasoning`` with ``key=None`` extend the last part when it is of
the same kind and also unkeyed.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from earshot.providers.errors import ProviderError
from earshot.providers.types import (
    ErrorEvent,
    Finish,
    FinishReason,
    JSONValue,
    Message,
    Part,
    ReasoningDelta,
    ReasoningPart,
    StreamEvent,
    TextDelta,
    TextPart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallPart,
    ToolCallStart,
    Usage,
    UsageEvent,
)

_Kind = Literal["text", "reasoning", "tool", "fixed"]


class _Builder:
    __slots__ = ("call_id", "chunks", "closed", "fixed", "key", "kind", "metadata", "name")

    def __init__(self, kind: _Kind, key: object) -> None:
        self.kind: _Kind = kind
        self.key = key
        self.chunks: list[str] = []
        self.metadata: dict[str, JSONValue] = {}
        self.call_id = ""
        self.name = ""
        self.closed = False
        self.fixed: Part | None = None


def parse_arguments(raw: str) -> JSONValue:
    """Tool-call arguments as a JSON value: ``""`` is ``{}``; invalid JSON stays a string."""
    if not raw.strip():
        return {}
    try:
        value: JSONValue = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return raw
    return value


class Assembler:
    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._parts: list[_Builder] = []
        self._usage = Usage()
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    @property
    def usage(self) -> Usage:
        return self._usage

    @property
    def has_tool_calls(self) -> bool:
        return any(b.kind == "tool" for b in self._parts)

    @property
    def has_output(self) -> bool:
        """Whether anything was emitted to the consumer (retry is no longer safe)."""
        return bool(self._parts)

    # --- content ----------------------------------------------------------------------------

    def _run(self, kind: _Kind, key: object) -> _Builder:
        if key is None:
            last = self._parts[-1] if self._parts else None
            if last is not None and last.kind == kind and last.key is None and not last.closed:
                return last
        else:
            for b in reversed(self._parts):
                if b.kind == kind and b.key == key:
                    return b
        b = _Builder(kind, key)
        self._parts.append(b)
        return b

    def text(self, text: str, *, key: object = None) -> list[StreamEvent]:
        if self._done:
            return []
        self._run("text", key).chunks.append(text)
        return [TextDelta(text=text)] if text else []

    def reasoning(self, text: str, *, key: object = None) -> list[StreamEvent]:
        if self._done:
            return []
        self._run("reasoning", key).chunks.append(text)
        return [ReasoningDelta(text=text)] if text else []

    def begin(self, kind: Literal["text", "reasoning"], *, key: object) -> None:
        """Open a keyed run now so that it keeps its position even if its text comes later."""
        if not self._done:
            self._run(kind, key)

    def end_run(self) -> None:
        """Close the current unkeyed run: the next unkeyed text starts a new part."""
        if self._parts:
            self._parts[-1].closed = True

    def metadata(
        self, kind: Literal["text", "reasoning", "tool"], key: object, values: dict[str, JSONValue]
    ) -> None:
        """Merge ``values`` into this provider's metadata namespace of a part (opening it)."""
        if self._done:
            return
        if kind == "tool":
            b = self._tool(key)
            if b is None:
                return
        else:
            b = self._run(kind, key)
        b.metadata.update(values)

    def add_part(self, part: Part) -> None:
        """Append a part that arrived whole (redacted thinking, an opaque reasoning item)."""
        if self._done:
            return
        b = _Builder("fixed", None)
        b.fixed = part
        b.closed = True
        self._parts.append(b)

    # --- tool calls ---------------------------------------------------------------------------

    def _tool(self, key: object) -> _Builder | None:
        for b in reversed(self._parts):
            if b.kind == "tool" and b.key == key:
                return b
        return None

    def has_tool(self, key: object) -> bool:
        return self._tool(key) is not None

    def tool_start(
        self, key: object, call_id: str, name: str, metadata: dict[str, JSONValue] | None = None
    ) -> list[StreamEvent]:
        if self._done:
            return []
        b = _Builder("tool", key)
        b.call_id = call_id
        b.name = name
        if metadata:
            b.metadata.update(metadata)
        self._parts.append(b)
        return [ToolCallStart(id=call_id, name=name)]

    def tool_delta(self, key: object, fragment: str) -> list[StreamEvent]:
        b = self._tool(key)
        if self._done or b is None or b.closed or not fragment:
            return []
        b.chunks.append(fragment)
        return [ToolCallDelta(id=b.call_id, arguments=fragment)]

    def tool_end(
        self, key: object, *, arguments: str | None = None, value: JSONValue = None
    ) -> list[StreamEvent]:
        """Close a tool call. ``arguments`` replaces the streamed text when the vendor sends
        the whole string at the end; ``value`` gives already-parsed arguments."""
        b = self._tool(key)
        if self._done or b is None or b.closed:
            return []
        b.closed = True
        if value is not None:
            b.fixed = self._call(b, value)
        else:
            if arguments is not None:
                b.chunks = [arguments]
            b.fixed = self._call(b, parse_arguments("".join(b.chunks)))
        assert isinstance(b.fixed, ToolCallPart)
        return [ToolCallEnd(call=b.fixed)]

    def _call(self, b: _Builder, value: JSONValue) -> ToolCallPart:
        md: dict[str, JSONValue] = {self.provider: dict(b.metadata)} if b.metadata else {}
        return ToolCallPart(id=b.call_id, name=b.name, input=value, provider_metadata=md)

    # --- usage and the end ----------------------------------------------------------------------

    def set_usage(self, usage: Usage) -> list[StreamEvent]:
        if self._done:
            return []
        self._usage = usage
        return [UsageEvent(usage=usage)]

    def message(self, *, complete_only: bool = False) -> Message:
        parts: list[Part] = []
        for b in self._parts:
            md: dict[str, JSONValue] = {self.provider: dict(b.metadata)} if b.metadata else {}
            if b.kind == "fixed" and b.fixed is not None:
                parts.append(b.fixed)
            elif b.kind == "tool":
                if b.fixed is not None:
                    parts.append(b.fixed)
                elif not complete_only:
                    parts.append(self._call(b, parse_arguments("".join(b.chunks))))
            elif b.kind == "text":
                text = "".join(b.chunks)
                if text or md:
                    parts.append(TextPart(text=text, provider_metadata=md))
            elif b.kind == "reasoning":
                text = "".join(b.chunks)
                if text or md:
                    parts.append(ReasoningPart(text=text, provider_metadata=md))
        return Message(role="assistant", parts=parts)

    def finish(self, reason: FinishReason, vendor_reason: str | None = None) -> list[StreamEvent]:
        """Close open tool calls, then the terminal ``Finish``."""
        if self._done:
            return []
        out: list[StreamEvent] = []
        for b in self._parts:
            if b.kind == "tool" and not b.closed:
                out.extend(self.tool_end(b.key))
        if reason == "stop" and self.has_tool_calls:
            reason = "tool_calls"
        self._done = True
        out.append(
            Finish(
                reason=reason,
                message=self.message(),
                usage=self._usage,
                vendor_reason=vendor_reason,
            )
        )
        return out

    def fail(self, error: ProviderError) -> list[StreamEvent]:
        if self._done:
            return []
        self._done = True
        partial = self.message(complete_only=True) if self._parts else None
        usage = self._usage if self._usage != Usage() else None
        event: ErrorEvent = error.to_event(partial, usage)
        return [event]

    def abort(self) -> list[StreamEvent]:
        if self._done:
            return []
        self._done = True
        return [
            Finish(
                reason="aborted",
                message=self.message(complete_only=True),
                usage=self._usage,
                vendor_reason=None,
            )
        ]

    def eof(self, terminal: str) -> list[StreamEvent]:
        """The vendor's stream ended cleanly without its terminal event (``terminal`` names
        it): the answer was cut off, so this is a ``stream_incomplete`` error, never a
        finish. Its ``partial`` keeps what arrived (complete tool calls only); the driver
        retries it when nothing was shown yet."""
        if self._done:
            return []
        return self.fail(
            ProviderError(
                "stream_incomplete",
                f"{self.provider}: the answer was cut off: the stream ended without {terminal}",
                retryable=True,
            )
        )


__all__ = ["Assembler", "parse_arguments"]
