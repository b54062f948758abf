"""The one httpx client of the process (per event loop), and its settings.

HTTP/1.1 with keep-alive; proxies from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...).
TLS trusts ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set, else certifi's bundle (a frozen
binary has no system paths on some platforms). Building a TLS context costs tens of
milliseconds, so a plain-http target (a local server, a test) gets a client without one.
A streaming read may idle for minutes while a model thinks, so the read timeout is long and
the connect timeout short.
"""

from __future__ import annotations

import os
import ssl
import weakref
from asyncio import AbstractEventLoop, get_running_loop

import httpx

TIMEOUT = httpx.Timeout(connect=15.0, read=600.0, write=60.0, pool=30.0)

_clients: weakref.WeakKeyDictionary[AbstractEventLoop, dict[bool, httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)
_ssl_context: ssl.SSLContext | None = None


def ssl_context() -> ssl.SSLContext:
    global _ssl_context
    if _ssl_context is None:
        cafile = os.environ.get("SSL_CERT_FILE") or None
        capath = os.environ.get("SSL_CERT_DIR") or None
        if cafile is None and capath is None:
            try:
                import certifi

                cafile = certifi.where()
            except ImportError:
                pass
        if cafile is None and capath is None:
            _ssl_context = ssl.create_default_context()
        else:
            _ssl_context = ssl.create_default_context(cafile=cafile, capath=capath)
    return _ssl_context


def new_client(*, tls: bool = True) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        timeout=TIMEOUT,
        verify=ssl_context() if tls else False,
        trust_env=True,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=32, max_keepalive_connections=8),
    )


def shared_client(*, tls: bool = True) -> httpx.AsyncClient:
    """The client for the running event loop, created on first use. ``tls=False`` is for
    plain-http endpoints only: it carries no certificate store."""
    loop = get_running_loop()
    clients = _clients.setdefault(loop, {})
    client = clients.get(tls)
    if client is None or client.is_closed:
        client = new_client(tls=tls)
        clients[tls] = client
    return client


async def close_shared_client() -> None:
    loop = get_running_loop()
    for client in _clients.pop(loop, {}).values():
        await client.aclose()


__all__ = ["TIMEOUT", "close_shared_client", "new_client", "shared_client", "ssl_context"]
