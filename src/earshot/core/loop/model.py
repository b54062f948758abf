"""The model port's implementations: what the loop calls to stream one model call.

::

    ModelClient (core.ports)   stream(request, target) -> StreamEvents, exactly one terminal
                               event (Finish or ErrorEvent) last
    ProviderModel              the providers: wire, transport, retries (providers.stream)
    ScriptedModel              replies from a script, no I/O: for tests about the loop and
                               for callers that drive the loop without a provider

A scripted reply is an assistant ``Message`` (text, reasoning and tool-call parts, streamed
as deltas and then finished), or an ``ErrorEvent`` (the call failed). Each call takes the
next reply and records its request; a call with no reply left is an error event that says
so. An abort set before or during the call finishes it as ``aborted``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

import anyio
import msgspec

from earshot.providers import types as pt
from earshot.providers.retry import RetryPolicy
from earshot.providers.target import Target

if TYPE_CHECKING:
    from earshot.providers.http import Timeouts
    from earshot.providers.transport import Transport


class ProviderModel(msgspec.Struct):
    """The real model: ``providers.stream`` over a transport (None: the shared one for the
    call's URL), a retry policy and the timeouts."""

    client: Transport | None = None
    retry: RetryPolicy | None = None
    timeouts: Timeouts | None = None

    def stream(self, request: pt.ModelRequest, target: Target) -> AsyncIterator[pt.StreamEvent]:
        from earshot.providers.stream import stream

        return stream(request, target, client=self.client, retry=self.retry, timeouts=self.timeouts)


ScriptedReply = pt.Message | pt.ErrorEvent


class ScriptedModel(msgspec.Struct):
    """Answers each call with the next reply of ``replies``; ``requests`` keeps what was
    asked. ``usage`` is reported for every finished call; ``delay`` (seconds) passes
    between streamed parts, so an abort can land mid-stream."""

    replies: list[ScriptedReply]
    usage: pt.Usage = msgspec.field(default_factory=lambda: pt.Usage(input=10, output=5))
    delay: float = 0.0
    requests: list[pt.ModelRequest] = msgspec.field(default_factory=list)

    @classmethod
    def of(cls, *replies: ScriptedReply | str, delay: float = 0.0) -> ScriptedModel:
        """Replies as given; a ``str`` is an assistant message of that text."""
        return cls([text(r) if isinstance(r, str) else r for r in replies], delay=delay)

    async def stream(
        self, request: pt.ModelRequest, target: Target
    ) -> AsyncIterator[pt.StreamEvent]:
        self.requests.append(request)
        abort = request.abort
        if not self.replies:
            yield pt.ErrorEvent(
                kind="invalid_request", message="the script has no reply left", retryable=False
            )
            return
        reply = self.replies.pop(0)
        if isinstance(reply, pt.ErrorEvent):
            yield reply
            return
        shown: list[pt.Part] = []
        for part in reply.parts:
            if self.delay:
                await anyio.sleep(self.delay)
            if abort is not None and abort.is_set():
                partial = pt.Message(role="assistant", parts=shown)
                yield pt.Finish(reason="aborted", message=partial, usage=pt.Usage())
                return
            if isinstance(part, pt.TextPart):
                yield pt.TextDelta(text=part.text)
            elif isinstance(part, pt.ReasoningPart):
                yield pt.ReasoningDelta(text=part.text)
            elif isinstance(part, pt.ToolCallPart):
                yield pt.ToolCallStart(id=part.id, name=part.name)
                yield pt.ToolCallEnd(call=part)
            shown.append(part)
        calls = any(isinstance(p, pt.ToolCallPart) for p in reply.parts)
        yield pt.Finish(reason="tool_calls" if calls else "stop", message=reply, usage=self.usage)


def text(value: str) -> pt.Message:
    """An assistant reply of plain text."""
    return pt.Message(role="assistant", parts=[pt.TextPart(text=value)])


def calls(*parts: pt.ToolCallPart, say: str = "") -> pt.Message:
    """An assistant reply that calls tools (after ``say``, when given)."""
    lead: Sequence[pt.Part] = [pt.TextPart(text=say)] if say else []
    return pt.Message(role="assistant", parts=[*lead, *parts])


def call(call_id: str, name: str, **args: pt.JSONValue) -> pt.ToolCallPart:
    return pt.ToolCallPart(id=call_id, name=name, input=dict(args))


__all__ = ["ProviderModel", "ScriptedModel", "ScriptedReply", "call", "calls", "text"]
