"""The HTTP transport under ``providers.stream``: what the stream driver asks of a client.

::

    Transport.exchange(method, url, headers, body, timeouts) -> Exchange
    Exchange   start()        send the request, read the response's head (status, headers)
               chunk()        the next piece of the body (content coding undone); b"" at its end
               abort()        from the abort watcher, at any time: the connection is closed,
                              so a pending ``start``/``chunk`` returns (or raises) at once
               aclose()       done with it: a connection whose body was read to its end goes
                              back to the pool, any other is closed

Two implementations: ``lean.LeanTransport``, HTTP/1.1 over asyncio streams, used for every
direct connection (it loads none of httpx); ``_httpx_transport.HttpxTransport``, used when a
proxy applies (``_proxy.proxy_applies``: the environment's ``HTTPS_PROXY``/``HTTP_PROXY``/
``ALL_PROXY``, or the system's settings on macOS and Windows) since httpx speaks to
proxies. A failure is one of the ``TransportError`` classes below, whichever client raised
it, so ``_netfail`` words them the same.

``request_url`` merges a call's query parameters into its URL once, before the request is
signed: the URL signed is the URL sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from earshot.providers.http import Timeouts


class TransportError(Exception):
    """A request failed on the wire (its cause, an ``OSError`` when there is one, is
    chained)."""


class ConnectError(TransportError):
    """No connection could be made."""


class ConnectTimeout(TransportError):
    """No connection within the connect timeout."""


class ReadTimeout(TransportError):
    """Silence longer than the idle timeout (waiting for the headers included)."""


class WriteTimeout(TransportError):
    """The request could not be sent within the write timeout."""


class PoolTimeout(TransportError):
    """No free connection in time."""


class ReadError(TransportError):
    """The connection failed while the answer was read."""


class RemoteProtocolError(TransportError):
    """The server closed the connection early or sent something that is not HTTP/1.1."""


class Exchange(Protocol):
    @property
    def status(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    async def start(self) -> None: ...

    async def chunk(self) -> bytes: ...

    def abort(self) -> None: ...

    async def aclose(self) -> None: ...


class Transport(Protocol):
    def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        timeouts: Timeouts,
    ) -> Exchange: ...


_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + "?"


def request_url(url: str, params: Mapping[str, str] | None = None) -> str:
    """``url`` with ``params`` added to its query (form-encoded) and any character a
    request line may not carry percent-encoded (what is already encoded stays)."""
    parts = urlsplit(url)
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    query = quote(parts.query, safe=_QUERY_SAFE)
    if params:
        extra = urlencode(list(params.items()))
        query = f"{query}&{extra}" if query else extra
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


__all__ = [
    "ConnectError",
    "ConnectTimeout",
    "Exchange",
    "PoolTimeout",
    "ReadError",
    "ReadTimeout",
    "RemoteProtocolError",
    "Transport",
    "TransportError",
    "WriteTimeout",
    "request_url",
]
