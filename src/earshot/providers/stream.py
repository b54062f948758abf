"""``stream()``: one model call, streamed, with retries and abort. The only place that sends
a model request over HTTP.

Order of work for each attempt::

    build the call (adapter) -> POST -> status >= 400 ? classify (adapter) : decode SSE
    -> parser events -> consumer

Contracts:

- Exactly one terminal event (``Finish`` or ``ErrorEvent``) ends every stream, and nothing
  follows it; a vendor stream that closes early still ends in one ``Finish``.
- A failure is retried (per ``RetryPolicy``) only while nothing has been yielded: an HTTP
  error, a connection failure, or a retryable in-stream error arriving as the first event.
  Once a delta reached the consumer, a failure is the terminal ``ErrorEvent``.
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

from earshot import __version__
from earshot.providers.aio import race
from earshot.providers.auth_headers import auth_headers
from earshot.providers.errors import ProviderError, redact
from earshot.providers.http import shared_client
from earshot.providers.retry import RetryPolicy
from earshot.providers.sse import SSEDecoder
from earshot.providers.target import Target
from earshot.providers.types import ErrorEvent, Finish, Message, ModelRequest, StreamEvent, Usage
from earshot.providers.wire import get_wire
from earshot.providers.wire.base import Framing, StreamParser

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


def _transport_error(exc: BaseException, target: Target) -> ProviderError:
    kind_text = type(exc).__name__
    detail = redact(str(exc), target.secrets()) or kind_text
    if isinstance(exc, httpx.TimeoutException):
        message = f"{target.provider}: request timed out ({kind_text}: {detail})"
    elif isinstance(exc, httpx.RemoteProtocolError):
        message = f"{target.provider}: connection closed mid-response ({detail})"
    else:
        message = f"{target.provider}: network error ({kind_text}: {detail})"
    return ProviderError("network", message, retryable=True)


async def stream(
    request: ModelRequest,
    target: Target,
    *,
    client: httpx.AsyncClient | None = None,
    retry: RetryPolicy | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream one model call. See the module docstring for the contracts."""
    policy = retry or RetryPolicy()
    abort = request.abort
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
    attempt = 0
    while True:
        parser: StreamParser = wire.parser(request, target)
        error: ProviderError | None = None
        emitted = False
        http_request = http.build_request(
            call.method, call.url, params=dict(call.params), headers=headers, content=call.body
        )

        async def sign(req: httpx.Request = http_request) -> dict[str, str]:
            return await _credential(req, target)

        signed = await _race(sign, abort)
        if signed.aborted:
            yield _aborted()
            return
        if signed.error is not None or signed.value is None:
            failure = signed.error
            if not isinstance(failure, ProviderError):
                detail = redact(f"{type(failure).__name__}: {failure}", target.secrets())
                failure = ProviderError("auth", f"{target.provider}: credentials: {detail}")
            yield failure.to_event()
            return
        credential = signed.value
        # A header the user configured (a gateway's own auth) wins over the credential.
        configured = {name.lower() for name in target.headers}
        http_request.headers.update(
            {k: v for k, v in credential.items() if k.lower() not in configured}
        )

        async def send(req: httpx.Request = http_request) -> httpx.Response:
            return await http.send(req, stream=True)

        sent = await _race(send, abort)
        if sent.aborted:
            yield _aborted()
            return
        if sent.error is not None or sent.value is None:
            error = _transport_error(sent.error or RuntimeError("no response"), target)
        else:
            response = sent.value
            try:
                if response.status_code >= 400:
                    raw = await _race(response.aread, abort)
                    if raw.aborted:
                        yield _aborted()
                        return
                    error = wire.error_from_response(
                        response.status_code, response.headers, raw.value or b"", target
                    )
                    if raw.error is not None:
                        error = _transport_error(raw.error, target)
                else:
                    decoder = _decoder(wire.framing)
                    chunks = response.aiter_bytes()
                    while error is None:
                        got = await _race(chunks.__anext__, abort)
                        if got.aborted:
                            for event in parser.abort():
                                yield event
                            return
                        if isinstance(got.error, StopAsyncIteration):
                            sse_events = decoder.close()
                        elif got.error is not None:
                            failure = _transport_error(got.error, target)
                            if emitted:
                                for event in parser.fail(failure):
                                    yield event
                                return
                            error = failure
                            break
                        else:
                            sse_events = decoder.feed(got.value or b"")
                        for sse in sse_events:
                            for event in parser.feed(sse):
                                if (
                                    not emitted
                                    and isinstance(event, ErrorEvent)
                                    and event.retryable
                                    and policy.delay(attempt, ProviderError.from_event(event), None)
                                    is not None
                                ):
                                    error = ProviderError.from_event(event)
                                    break
                                emitted = True
                                yield event
                            if error is not None or parser.done:
                                break
                        if error is None and parser.done:
                            return
                        if error is None and isinstance(got.error, StopAsyncIteration):
                            for event in parser.close():
                                yield event
                            return
            finally:
                await response.aclose()
        assert error is not None
        delay = policy.delay(attempt, error)
        if delay is None:
            yield error.to_event()
            return
        attempt += 1
        if abort is not None:
            with anyio.move_on_after(delay):
                await abort.wait()
            if abort.is_set():
                yield _aborted()
                return
        else:
            await anyio.sleep(delay)


async def collect(
    request: ModelRequest,
    target: Target,
    *,
    client: httpx.AsyncClient | None = None,
    retry: RetryPolicy | None = None,
) -> list[StreamEvent]:
    """Every event of one call, in order (for tests and simple callers)."""
    return [event async for event in stream(request, target, client=client, retry=retry)]


__all__ = ["collect", "stream"]
