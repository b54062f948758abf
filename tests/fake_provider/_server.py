"""A real HTTP/1.1 server on loopback that answers each request with the next scripted reply.

Shape::

    FakeProvider                   started on construction; close() or ``with`` stops it
      script(*replies)             queue; each request takes the next reply, in order
      responder                    optional: answers a request itself (a window that refuses
                                   large requests, a summary call) before the queue is used
      requests                     one RecordedRequest per request received, in order
      answered                     (request, when its reply was sent), as replies finish
      _Server                      ThreadingHTTPServer, one daemon thread per connection
        _Handler                   keep-alive; SSEReply as a chunked body, RawReply with
                                   Content-Length; an empty queue answers 500

Contracts: a request is recorded before its reply is sent, so once a client has read a
response, ``requests`` holds its request. Slow streams run on their own connection thread
and block no one. ``close()`` returns promptly even mid-stream: it stops accepting, wakes
every delayed stream, shuts down every open connection and joins the connection threads.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from tests.fake_provider._replies import RawReply, Reply, SSEReply
from tests.fake_provider._request import RecordedRequest
from tests.fake_provider.invariants import assert_tool_results_paired, detect_wire

Responder = Callable[[RecordedRequest], Reply]

NO_REPLY_MESSAGE = "fake provider: no scripted reply"
_JOIN_TIMEOUT = 5.0


class FakeProvider:
    """A scripted vendor endpoint at ``base_url`` ("http://127.0.0.1:PORT", no slash; with
    ``tls``, a server context, "https://localhost:PORT").

    Every request, whatever its method and path, takes the next scripted reply; with the
    queue empty it gets a 500 JSON error whose message is ``NO_REPLY_MESSAGE``.
    """

    def __init__(self, *, port: int = 0, tls: ssl.SSLContext | None = None) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply | Responder] = deque()
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[RecordedRequest], Reply | None] | None = None
        """Consulted first for every request; a reply it returns is sent instead of the
        next scripted one (which stays queued)."""
        self.replied_at: list[float] = []
        """``time.perf_counter()`` when each reply was completely sent, in order."""
        self.answered: list[tuple[RecordedRequest, float]] = []
        """Each request with the ``time.perf_counter()`` its reply was completely sent, in
        the order the replies finished (pairs them when requests overlap)."""
        self._server = _Server(self, port)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        if tls is not None:
            # TLS on every accepted connection (the handshake runs on the accepting thread);
            # the certificate must name "localhost"
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self.base_url = f"https://localhost:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-provider",
            daemon=True,
        )
        self._thread.start()
        self._closed = False

    def script(self, *replies: Reply | Responder) -> None:
        """Queue replies after any still waiting. A ``Responder`` builds its reply from the
        request it answers (a reply that depends on what was asked, such as its effort)."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        """Scripted replies not yet taken."""
        with self._lock:
            return len(self._queue)

    @property
    def connections(self) -> int:
        """TCP connections accepted so far (keep-alive reuses one for many requests)."""
        return self._server.connection_count

    def assert_protocol_invariants(self) -> None:
        """Check every recorded request whose path names a known wire: each tool call in
        its history answered exactly once, after the call, and no orphan results."""
        for request in list(self.requests):
            wire = detect_wire(request)
            if wire is not None:
                assert_tool_results_paired(request, wire)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        server = self._server
        server.stopping.set()
        server.shutdown()
        self._thread.join()
        server.drop_connections()
        server.join_connection_threads(_JOIN_TIMEOUT)
        server.server_close()

    def __enter__(self) -> FakeProvider:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _take(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            responder = self.responder
            answer = responder(request) if responder is not None else None
            if answer is not None:
                return answer
            scripted = self._queue.popleft() if self._queue else None
        if callable(scripted):
            return scripted(request)
        return scripted


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, provider: FakeProvider, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.provider = provider
        self.stopping = threading.Event()
        self.connection_count = 0
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._connection_threads: list[threading.Thread] = []

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        assert isinstance(request, socket.socket)
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name="fake-provider-connection",
            daemon=True,
        )
        with self._lock:
            self._open.add(request)
            self.connection_count += 1
            self._connection_threads = [t for t in self._connection_threads if t.is_alive()]
            self._connection_threads.append(thread)
        thread.start()

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        if isinstance(request, socket.socket):
            with self._lock:
                self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        # A client that hangs up, or close() shutting a connection down, is not an error.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        with self._lock:
            open_sockets = list(self._open)
        for sock in open_sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def join_connection_threads(self, timeout: float) -> None:
        with self._lock:
            threads = list(self._connection_threads)
        for thread in threads:
            thread.join(timeout)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30.0
    disable_nagle_algorithm = True
    """Each chunk leaves at once, as a provider's streaming server sends it: with Nagle on,
    a chunk written before the client acknowledged the one before waits for that
    acknowledgement (up to the client's delayed-ACK timer, 40 ms on Linux), which the
    timings measured against this server would count as the client's."""
    server: _Server

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _serve(self) -> None:
        try:
            body = self._read_body()
            received = time.perf_counter()
            url = urlsplit(self.path)
            request = RecordedRequest(
                method=self.command,
                path=url.path,
                query=dict(parse_qsl(url.query, keep_blank_values=True)),
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body,
                received_at=received,
            )
            reply = self.server.provider._take(request)
            if reply is None:
                self._send_raw(_no_reply(request))
            elif isinstance(reply, RawReply):
                self._send_raw(reply)
            else:
                self._send_sse(reply)
            self.wfile.flush()
            done = time.perf_counter()
            self.server.provider.replied_at.append(done)
            self.server.provider.answered.append((request, done))
        except OSError:
            self.close_connection = True

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send_headers(self, status: int, defaults: dict[str, str], extra: dict[str, str]) -> None:
        self.send_response(status)
        given = {name.lower() for name in extra}
        for name, value in defaults.items():
            if name.lower() not in given:
                self.send_header(name, value)
        for name, value in extra.items():
            self.send_header(name, value)

    def _send_raw(self, reply: RawReply) -> None:
        self._send_headers(reply.status, {"Content-Type": reply.content_type}, reply.headers)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)

    def _send_sse(self, reply: SSEReply) -> None:
        if reply.stall > 0 and self.server.stopping.wait(reply.stall):
            self.close_connection = True
            return
        defaults = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        self._send_headers(reply.status, defaults, reply.headers)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, chunk in enumerate(reply.body_chunks()):
            if index and reply.delay > 0 and self.server.stopping.wait(reply.delay):
                self.close_connection = True
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        if reply.reset:
            self.wfile.flush()
            # Linger 0: close() sends RST instead of FIN, as a dropped proxy hop does.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif reply.abrupt:
            self.close_connection = True
        else:
            self.wfile.write(b"0\r\n\r\n")


def _no_reply(request: RecordedRequest) -> RawReply:
    return RawReply.json(
        500,
        {
            "error": {
                "type": "fake_provider_error",
                "message": NO_REPLY_MESSAGE,
                "request": f"{request.method} {request.path}",
            }
        },
    )
