"""``stream()``: one model call, streamed, with retries and abort. The only place that sends
a model request over HTTP.

Order of work for each attempt::

    build the call (adapter: URL, headers, the exact body bytes) -> add the credential
    (auth_headers: a key, a token, or a SigV4 signature over the final request) -> POST
    (connect and idle timeouts) -> status >= 400 ? classify (adapter)
    : body -> first byte "{" or "[" ? whole JSON answer (parser.whole)
                                    : decode the wire's framing (SSE, or AWS event-stream
                                      frames) -> parser events
    -> consumer

Contracts:

- Exactly one terminal event (``Finish`` or ``ErrorEvent``) ends every stream, and nothing
  follows it. A vendor stream that ends without its terminal event is a
  ``stream_incomplete`` error, never a ``Finish``: a cut answer never passes for a whole one.
- A failure is retried (per ``RetryPolicy``) only while nothing has been shown: an HTTP
  error, a connection failure or timeout, or a retryable error (``stream_incomplete``
  included) arriving before any content event (usage reports do not count). Once content
  reached the consumer, a failure is the terminal ``ErrorEvent`` with the partial answer.
- Every retry is announced before its wait by a ``Retrying`` event (attempt, reason, delay).
- A 200 whose body is a JSON object or array (a gateway that ignored ``stream: true``) is
  decoded as the wire's non-streaming answer and yields the same events a stream would; a
  body that is neither an event stream nor that answer is a terminal ``server`` error
  naming the content type and the first bytes.
- Every request has a connect timeout and an idle timeout (``http.Timeouts``): silence
  longer than the idle timeout, waiting for headers included, is a retryable ``network``
  error; every transport failure names the host and how much of the answer had arrived.
- ``request.abort`` is honoured at every await: connecting, waiting for headers, between
  chunks and during back-off. An abort ends the stream with ``Finish(reason="aborted")``
  carrying the parts completed so far, and closes the connection.
- No exception escapes for provider or transport failures; the consumer sees events only.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Generic, TypeVar, assert_never

import anyio
import httpx
import msgspec

from earshot import __version__
from earshot._base.aio import race
from earshot.providers._netfail import seconds_text, size_text, transport_error
from earshot.providers.auth_headers import auth_headers
from earshot.providers.errors import ProviderError, redact
from earshot.providers.http import Timeouts, TimeoutSettingError, shared_client
from earshot.providers.retry import RetryPolicy
from earshot.providers.sse import SSEDecoder, SSEEvent
from earshot.providers.target import Target
from earshot.providers.types import (
    ErrorEvent,
    Finish,
    Message,
    ModelRequest,
    Retrying,
    StreamEvent,
    Usage,
    UsageEvent,
)
from earshot.providers.wire import get_wire
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
    except Exception as exc:  # StopAsyncIteration included: the end of the body
        outcome.error = exc
    return outcome


_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")
_FIRST_BYTES = 160
_DRAIN_S = 0.2
"""How long a finished answer's remaining bytes (the end of the chunked body, normally
already received) are waited for, so its connection can serve the next request: ample for
bytes the server sends right after the terminal event (even from a busy machine), short
beside a model call for a server that holds the body open."""
_BOM = b"\xef\xbb\xbf"


def _needs_tls(url: str) -> bool:
    """Whether the client needs a certificate store: an https URL, or any proxy (whose own
    hop may be https)."""
    return not url.startswith("http://") or any(os.environ.get(v) for v in _PROXY_VARS)


async def _credential(req: httpx.Request, target: Target) -> dict[str, str]:
    """The credential for the final request (signatures cover its URL and body bytes)."""
    signed = {k: v for k, v in req.headers.items() if k.lower() not in _UNSIGNED}
    return await auth_headers(
        target, method=req.method, url=str(req.url), headers=signed, body=req.content
    )


# Headers a client stack may add or rewrite after signing: never part of a signature.
_UNSIGNED = frozenset({"host", "user-agent", "content-length", "accept-encoding", "connection"})


def _decoder(framing: Framing) -> SSEDecoder | EventStreamFrames:
    match framing:
        case "sse":
            return SSEDecoder()
        case "aws-event-stream":
            from earshot.providers.eventstream import EventStreamFrames

            return EventStreamFrames()
        case _:
            assert_never(framing)


def _aborted() -> Finish:
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


class _Attempt:
    """One HTTP attempt. Iterate ``events()``; afterwards ``failure`` is set when the attempt
    failed before showing anything and the policy allows another (``(error, reason,
    delay)``), else the attempt already yielded its terminal event."""

    def __init__(
        self,
        *,
        wire: Wire,
        call: HttpCall,
        request: ModelRequest,
        target: Target,
        http: httpx.AsyncClient,
        headers: dict[str, str],
        body: bytes,
        timeouts: Timeouts,
        policy: RetryPolicy,
        attempt: int,
    ) -> None:
        self.wire, self.call, self.request, self.target = wire, call, request, target
        self.http, self.headers, self.body = http, headers, body
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

    def _transport(self, exc: BaseException, received: int | None) -> tuple[ProviderError, str]:
        return transport_error(
            exc,
            provider=self.target.provider,
            url=self.call.url,
            received=received,
            connect_timeout=self.timeouts.connect,
            idle_timeout=self.timeouts.idle,
            secrets=self.target.secrets(),
            base_url=self.target.base_url,
        )

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

    async def events(self) -> AsyncIterator[StreamEvent]:
        abort = self.request.abort
        http_request = self.http.build_request(
            self.call.method,
            self.call.url,
            params=dict(self.call.params),
            headers=self.headers,
            content=self.body,
            timeout=self.timeouts.httpx(),
        )

        async def sign() -> dict[str, str]:
            return await _credential(http_request, self.target)

        signed = await _race(sign, abort)
        if signed.aborted:
            yield _aborted()
            return
        if signed.error is not None or signed.value is None:
            failure = signed.error
            if not isinstance(failure, ProviderError):
                detail = redact(f"{type(failure).__name__}: {failure}", self.target.secrets())
                failure = ProviderError("auth", f"{self.target.provider}: credentials: {detail}")
            self.stopped = True
            yield failure.to_event()
            return
        # A header the user configured (a gateway's own auth) wins over the credential.
        configured = {name.lower() for name in self.target.headers}
        http_request.headers.update(
            {k: v for k, v in signed.value.items() if k.lower() not in configured}
        )

        async def send() -> httpx.Response:
            return await self.http.send(http_request, stream=True)

        sent = await _race(send, abort)
        if sent.aborted:
            yield _aborted()
            return
        if sent.error is not None or sent.value is None:
            error, reason = self._transport(sent.error or RuntimeError("no response"), None)
            for event in self._give_up_or_retry(error, reason):
                yield event
            return
        response = sent.value
        try:
            if response.status_code >= 400:
                raw = await _race(response.aread, abort)
                if raw.aborted:
                    yield _aborted()
                    return
                error = self.wire.error_from_response(
                    response.status_code, response.headers, raw.value or b"", self.target
                )
                reason = retry_reason(error)
                if raw.error is not None:
                    error, reason = self._transport(raw.error, 0)
                for event in self._give_up_or_retry(error, reason):
                    yield event
                return
            async for event in self._body(response):
                yield event
        finally:
            await response.aclose()

    async def _body(self, response: httpx.Response) -> AsyncIterator[StreamEvent]:
        abort = self.request.abort
        parser = self.parser
        decoder = _decoder(self.wire.framing)
        chunks = response.aiter_bytes()
        # "" until the first non-blank byte decides: "json" or "sse" (a binary framing is
        # never a whole JSON answer: its frames start with their length)
        mode = "" if self.wire.framing == "sse" else "sse"
        held = bytearray()  # the body while its form is undecided, or the whole JSON answer
        first = b""
        dispatched = False
        while not self.stopped:
            got = await _race(chunks.__anext__, abort)
            if got.aborted:
                for event in parser.abort():
                    yield event
                return
            if isinstance(got.error, StopAsyncIteration):
                break
            if got.error is not None:
                error, reason = self._transport(got.error, self.received)
                failed = parser.fail(error) if self.shown else self._give_up_or_retry(error, reason)
                for event in failed:
                    yield event
                return
            chunk = got.value or b""
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
                await _drain(chunks)
            return
        content_type = response.headers.get("content-type", "")
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


async def stream(
    request: ModelRequest,
    target: Target,
    *,
    client: httpx.AsyncClient | None = None,
    retry: RetryPolicy | None = None,
    timeouts: Timeouts | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream one model call. See the module docstring for the contracts. ``timeouts``
    defaults to ``Timeouts.resolve()`` (the environment, else the defaults)."""
    policy = retry or RetryPolicy()
    abort = request.abort
    if timeouts is None:
        try:
            timeouts = Timeouts.resolve()
        except TimeoutSettingError:
            timeouts = Timeouts()
    try:
        wire = get_wire(target.wire)
        call = wire.build_call(request, target)
    except ProviderError as exc:
        yield exc.to_event()
        return
    http = client or shared_client(tls=_needs_tls(call.url))
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "user-agent": f"earshot/{__version__}",
        **call.headers,
    }
    body = call.body
    attempt = 0
    while True:
        run = _Attempt(
            wire=wire,
            call=call,
            request=request,
            target=target,
            http=http,
            headers=headers,
            body=body,
            timeouts=timeouts,
            policy=policy,
            attempt=attempt,
        )
        async for event in run.events():
            yield event
        if run.failure is None:
            return
        error, reason, delay = run.failure
        attempt += 1
        yield Retrying(
            attempt=attempt + 1,
            max_attempts=policy.max_retries + 1,
            kind=error.kind,
            reason=reason,
            message=error.message,
            delay=delay,
            status=error.status,
        )
        if abort is not None:
            with anyio.move_on_after(delay):
                await abort.wait()
            if abort.is_set():
                yield _aborted()
                return
        else:
            await anyio.sleep(delay)


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    """Read the rest of a finished answer's body (briefly), so closing the response hands
    its connection back to the pool: the next request of the turn then skips a new TCP and
    TLS handshake. A server that keeps the body open is cut off as before."""
    with anyio.move_on_after(_DRAIN_S):
        try:
            async for _ in chunks:
                pass
        except httpx.HTTPError:
            pass  # the answer is complete; the connection is simply not reused


def retry_text(event: Retrying) -> str:
    """``retrying in 4 s (rate limited, attempt 2/3)``: what a status line shows."""
    return (
        f"retrying in {seconds_text(event.delay)} ({event.reason}, attempt "
        f"{event.attempt}/{event.max_attempts})"
    )


async def collect(
    request: ModelRequest,
    target: Target,
    *,
    client: httpx.AsyncClient | None = None,
    retry: RetryPolicy | None = None,
    timeouts: Timeouts | None = None,
) -> list[StreamEvent]:
    """Every event of one call, in order (for tests and simple callers)."""
    return [
        event
        async for event in stream(request, target, client=client, retry=retry, timeouts=timeouts)
    ]


__all__ = ["collect", "retry_reason", "retry_text", "stream"]
