"""The HTTP settings (timeouts, TLS), and the one httpx client of the process (per event
loop) for what is not a model request on a direct connection (those go through
``providers.lean``): cloud credentials, web fetches, reach, the catalog, and model
requests through a proxy. httpx itself is imported only when such a client is made.

HTTP/1.1 with keep-alive; proxies from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...).
TLS trusts ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set, else certifi's bundle (a frozen
binary has no system paths on some platforms). Building a TLS context costs tens of
milliseconds, so a plain-http target (a local server, a test) gets a client without one.
Timeouts (``Timeouts``, applied per request by the stream driver): connect 10 s; idle
``EARSHOT_IDLE_TIMEOUT_MS`` (else the ``idleTimeoutMs`` setting, else 300 000 ms), the
longest silence tolerated on an open request, waiting for the headers included, since a
model may think for minutes between two bytes of its answer.
"""

from __future__ import annotations

import os
import ssl
import threading
import weakref
from asyncio import AbstractEventLoop, get_running_loop
from collections.abc import Mapping
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import httpx

CONNECT_TIMEOUT_S = 10.0
IDLE_TIMEOUT_MS = 300_000
IDLE_TIMEOUT_ENV = "EARSHOT_IDLE_TIMEOUT_MS"
WRITE_TIMEOUT_S = 60.0
POOL_TIMEOUT_S = 30.0


class TimeoutSettingError(ValueError):
    """``EARSHOT_IDLE_TIMEOUT_MS`` is not a positive whole number of milliseconds."""


class Timeouts(msgspec.Struct, frozen=True, kw_only=True):
    """How long a model request may take to connect, how long it may stay silent, and
    how long sending it may take."""

    connect: float = CONNECT_TIMEOUT_S
    idle: float = IDLE_TIMEOUT_MS / 1000
    write: float = WRITE_TIMEOUT_S

    @classmethod
    def resolve(
        cls, setting_ms: int | None = None, env: Mapping[str, str] | None = None
    ) -> Timeouts:
        """``EARSHOT_IDLE_TIMEOUT_MS`` if set, else ``setting_ms``, else the default.
        ``TimeoutSettingError`` names the variable when its value is not usable."""
        environ = os.environ if env is None else env
        raw = environ.get(IDLE_TIMEOUT_ENV, "").strip()
        if raw:
            if not raw.isdigit() or int(raw) <= 0:
                raise TimeoutSettingError(
                    f"{IDLE_TIMEOUT_ENV}={raw!r}: must be a whole number of milliseconds "
                    "above 0, e.g. 120000 for two minutes"
                )
            return cls(idle=int(raw) / 1000)
        if setting_ms is not None:
            return cls(idle=setting_ms / 1000)
        return cls()

    def httpx(self) -> httpx.Timeout:
        import httpx

        return httpx.Timeout(
            connect=self.connect, read=self.idle, write=self.write, pool=POOL_TIMEOUT_S
        )


_clients: weakref.WeakKeyDictionary[AbstractEventLoop, dict[bool, httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)
_ssl_context: ssl.SSLContext | None = None
_ssl_lock = threading.Lock()


def ssl_context() -> ssl.SSLContext:
    with _ssl_lock:  # built once, by whichever thread asks first (see ``warm_tls``)
        return _ssl_context or _build_ssl_context()


def _build_ssl_context() -> ssl.SSLContext:
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


def warm_tls(url: str) -> None:
    """For an ``https`` URL, start building the TLS context (reading the CA bundle: tens of
    milliseconds, the GIL released meanwhile) on a thread of its own, so it is ready when
    the first request is sent instead of being built in its path."""
    if not url.startswith("https:") or _ssl_context is not None:
        return
    threading.Thread(target=ssl_context, name="earshot-tls-warm", daemon=True).start()


def new_client(*, tls: bool = True) -> httpx.AsyncClient:
    """An httpx client with earshot's settings (proxies from the environment)."""
    import httpx

    verify: ssl.SSLContext | bool = ssl_context() if tls else False
    return httpx.AsyncClient(
        timeout=Timeouts().httpx(),
        verify=verify,
        trust_env=True,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=32, max_keepalive_connections=8),
    )


def connect_early(url: str) -> None:
    """Open the connection to ``url``'s host now, on a thread, for the first model
    request to take (``_preconnect``): a run that sends a request as soon as it has
    built it."""
    from earshot.providers import _preconnect

    _preconnect.start(url)


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


__all__ = [
    "CONNECT_TIMEOUT_S",
    "IDLE_TIMEOUT_ENV",
    "IDLE_TIMEOUT_MS",
    "POOL_TIMEOUT_S",
    "WRITE_TIMEOUT_S",
    "TimeoutSettingError",
    "Timeouts",
    "close_shared_client",
    "connect_early",
    "new_client",
    "shared_client",
    "ssl_context",
    "warm_tls",
]
