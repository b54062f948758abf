"""Connecting to the provider while the first request is still being built.

A headless run knows where its first request goes as soon as the model is resolved, well
before the request exists (the transcript, the tools and the prompt come after, and the
HTTP client's own modules load only when it is first used). ``start(url)`` resolves the
host and opens the TCP connection on a thread of its own meanwhile (the GIL is released
while it waits on the network); the client's connection pool then takes that socket for
its first connection to the same host and port (``lean.LeanExchange``) instead of
connecting again, and TLS, when the URL is https, is negotiated over it as usual.

The early connection is only an optimisation and never changes what is sent: when a
proxy applies (``transport.proxy_applies``: the request goes to the proxy, not the host)
nothing is opened; a socket that failed to connect, is older than ``MAX_AGE_S`` or was closed by the
server meanwhile is dropped and the pool connects as it always does; an early connection
nobody takes is closed after ``MAX_AGE_S``.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from earshot.providers._proxy import proxy_applies

MAX_AGE_S = 10.0
"""How long an early connection waits to be taken before it is closed."""
CONNECT_TIMEOUT_S = 10.0


class Early:
    """One early connection: ``done`` once its connect finished (``sock`` is None when
    it failed or was not attempted), ``taken`` once a client claimed it."""

    __slots__ = ("_callbacks", "done", "host", "port", "sock", "started", "taken")

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.started = time.monotonic()
        self.done = threading.Event()
        self.taken = threading.Event()
        self.sock: socket.socket | None = None
        self._callbacks: list[Callable[[], None]] = []

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from the connecting thread, or now) once the connect has
        finished."""
        with _lock:
            if not self.done.is_set():
                self._callbacks.append(callback)
                return
        callback()

    def finish(self, sock: socket.socket | None) -> None:
        with _lock:
            self.sock = sock
            self.done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


_early: dict[tuple[str, int], Early] = {}
_lock = threading.Lock()


def start(url: str) -> None:
    """Begin connecting to ``url``'s host and port on a thread (once per host and port)."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    except ValueError:
        return
    if not parts.hostname or port is None:
        return
    key = (parts.hostname, port)
    with _lock:
        if key in _early:
            return
        early = _early[key] = Early(parts.hostname, port)
    threading.Thread(
        target=_connect, args=(early, url), name="earshot-connect", daemon=True
    ).start()


def _connect(early: Early, url: str) -> None:
    sock: socket.socket | None = None
    try:
        if not proxy_applies(url):
            # an ASCII name as bytes: a str would load the idna codec first (milliseconds)
            host = early.host.encode("ascii") if early.host.isascii() else early.host
            sock = socket.create_connection(
                (host, early.port),  # type: ignore[arg-type]  # bytes work, typeshed says str
                timeout=CONNECT_TIMEOUT_S,
            )
            sock.settimeout(None)
    except OSError:
        sock = None
    early.finish(sock)
    if sock is not None and not early.taken.wait(MAX_AGE_S):
        _drop(early)


def _drop(early: Early) -> None:
    with _lock:
        if _early.get((early.host, early.port)) is early:
            del _early[(early.host, early.port)]
        sock, early.sock = early.sock, None
    if sock is not None:
        sock.close()


def _usable(early: Early) -> socket.socket | None:
    """The early socket, when it connected, is fresh and the server has not closed it
    (a connected socket with nothing to read is not readable)."""
    with _lock:
        sock, early.sock = early.sock, None
    early.taken.set()
    if sock is None:
        return None
    try:
        fresh = time.monotonic() - early.started < MAX_AGE_S
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        fresh, readable = False, [sock]
    if fresh and not readable:
        return sock
    sock.close()
    return None


def pending(host: str, port: int) -> Early | None:
    """The early connection to ``host``:``port`` (removed: it is taken once), or None."""
    with _lock:
        return _early.pop((host, port), None)


def take(early: Early) -> socket.socket | None:
    """``early``'s socket once its connect has finished (it must have, see
    ``wait_for``), or None when it is not usable."""
    return _usable(early) if early.done.is_set() else None


def wait_for(early: Early, timeout: float | None) -> bool:
    """Block until ``early``'s connect has finished (run it on a worker thread)."""
    return early.done.wait(timeout)


__all__ = ["CONNECT_TIMEOUT_S", "MAX_AGE_S", "Early", "pending", "start", "take", "wait_for"]
