"""``transport.Transport`` over an httpx client: model requests when a proxy applies (httpx
speaks to HTTP and SOCKS proxies; ``lean`` does not), or a caller's own client.

httpx's exceptions become ``transport``'s (the httpx one chained as the cause, so
``_netfail`` still finds the ``OSError`` behind it). An abort cancels the task doing the
pending send or read: this path races each await, the direct path does not need to.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TypeVar

import httpx

from earshot.providers import transport as t
from earshot.providers.http import Timeouts, shared_client

T = TypeVar("T")

_KINDS: tuple[tuple[type[httpx.HTTPError], type[t.TransportError]], ...] = (
    (httpx.ConnectTimeout, t.ConnectTimeout),
    (httpx.ReadTimeout, t.ReadTimeout),
    (httpx.WriteTimeout, t.WriteTimeout),
    (httpx.PoolTimeout, t.PoolTimeout),
    (httpx.ConnectError, t.ConnectError),
    (httpx.RemoteProtocolError, t.RemoteProtocolError),
    (httpx.ReadError, t.ReadError),
)


def translated(exc: Exception) -> Exception:
    """``exc`` as a ``transport`` error (its cause ``exc``) when it is an httpx one."""
    if not isinstance(exc, httpx.HTTPError | httpx.InvalidURL):
        return exc
    kind = next((ours for theirs, ours in _KINDS if isinstance(exc, theirs)), t.TransportError)
    error = kind(str(exc))
    error.__cause__ = exc
    return error


class HttpxTransport:
    """Exchanges over ``client``, or over the shared httpx client when None."""

    def __init__(self, client: httpx.AsyncClient | None = None, *, tls: bool = True) -> None:
        self.client = client
        self.tls = tls

    def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        timeouts: Timeouts,
    ) -> HttpxExchange:
        client = self.client or shared_client(tls=self.tls)
        request = client.build_request(
            method, url, headers=dict(headers), content=body, timeout=timeouts.httpx()
        )
        return HttpxExchange(client, request)


class HttpxExchange:
    def __init__(self, client: httpx.AsyncClient, request: httpx.Request) -> None:
        self._client, self._request = client, request
        self._response: httpx.Response | None = None
        self._chunks: AsyncIterator[bytes] | None = None
        self._cancel: Callable[[], object] | None = None
        self._aborted = False

    @property
    def status(self) -> int:
        return self._response.status_code if self._response is not None else 0

    @property
    def headers(self) -> Mapping[str, str]:
        return self._response.headers if self._response is not None else {}

    def abort(self) -> None:
        self._aborted = True
        if self._cancel is not None:
            self._cancel()

    async def _run(self, work: Awaitable[T]) -> T:
        if self._aborted:
            raise t.TransportError("the request was aborted")
        task = asyncio.ensure_future(work)
        self._cancel = task.cancel
        try:
            await asyncio.wait({task})
        finally:
            self._cancel = None
            if not task.done():
                task.cancel()
        if task.cancelled():
            raise t.TransportError("the request was aborted")
        try:
            return task.result()
        except Exception as exc:
            error = translated(exc)
            if error is exc:
                raise
            raise error from exc

    async def start(self) -> None:
        self._response = await self._run(self._client.send(self._request, stream=True))
        self._chunks = self._response.aiter_bytes()

    async def chunk(self) -> bytes:
        assert self._chunks is not None, "start() first"
        return await self._run(_next(self._chunks))

    async def aclose(self) -> None:
        if self._response is not None:
            await self._response.aclose()


async def _next(chunks: AsyncIterator[bytes]) -> bytes:
    try:
        return await chunks.__anext__()
    except StopAsyncIteration:
        return b""


__all__ = ["HttpxExchange", "HttpxTransport", "translated"]
