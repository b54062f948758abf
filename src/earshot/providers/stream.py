"""``stream()``: one model call, streamed, with retries and abort. The only place that sends
a model request over HTTP (each attempt is ``_attempt.Attempt``).

Order of work (a cloud target first completes its placement where that needs a call,
``Cloud.complete``: Vertex's project from the metadata server), then for each attempt::

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
  carrying the parts completed so far, and closes the connection. (One watcher per
  attempt closes the connection when the event is set, so reads are plain awaits.)
- No exception escapes for provider or transport failures; the consumer sees events only.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import anyio

from earshot import __version__
from earshot.providers._attempt import Attempt, aborted, retry_reason
from earshot.providers._netfail import seconds_text
from earshot.providers._proxy import proxy_applies
from earshot.providers.errors import ProviderError
from earshot.providers.http import Timeouts, TimeoutSettingError
from earshot.providers.retry import RetryPolicy
from earshot.providers.target import Target
from earshot.providers.transport import Transport, request_url
from earshot.providers.types import ModelRequest, Retrying, StreamEvent
from earshot.providers.wire import get_wire

_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")


def _needs_tls(url: str) -> bool:
    """Whether an httpx client needs a certificate store: an https URL, or any proxy (whose
    own hop may be https)."""
    return not url.startswith("http://") or any(os.environ.get(v) for v in _PROXY_VARS)


def transport_for(url: str) -> Transport:
    """The shared transport for a request to ``url``: httpx's when a proxy applies, else
    the lean client's (which loads none of httpx)."""
    if proxy_applies(url):
        from earshot.providers._httpx_transport import HttpxTransport

        return HttpxTransport(tls=_needs_tls(url))
    from earshot.providers.lean import shared_transport

    return shared_transport()


async def _placed(target: Target) -> Target:
    """A cloud target with what only a call can find out filled in (``Cloud.complete``:
    Vertex's project from the metadata server); any other target as it is."""
    from earshot.providers.registry import cloud_module

    module = cloud_module(target.provider)
    if not module:
        return target
    from earshot.providers.cloud.base import load_cloud

    return await load_cloud(module).complete(target, None)


async def stream(
    request: ModelRequest,
    target: Target,
    *,
    client: Transport | None = None,
    retry: RetryPolicy | None = None,
    timeouts: Timeouts | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream one model call. See the module docstring for the contracts. ``client`` is
    the transport (default: ``transport_for`` the call's URL); ``timeouts`` defaults to
    ``Timeouts.resolve()`` (the environment, else the defaults)."""
    policy = retry or RetryPolicy()
    abort = request.abort
    if timeouts is None:
        try:
            timeouts = Timeouts.resolve()
        except TimeoutSettingError:
            timeouts = Timeouts()
    try:
        if target.cloud:
            target = await _placed(target)
        wire = get_wire(target.wire)
        call = wire.build_call(request, target)
    except ProviderError as exc:
        yield exc.to_event()
        return
    url = request_url(call.url, call.params)
    http = client or transport_for(url)
    given = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "user-agent": f"earshot/{__version__}",
        **call.headers,
    }
    headers = {name.lower(): value for name, value in given.items()}
    attempt = 0
    while True:
        run = Attempt(
            wire=wire,
            call=call,
            url=url,
            request=request,
            target=target,
            http=http,
            headers=headers,
            body=call.body,
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
                yield aborted()
                return
        else:
            await anyio.sleep(delay)


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
    client: Transport | None = None,
    retry: RetryPolicy | None = None,
    timeouts: Timeouts | None = None,
) -> list[StreamEvent]:
    """Every event of one call, in order (for tests and simple callers)."""
    return [
        event
        async for event in stream(request, target, client=client, retry=retry, timeouts=timeouts)
    ]


__all__ = ["collect", "retry_reason", "retry_text", "stream", "transport_for"]
