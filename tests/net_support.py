"""Real servers on loopback for the HTTP client's tests: a raw TCP server whose
connections are answered by scripted handlers (bodies and faults the fake provider does not
send), a plain-http forward proxy, and a self-signed certificate for "localhost"."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import socket
import ssl
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

Handler = Callable[[socket.socket], object]


def read_request(conn: socket.socket) -> bytes:
    """One request (head and content-length body) from ``conn``; b"" when it closed first."""
    data = b""
    while b"\r\n\r\n" not in data:
        got = conn.recv(65536)
        if not got:
            return b""
        data += got
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        got = conn.recv(65536)
        if not got:
            break
        body += got
    return head + b"\r\n\r\n" + body


class RawServer:
    """Each accepted connection is handed to the next handler (once they are used up, to
    ``then``; without it the connection is closed at once), on a thread of its own; the
    connection is closed when the handler returns. ``requests`` holds what handlers read
    with ``read``."""

    def __init__(self, *handlers: Handler, then: Handler | None = None) -> None:
        self._handlers: deque[Handler] = deque(handlers)
        self._then = then or _close
        self.connections = 0
        self.requests: list[bytes] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def read(self, conn: socket.socket) -> bytes:
        request = read_request(conn)
        if request:
            self.requests.append(request)
        return request

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.connections += 1
            handler = self._handlers.popleft() if self._handlers else self._then
            thread = threading.Thread(target=_serve, args=(handler, conn), daemon=True)
            self._threads.append(thread)
            thread.start()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        for thread in self._threads:
            thread.join(5)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _close(conn: socket.socket) -> object:
    return None


def _serve(handler: Handler, conn: socket.socket) -> None:
    try:
        handler(conn)
    except OSError:
        pass
    finally:
        conn.close()


class Relay:
    """A plain-http forward proxy: every connection is piped to ``upstream_port`` as it is
    (the fake provider reads the path from an absolute-form request line). ``lines`` holds
    the first request line of each connection."""

    def __init__(self, upstream_port: int) -> None:
        self.lines: list[str] = []
        self._upstream = upstream_port
        self._server = RawServer(then=self._pipe)
        self.url = self._server.url

    def _pipe(self, client: socket.socket) -> None:
        first = client.recv(65536)
        self.lines.append(first.split(b"\r\n", 1)[0].decode("latin-1"))
        with socket.create_connection(("127.0.0.1", self._upstream)) as upstream:
            upstream.sendall(first)
            back = threading.Thread(target=_copy, args=(upstream, client), daemon=True)
            back.start()
            _copy(client, upstream)
            back.join(10)

    def close(self) -> None:
        self._server.close()


def _copy(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for "localhost" and 127.0.0.1, and its key: ``(cert.pem, key.pem)``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


__all__ = ["Handler", "RawServer", "Relay", "read_request", "self_signed", "server_context"]
