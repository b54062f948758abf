"""The HTTP client's network backend: its first connection to a host is the one
``_preconnect`` opened early, when there is one; every other is opened as usual."""

from __future__ import annotations

from collections.abc import Iterable

import anyio
import anyio.to_thread
import httpcore
from anyio.abc import SocketStream
from httpcore import AsyncNetworkStream

from earshot.providers import _preconnect


class EarlyBackend(httpcore.AnyIOBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        early = _preconnect.pending(host, port) if local_address is None else None
        if early is not None and (stream := await _adopt(early, timeout)) is not None:
            return stream
        return await super().connect_tcp(host, port, timeout, local_address, socket_options)


async def _adopt(early: _preconnect.Early, limit: float | None) -> AsyncNetworkStream | None:
    """A stream over the early connection, once its connect has finished; None when it
    failed or is stale (the caller connects as usual)."""
    from httpcore._backends.anyio import AnyIOStream  # what AnyIOBackend itself returns

    if not early.done.is_set():  # still connecting: wait for it rather than connect twice
        wait = limit if limit is not None else _preconnect.CONNECT_TIMEOUT_S
        finished = await anyio.to_thread.run_sync(
            _preconnect.wait_for, early, wait, abandon_on_cancel=True
        )
        if not finished:  # the connect timeout passed on the early attempt: as a connect would
            raise httpcore.ConnectTimeout(f"no connection within {wait:g} s")
    sock = _preconnect.take(early)
    if sock is None:
        return None
    try:
        stream = await SocketStream.from_socket(sock)
    except (OSError, ValueError):
        sock.close()
        return None
    return AnyIOStream(stream)


__all__ = ["EarlyBackend"]
