"""The one httpx client of the process (per event loop), and its settings.

HTTP/1.1 with keep-alive; proxies from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...);
TLS trusting the system store plus certifi's bundle (frozen binaries have no system paths on
some platforms). A streaming read may idle for minutes while a model thinks, so the read
timeout is long and the connect timeout short.
"""

from __future__ import annotations

import ssl
import weakref
from asyncio import AbstractEventLoop, get_running_loop

import httpx

TIMEOUT = httpx.Timeout(connect=15.0, read=600.0, write=60.0, pool=30.0)

_clients: weakref.WeakKeyDictionary[AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)
_ssl_context: ssl.SSLContext | None = None


def ssl_context() -> ssl.SSLContext:
    global _ssl_context
    if _ssl_context is None:
        context = ssl.create_default_context()
        try:
            import certifi

            context.load_verify_locations(cafile=certifi.where())
        except (ImportError, OSError):
            pass
        _ssl_context = context
    return _ssl_context


def new_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(
        timeout=TIMEOUT,
        verify=ssl_context(),
        trust_env=True,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=32, max_keepalive_connections=8),
    )


def shared_client() -> httpx.AsyncClient:
    """The client for the running event loop, created on first use."""
    loop = get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = new_client()
        _clients[loop] = client
    return client


async def close_shared_client() -> None:
    loop = get_running_loop()
    client = _clients.pop(loop, None)
    if client is not None:
        await client.aclose()


__all__ = ["TIMEOUT", "close_shared_client", "new_client", "shared_client", "ssl_context"]
