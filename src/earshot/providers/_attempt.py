"""One HTTP attempt of a model call, for ``providers.stream`` (whose docstring holds the
contracts this keeps): sign, send, classify an error status, decode the body into the
parser's events, and end the stream or hand a retryable failure back.

Abort: one watcher per attempt (a task awaiting ``request.abort``) closes the exchange's
connection when the event is set, so the pending ``start`` or ``chunk`` returns at once
and every read is a plain await; after each await the event is checked, and a set event
ends the stream as aborted whatever the await returned.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Generic, TypeVar, assert_never

import anyio
import msgspec

from earshot._base.aio import race
from earshot.providers._netfail import seconds_text, size_text, transport_error
from earshot.providers.auth_headers import auth_headers, key_headers
from earshot.providers.errors import ProviderError, redact
from earshot.providers.http import Timeouts
from earshot.providers.retry import RetryPolicy
from earshot.providers.sse import SSEDecoder, SSEEvent
from earshot.providers.target import Target
from earshot.providers.transport import Exchange, Transport
from earshot.providers.types import (
    ErrorEvent,
    Finish,
    Message,
    ModelRequest,
    StreamEvent,
    Usage,
    UsageEvent,
)
from earshot.providers.wire.base import Framing, HttpCall, StreamParser, Wire

if TYPE_CHECKING:
    from earshot.providers.eventstream import EventStreamFrames

T = TypeVar("T")


class _Outcome(Generic[T]):
    __slots__ = ("aborted", "error", "value")

    def __init__(self) -> None:
        self.value: T | None = None
        self.error: BaseException | None = None
        self.aborted = False


async def _race(fn: Callable[[], Awaitable[T]], abort: anyio.Event | None) -> _Outcome[T]:
    """``race`` with the failure captured (the driver decides what a failure means)."""
    outcome: _Outcome[T] = _Outcome()
    try:
        outcome.value, outcome.aborted = await race(fn, abort)
    except Exception as exc:
        outcome.error = exc
    return outcome


_FIRST_BYTES = 160
_DRAIN_S = 0.2
"""How long a finished answer's remaining bytes (the end of the chunked body, normally
already received) are waited for, so its connection can serve the next request: ample for
bytes the server sends right after the terminal event (even from a busy machine), short
beside a model call for a server that holds the body open."""
_BOM = b"\xef\xbb\xbf"

# Headers a client stack may add or rewrite after signing: never part of a signature.
_UNSIGNED = frozenset({"host", "user-agent", "content-length", "accept-encoding", "connection"})


async def _credential(
    method: str, url: str, headers: Mapping[str, str], body: bytes, target: Target
) -> dict[str, str]:
    """The credential for the final request (signatures cover its URL and body bytes)."""
    signed = {k: v for k, v in headers.items() if k not in _UNSIGNED}
    return await auth_headers(target, method=method, url=url, headers=signed, body=body)


def _decoder(framing: Framing) -> SSEDecoder | EventStreamFrames:
    match framing:
        case "sse":
            return SSEDecoder()
        case "aws-event-stream":
            from earshot.providers.eventstream import EventStreamFrames

            return EventStreamFrames()
        case _:
            assert_never(framing)


def aborted() -> Finish:
    return Finish(reason="aborted", message=Message(role="assistant", parts=[]), usage=Usage())


def retry_reason(error: ProviderError) -> str:
    """A few words for a status line: why a call is being retried."""
    match error.kind:
        case "rate_limit":
            return "rate limited"
        case "server":
            if error.status == 529:
                return "overloaded"
            return f"server error {error.status}" if error.status else "server error"
        case "stream_incomplete":
            return "answer cut off"
        case "network":
            return "network error"
        case _:
            return error.kind.replace("_", " ")


def _not_an_answer(provider: str, content_type: str, first: bytes, wire: str) -> ProviderError:
    shown = first[:_FIRST_BYTES].decode("utf-8", "replace")
    return ProviderError(
        "server",
        f"{provider}: the provider answered 200 with a body that is neither an event stream "
        f"nor a JSON answer of the {wire} wire (content type {content_type or 'not given'}; "
        f"first bytes: {shown!r})",
        retryable=False,
        status=200,
    )


def _set(abort: anyio.Event | None) -> bool:
    return abort is not None and abort.is_set()


def _on_abort(exchange: Exchange, watcher: asyncio.Task[None]) -> None:
    if not watcher.cancelled():
        exchange.abort()


def _watch(abort: anyio.Event | None, exchange: Exchange) -> asyncio.Task[None] | None:
    """The attempt's abort watcher: closes ``exchange`` once ``abort`` is set."""
    if abort is None:
        return None
    watcher = asyncio.get_running_loop().create_task(abort.wait())
    watcher.add_done_callback(partial(_on_abort, exchange))
    return watcher


async def _read_all(exchange: Exchange) -> bytes:
    parts: list[bytes] = []
    while chunk := await exchange.chunk():
        parts.append(chunk)
    return b"".join(parts)


async def _drain(exchange: Exchange) -> None:
    """Read the rest of a finished answer's body (briefly), so closing the exchange hands
    its connection back to the pool: the next request of the turn then skips a new TCP and
    TLS handshake. A server that keeps the body open is cut off as before."""
    with anyio.move_on_after(_DRAIN_S):
        try:
            while await exchange.chunk():
                pass
        except Exception:
            pass  # the answer is complete; the connection is simply not reused


class Attempt:
    """One HTTP attempt. Iterate ``events()``; afterwards ``failure`` is set when the attempt
    failed before showing anything and the policy allows another (``(error, reason,
    delay)``), else the attempt already yielded its terminal event."""

    def __init__(
        self,
        *,
        wire: Wire,
        call: HttpCall,
        url: str,
        request: ModelRequest,
        target: Target,
        http: Transport,
        headers: dict[str, str],
        body: bytes,
        timeouts: Timeouts,
        policy: RetryPolicy,
        attempt: int,
    ) -> None:
        self.wire, self.call, self.url, self.request = wire, call, url, request
        self.target, self.http, self.headers, self.body = target, http, headers, body
        self.timeouts, self.policy, self.attempt = timeouts, policy, attempt
        self.parser: StreamParser = wire.parser(request, target)
        self.failure: tuple[ProviderError, str, float] | None = None
        self.shown = False
        self.stopped = False
        self.finished = False
        """The answer ended with its ``Finish``: the rest of the body can be read off."""
        self.received = 0

    def _give_up_or_retry(self, error: ProviderError, reason: str) -> list[StreamEvent]:
        """A failure before anything was shown: retry it, or end with it."""
        self.stopped = True
        delay = self.policy.delay(self.attempt, error)
        if delay is None:
            wait = error.retry_after
            if error.retryable and wait is not None and wait > self.policy.max_retry_after:
                error.message += (
                    f" (the provider asked to wait {seconds_text(wait)}; earshot waits at most "
                    f"{seconds_text(self.policy.max_retry_after)} before retrying, so it stopped)"
                )
            return [error.to_event()]
        self.failure = (error, reason, delay)
        return []

    def _transport(self, exc: BaseException, received: int | None) -> list[StreamEvent]:
        """A transport failure: retried or ended with before anything was shown, else the
        parser's terminal error with the partial answer."""
        error, reason = transport_error(
            exc,
            provider=self.target.provider,
            url=self.call.url,
            received=received,
            connect_timeout=self.timeouts.connect,
            idle_timeout=self.timeouts.idle,
            secrets=self.target.secrets(),
            base_url=self.target.base_url,
        )
        if self.shown:
            return self.parser.fail(error)
        return self._give_up_or_retry(error, reason)

    def _take(self, events: list[StreamEvent]) -> list[StreamEvent]:
        """The parser's events to pass on, stopping at the terminal one; a retryable error
        before anything was shown becomes a retry instead."""
        out: list[StreamEvent] = []
        for event in events:
            if isinstance(event, ErrorEvent) and not self.shown:
                error = ProviderError.from_event(event)
                return out + self._give_up_or_retry(error, retry_reason(error))
            if not isinstance(event, UsageEvent):
                self.shown = True
            out.append(event)
            if isinstance(event, Finish | ErrorEvent):
                self.stopped = True
                self.finished = isinstance(event, Finish)
                return out
        return out

    def _closing(self) -> list[StreamEvent]:
        events = self.parser.close()
        sized: list[StreamEvent] = []
        for event in events:
            if isinstance(event, ErrorEvent) and event.kind == "stream_incomplete":
                got = size_text(self.received)
                event = msgspec.structs.replace(event, message=f"{event.message}, after {got}")
            sized.append(event)
        return self._take(sized)

    async def _signed(self) -> dict[str, str] | StreamEvent:
        """The headers to send, the credential added; or the event that ends the stream
        (aborted while signing, or no credential)."""
        abort = self.request.abort
        known = key_headers(self.target)
        if known is not None:  # a key (or nothing): no I/O to race against the abort
            return self._with(known)

        async def sign() -> dict[str, str]:
            return await _credential(
                self.call.method, self.url, self.headers, self.body, self.target
            )

        signed = await _race(sign, abort)
        if signed.aborted:
            return aborted()
        if signed.error is not None or signed.value is None:
            failure = signed.error
            if not isinstance(failure, ProviderError):
                detail = redact(f"{type(failure).__name__}: {failure}", self.target.secrets())
                failure = ProviderError("auth", f"{self.target.provider}: credentials: {detail}")
            self.stopped = True
            return failure.to_event()
        return self._with(signed.value)

    def _with(self, credential: dict[str, str]) -> dict[str, str]:
        """The headers with the credential added; a header the user configured (a
        gateway's own auth) wins over it."""
        if not credential:
            return self.headers
        configured = {name.lower() for name in self.target.headers}
        given = {k.lower(): v for k, v in credential.items()}
        return {**self.headers, **{k: v for k, v in given.items() if k not in configured}}

    async def events(self) -> AsyncIterator[StreamEvent]:
        abort = self.request.abort
        if _set(abort):
            yield aborted()
            return
        headers = await self._signed()
        if not isinstance(headers, dict):
            yield headers
            return
        try:
            exchange = self.http.exchange(
                self.call.method, self.url, headers, self.body, self.timeouts
            )
        except ValueError as exc:  # a URL or header no request can carry: no retry helps
            detail = redact(str(exc), self.target.secrets())
            self.stopped = True
            yield ProviderError(
                "invalid_request", f"{self.target.provider}: the request cannot be sent: {detail}"
            ).to_event()
            return
        watcher = _watch(abort, exchange)
        try:
            try:
                await exchange.start()
            except Exception as exc:
                if _set(abort):
                    yield aborted()
                    return
                for event in self._transport(exc, None):
                    yield event
                return
            if _set(abort):
                yield aborted()
                return
            if exchange.status >= 400:
                async for event in self._error_status(exchange):
                    yield event
                return
            async for event in self._body(exchange):
                yield event
        finally:
            if watcher is not None:
                watcher.cancel()
            await exchange.aclose()

    async def _error_status(self, exchange: Exchange) -> AsyncIterator[StreamEvent]:
        failure: Exception | None = None
        try:
            raw = await _read_all(exchange)
        except Exception as exc:
            raw, failure = b"", exc
        if _set(self.request.abort):
            yield aborted()
            return
        if failure is not None:
            for event in self._transport(failure, 0):
                yield event
            return
        error = self.wire.error_from_response(exchange.status, exchange.headers, raw, self.target)
        for event in self._give_up_or_retry(error, retry_reason(error)):
            yield event

    async def _body(self, exchange: Exchange) -> AsyncIterator[StreamEvent]:
        abort = self.request.abort
        parser = self.parser
        decoder = _decoder(self.wire.framing)
        # "" until the first non-blank byte decides: "json" or "sse" (a binary framing is
        # never a whole JSON answer: its frames start with their length)
        mode = "" if self.wire.framing == "sse" else "sse"
        held = bytearray()  # the body while its form is undecided, or the whole JSON answer
        first = b""
        dispatched = False
        while not self.stopped:
            try:
                chunk = await exchange.chunk()
            except Exception as exc:
                if _set(abort):
                    for event in parser.abort():
                        yield event
                    return
                for event in self._transport(exc, self.received):
                    yield event
                return
            if _set(abort):
                for event in parser.abort():
                    yield event
                return
            if not chunk:
                break
            self.received += len(chunk)
            if len(first) < _FIRST_BYTES:
                first += chunk[: _FIRST_BYTES - len(first)]
            if not mode:
                held += chunk
                start = bytes(held.lstrip().removeprefix(_BOM).lstrip()[:1])
                if not start:
                    continue
                mode = "json" if start in (b"{", b"[") else "sse"
                if mode == "json":
                    continue
                chunk = bytes(held)
                held.clear()
            if mode == "json":
                held += chunk
                continue
            sse_events = decoder.feed(chunk)
            dispatched = dispatched or bool(sse_events)
            for event in self._feed(sse_events):
                yield event
        if self.stopped:
            if self.finished:
                await _drain(exchange)
            return
        content_type = exchange.headers.get("content-type", "")
        replayed: list[SSEEvent] | None = []
        if mode == "json":
            replayed = parser.whole(bytes(held).lstrip().removeprefix(_BOM))
        elif mode == "sse":
            replayed = decoder.close()
            dispatched = dispatched or bool(replayed)
        if replayed is None or (mode == "sse" and not dispatched):
            error = _not_an_answer(self.target.provider, content_type, first, self.wire.name)
            for event in self._give_up_or_retry(error, retry_reason(error)):
                yield event
            return
        for event in self._feed(replayed):
            yield event
        if not self.stopped:
            for event in self._closing():
                yield event

    def _feed(self, sse_events: list[SSEEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for sse in sse_events:
            out += self._take(self.parser.feed(sse))
            if self.stopped:
                break
        return out


__all__ = ["Attempt", "aborted", "retry_reason"]
