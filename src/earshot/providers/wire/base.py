"""What a wire adapter is.

A ``Wire`` turns a ``ModelRequest`` into one HTTP call (``build_call``: URL, extra headers
and the final body bytes), names its ``framing`` (SSE, or AWS event-stream), turns the
vendor's events back into ``StreamEvent``s (``parser``), and maps an HTTP error answer onto
the taxonomy (``error_from_response``). It does no I/O and writes no credential:
``providers.stream`` owns the shared httpx client, retries, abort and the frame decoders,
and ``providers.auth_headers`` adds the credential for ``target.auth`` to the final request
(SigV4 signs it), so every adapter gets them the same way and each adapter's request body
can be pinned by a test without a server.

A ``StreamParser`` holds one call's state. ``feed`` returns the events an SSE event
completes; ``close`` is called at end of stream and returns the terminal event if none was
produced yet (a stream that never sent its terminal event ends as ``stream_incomplete``).
After a terminal event (``Finish`` or ``ErrorEvent``) both return ``[]``. ``whole`` turns a
non-streaming JSON response (a gateway that ignored ``stream: true``) into the SSE events the
same answer would have streamed as, so it goes through ``feed`` like any stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

import msgspec

from earshot.providers.errors import ProviderError
from earshot.providers.sse import SSEEvent
from earshot.providers.target import Target, WireName
from earshot.providers.types import JSONObject, JSONValue, ModelRequest, StreamEvent
from earshot.providers.wire.assemble import Assembler

Framing = Literal["sse", "aws-event-stream"]
"""How a wire's streamed answer is framed: Server-Sent Events, or AWS event-stream binary
messages (each handed to the parser as an ``SSEEvent`` named by its event type)."""


class HttpCall(msgspec.Struct, frozen=True, kw_only=True):
    """One request to send, final: ``body`` is the exact bytes (a signature covers them).
    The credential is not here: ``providers.auth_headers`` adds it to the final request.
    ``headers`` may carry user-set extras, so they are left out of the repr. A Struct, not
    a dataclass: the adapters load before every first request, and a dataclass compiles
    its generated methods at import (0.8 ms)."""

    url: str
    headers: Mapping[str, str]
    body: bytes
    method: str = "POST"
    params: Mapping[str, str] = msgspec.field(default_factory=dict)

    def __repr__(self) -> str:  # every field but the headers
        return (
            f"HttpCall(url={self.url!r}, body={self.body!r}, method={self.method!r}, "
            f"params={self.params!r})"
        )

    def json(self) -> JSONObject:
        """The body decoded (for tests and snapshots)."""
        value: JSONObject = _object_decoder.decode(self.body)
        return value


def encode_json(body: JSONObject) -> bytes:
    return msgspec.json.encode(body)


class StreamParser(Protocol):
    @property
    def done(self) -> bool:
        """Whether a terminal event has been produced."""
        ...

    def feed(self, event: SSEEvent) -> list[StreamEvent]: ...

    def close(self) -> list[StreamEvent]: ...

    def whole(self, body: bytes) -> list[SSEEvent] | None:
        """The stream events a whole (non-streaming) response body stands for, or None when
        the body is not this wire's response."""
        ...

    def abort(self) -> list[StreamEvent]:
        """The caller aborted: the terminal ``Finish(reason="aborted")`` with what was
        complete so far."""
        ...

    def fail(self, error: ProviderError) -> list[StreamEvent]:
        """The transport failed mid-stream: the terminal ``ErrorEvent``."""
        ...


class ParserBase:
    """A ``StreamParser`` over an ``Assembler``: subclasses implement ``handle``.

    A ``data`` payload that is not valid JSON ends the stream with a retryable ``server``
    error (retried only if nothing was emitted yet); it is never skipped silently.
    """

    terminal = "its terminal event"
    """What ends this vendor's stream, for the ``stream_incomplete`` message."""

    def __init__(self, provider: str) -> None:
        self.asm = Assembler(provider)

    @property
    def done(self) -> bool:
        return self.asm.done

    def feed(self, event: SSEEvent) -> list[StreamEvent]:
        if self.asm.done:
            return []
        try:
            return self.handle(event)
        except MalformedEvent as exc:
            return self.asm.fail(ProviderError("server", str(exc), retryable=True))

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        raise NotImplementedError

    def close(self) -> list[StreamEvent]:
        return self.asm.eof(self.terminal)

    def abort(self) -> list[StreamEvent]:
        return self.asm.abort()

    def whole(self, body: bytes) -> list[SSEEvent] | None:
        try:
            value: JSONValue = msgspec.json.decode(body)
        except msgspec.DecodeError:
            return None
        payloads = self.whole_payloads(value)
        if payloads is None:
            return None
        return [
            SSEEvent("message", p if isinstance(p, str) else msgspec.json.encode(p).decode())
            for p in payloads
        ]

    def whole_payloads(self, body: JSONValue) -> list[JSONValue] | None:
        """The stream's ``data`` payloads for a decoded non-streaming body (per wire)."""
        return None

    def fail(self, error: ProviderError) -> list[StreamEvent]:
        return self.asm.fail(error)


class MalformedEvent(Exception):
    """Raised by ``handle`` (or ``decode_object``) for an event it cannot read."""


def decode_object(data: str | bytes) -> JSONObject:
    """A JSON object from an event's data, or ``MalformedEvent`` naming the problem."""
    try:
        value: JSONObject = _object_decoder.decode(data)
    except msgspec.DecodeError as exc:
        snippet = data[:120] if isinstance(data, str) else data[:120].decode("utf-8", "replace")
        raise MalformedEvent(f"malformed stream event from provider ({exc}): {snippet!r}") from exc
    return value


_object_decoder = msgspec.json.Decoder(dict[str, Any])


class Wire(Protocol):
    @property
    def name(self) -> WireName: ...

    @property
    def framing(self) -> Framing: ...

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall: ...

    def parser(self, request: ModelRequest, target: Target) -> StreamParser: ...

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError: ...


__all__ = [
    "Framing",
    "HttpCall",
    "MalformedEvent",
    "ParserBase",
    "StreamParser",
    "Wire",
    "decode_object",
    "encode_json",
]
