"""The model requests' HTTP client: HTTP/1.1 over asyncio streams, with none of httpx.

Why not httpx here: httpx and what it loads (httpcore, h11, ``http.client``, ``email``,
``urllib.request``, the cookie jar, idna) cost about 150 ms of a 370 ms first request, and
its per-read abort races about 3.5 ms a step. A model request needs one method, one
connection per host kept alive, TLS, timeouts and a streamed body: that is all this does.
A proxy is the one thing it does not speak; ``stream`` uses httpx then
(``transport.proxy_applies``).

::

    LeanTransport      idle connections per (scheme, host, port), 8 at most each
      exchange(...)    -> LeanExchange: one request and its response
    LeanExchange
      start()          connect (or take an idle connection, or the one ``_preconnect``
                       opened early), send head and body, read the response head
                       (1xx answers skipped)
      chunk()          the body, piece by piece: chunked, a content length or until the
                       connection closes, gzip/deflate undone; b"" at its end
      abort()          close the connection now: whatever is pending returns at once
      aclose()         a body read to its end hands the connection back to the pool

Timeouts: connect (TLS handshake included); idle, the longest silence while waiting for
the head or the next piece of the body; write, for sending the request. One timer per
exchange enforces idle and write: it is re-armed by a deadline per read (no task, no
cancellation) and closes the connection when the deadline passes.

A connection taken from the pool that fails before any byte of the answer arrived (the
server closed it while it was idle) is dropped and the request sent once more on a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
import ssl
import weakref
from collections.abc import AsyncGenerator, Mapping
from urllib.parse import urlsplit

from earshot.providers import _preconnect
from earshot.providers._h1 import (
    MAX_HEAD,
    Framing,
    Headers,
    Inflater,
    ProtocolError,
    framing_for,
    keep_alive,
    parse_head,
    request_head,
)
from earshot.providers.http import Timeouts, ssl_context
from earshot.providers.transport import (
    ConnectError,
    ConnectTimeout,
    ReadError,
    ReadTimeout,
    RemoteProtocolError,
    TransportError,
    WriteTimeout,
)

MAX_IDLE = 8
"""Idle connections kept per host."""
_READ = 64 * 1024

Key = tuple[str, str, int]


class _Conn:
    __slots__ = ("key", "reader", "writer")

    def __init__(self, key: Key, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.key, self.reader, self.writer = key, reader, writer

    def usable(self) -> bool:
        """Open, and nothing arrived while idle (a close, or stray bytes)."""
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        self.writer.transport.abort()


class LeanTransport:
    """The pool, and the factory of exchanges (``transport.Transport``)."""

    def __init__(self, *, ssl_context: ssl.SSLContext | None = None) -> None:
        """``ssl_context``: what https connections trust (default: ``http.ssl_context()``)."""
        self.ssl = ssl_context
        self._idle: dict[Key, list[_Conn]] = {}
        self.closer: AsyncGenerator[None, None] | None = None

    def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        timeouts: Timeouts,
    ) -> LeanExchange:
        return LeanExchange(self, method, url, headers, body, timeouts)

    def _checkout(self, key: Key) -> _Conn | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable():
                return conn
            conn.close()
        return None

    def _checkin(self, conn: _Conn) -> None:
        idle = self._idle.setdefault(conn.key, [])
        if len(idle) < MAX_IDLE and conn.usable():
            idle.append(conn)
        else:
            conn.close()

    def close_idle(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()

    async def aclose(self) -> None:
        self.close_idle()


def _basic(userinfo: str) -> str:
    import base64
    from urllib.parse import unquote

    user, _, password = userinfo.partition(":")
    pair = f"{unquote(user)}:{unquote(password)}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


class _Unanswered(Exception):
    """Failed before any byte of the answer: ``error`` is what to raise unless the request
    can go again on a new connection."""

    def __init__(self, error: TransportError) -> None:
        super().__init__(str(error))
        self.error = error


class LeanExchange:
    """One request and its response (``transport.Exchange``)."""

    def __init__(
        self,
        pool: LeanTransport,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        timeouts: Timeouts,
    ) -> None:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url[:80]!r}")
        self._host = parts.hostname
        port = parts.port or (443 if scheme == "https" else 80)
        self._key: Key = (scheme, self._host, port)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sent = {k.lower(): v for k, v in headers.items()}
        sent.setdefault("accept-encoding", "identity")
        if body or method not in ("GET", "HEAD"):
            sent["content-length"] = str(len(body))
        userinfo, _, host = parts.netloc.rpartition("@")
        if userinfo and "authorization" not in sent:  # as httpx does: Basic auth from the URL
            sent["authorization"] = _basic(userinfo)
        self._out = request_head(method, target, host, sent) + body
        self._pool, self._method, self._timeouts = pool, method, timeouts
        self.status = 0
        self.headers = Headers()
        self._conn: _Conn | None = None
        self._connecting: asyncio.Future[_Conn] | None = None
        self._framing: Framing | None = None
        self._first = b""
        self._inflater: Inflater | None = None
        self._reusable = False
        self._ended = False
        self._aborted = False
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._deadline = math.inf
        self._kind = ""
        self._fired = ""

    # --- the abort watcher and the timer ---------------------------------------------------

    def abort(self) -> None:
        self._aborted = True
        if self._connecting is not None:
            self._connecting.cancel()
        if self._conn is not None:
            self._conn.close()

    def _arm(self, seconds: float, kind: str) -> None:
        self._deadline = self._loop.time() + seconds
        self._kind = kind
        timer = self._timer
        if timer is not None and timer.when() > self._deadline:
            timer.cancel()  # a shorter deadline than the one it is set for (write -> idle)
            timer = None
        if timer is None:
            self._timer = self._loop.call_at(self._deadline, self._expire)

    def _expire(self) -> None:
        self._timer = None
        if self._deadline == math.inf:
            return
        if self._loop.time() < self._deadline:
            self._timer = self._loop.call_at(self._deadline, self._expire)
            return
        self._fired = self._kind
        if self._conn is not None:
            self._conn.close()

    def _check(self) -> None:
        """Raise what closed the connection under a read or write, if we did."""
        self._deadline = math.inf
        if self._aborted:
            raise TransportError("the request was aborted")
        if self._fired == "read":
            raise ReadTimeout(f"nothing for {self._timeouts.idle:g} s")
        if self._fired == "write":
            raise WriteTimeout(f"not sent within {self._timeouts.write:g} s")

    # --- the request ------------------------------------------------------------------------

    async def start(self) -> None:
        for attempt in (0, 1):
            conn = self._pool._checkout(self._key) if attempt == 0 else None
            reused = conn is not None
            if conn is None:
                conn = await self._connect()
            self._conn = conn
            try:
                await self._send(conn)
                await self._head(conn)
                return
            except _Unanswered as exc:
                conn.close()
                self._conn = None
                if not (reused and attempt == 0) or self._aborted or self._fired:
                    raise exc.error from exc.error.__cause__
                self._deadline = math.inf
        raise AssertionError("unreachable")

    async def _connect(self) -> _Conn:
        task = self._loop.create_task(self._open())
        self._connecting = task
        try:
            done, _ = await asyncio.wait({task}, timeout=self._timeouts.connect)
        finally:
            self._connecting = None
            if not task.done():
                task.cancel()
        if self._aborted or task.cancelled():
            if done and not task.cancelled() and task.exception() is None:
                task.result().close()  # connected just as the abort came
            raise TransportError("the request was aborted")
        if not done:
            raise ConnectTimeout(f"no connection within {self._timeouts.connect:g} s")
        error = task.exception()
        if isinstance(error, TransportError):
            raise error
        if error is not None:
            raise ConnectError(str(error)) from error
        return task.result()

    async def _open(self) -> _Conn:
        scheme, host, port = self._key
        context = (self._pool.ssl or ssl_context()) if scheme == "https" else None
        name = host if context is not None else None
        sock = await self._early_socket(host, port)
        if sock is not None:
            reader, writer = await asyncio.open_connection(
                sock=sock, ssl=context, server_hostname=name, limit=_READ
            )
        else:
            reader, writer = await asyncio.open_connection(
                host, port, ssl=context, server_hostname=name, limit=_READ
            )
        return _Conn(self._key, reader, writer)

    async def _early_socket(self, host: str, port: int) -> socket.socket | None:
        """The socket ``_preconnect`` opened for this host early (waiting for its connect
        to finish, within the connect timeout), or None."""
        early = _preconnect.pending(host, port)
        if early is None:
            return None
        if not early.done.is_set():
            ready: asyncio.Future[None] = self._loop.create_future()

            def wake() -> None:
                if not ready.done():
                    ready.set_result(None)

            def woken() -> None:  # on the connecting thread
                with contextlib.suppress(RuntimeError):  # the loop has closed meanwhile
                    self._loop.call_soon_threadsafe(wake)

            early.when_done(woken)
            await ready
        return _preconnect.take(early)

    async def _send(self, conn: _Conn) -> None:
        self._arm(self._timeouts.write, "write")
        try:
            conn.writer.write(self._out)
            await conn.writer.drain()
        except OSError as exc:
            self._check()
            error = ReadError(str(exc) or type(exc).__name__)
            error.__cause__ = exc
            raise _Unanswered(error) from exc
        self._check()

    async def _read(self, conn: _Conn) -> bytes:
        self._arm(self._timeouts.idle, "read")
        try:
            data = await conn.reader.read(_READ)
        except OSError as exc:
            self._check()
            raise ReadError(str(exc) or type(exc).__name__) from exc
        self._check()
        return data

    async def _head(self, conn: _Conn) -> None:
        held = b""
        while True:
            end = held.find(b"\r\n\r\n")
            if end < 0:
                if len(held) > MAX_HEAD:
                    raise RemoteProtocolError("a response head longer than 64 kB")
                try:
                    data = await self._read(conn)
                except ReadError as exc:
                    if held:
                        raise
                    raise _Unanswered(exc) from exc.__cause__
                if not data:
                    error = RemoteProtocolError("Server disconnected without sending a response.")
                    raise _Unanswered(error) if not held else error
                held += data
                continue
            try:
                status, version, headers = parse_head(held[:end])
                rest = held[end + 4 :]
                if 100 <= status < 200 and status != 101:
                    held = rest  # an interim answer (100 Continue, 103): the real one follows
                    continue
                framing = framing_for(self._method, status, headers)
            except ProtocolError as exc:
                raise RemoteProtocolError(str(exc)) from None
            self.status, self.headers, self._framing = status, headers, framing
            self._reusable = framing.reusable and keep_alive(version, headers)
            try:
                self._inflater = Inflater.of(headers)
                self._first = framing.feed(rest) if rest else b""
            except ProtocolError as exc:
                raise RemoteProtocolError(str(exc)) from None
            return

    # --- the body ---------------------------------------------------------------------------

    async def chunk(self) -> bytes:
        framing, conn = self._framing, self._conn
        assert framing is not None and conn is not None, "start() first"
        try:
            if self._first:
                data, self._first = self._first, b""
                if out := self._inflate(data):
                    return out
            while not framing.done:
                raw = await self._read(conn)
                if not raw:
                    framing.eof()  # raises unless the body ends with the connection
                    break
                body = framing.feed(raw)
                if body and (out := self._inflate(body)):
                    return out
            if self._ended:
                return b""
            self._ended = True
            return self._inflater.flush() if self._inflater is not None else b""
        except ProtocolError as exc:
            raise RemoteProtocolError(str(exc)) from None

    def _inflate(self, data: bytes) -> bytes:
        return self._inflater.feed(data) if self._inflater is not None else data

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        conn, self._conn = self._conn, None
        if conn is None:
            return
        framing = self._framing
        done = framing is not None and framing.done and not framing.extra
        if done and self._reusable and not self._aborted and not self._fired:
            self._pool._checkin(conn)
        else:
            conn.close()


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LeanTransport] = (
    weakref.WeakKeyDictionary()
)


def shared_transport() -> LeanTransport:
    """The pool of the running event loop, made on first use; its idle connections are
    closed when the loop shuts down (``asyncio.run``, ``anyio.run``)."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = LeanTransport()
        pool.closer = _closed_with_the_loop(pool)
        with contextlib.suppress(StopIteration):
            # Run it to its ``yield``: the loop now tracks it, and finalises it (closing the
            # pool) when it shuts down its async generators, before it closes.
            pool.closer.asend(None).send(None)
    return pool


async def _closed_with_the_loop(pool: LeanTransport) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        pool.close_idle()


async def close_shared_transport() -> None:
    pool = _pools.pop(asyncio.get_running_loop(), None)
    if pool is not None:
        await pool.aclose()


__all__ = [
    "MAX_IDLE",
    "LeanExchange",
    "LeanTransport",
    "close_shared_transport",
    "shared_transport",
]
