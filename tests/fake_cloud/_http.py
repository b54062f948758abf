"""A routed HTTP/1.1 server on loopback: every request goes to one handler function.

Unlike ``tests.fake_provider`` (a queue of scripted replies), cloud endpoints such as token
and metadata services answer any number of calls, from earshot and from the vendor's own
client alike, so a fake here is a function of the request. A reply is ``Answer``: status,
headers and either a whole body or a list of chunks sent with chunked encoding.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from tests.fake_provider._request import RecordedRequest


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] | None = None

    @classmethod
    def json(cls, status: int, value: object, **headers: str) -> Answer:
        return cls(
            status, json.dumps(value).encode(), {"content-type": "application/json", **headers}
        )

    @classmethod
    def text(cls, status: int, value: str) -> Answer:
        return cls(status, value.encode(), {"content-type": "text/plain"})


Handler = Callable[[RecordedRequest], Answer]


class RoutedServer:
    """Started on construction at ``base_url`` (``http://127.0.0.1:PORT``); ``close()`` stops
    it. ``requests`` records every request, in order."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[RecordedRequest] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.owner = self  # type: ignore[attr-defined]  # the handler finds us here
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.host = f"127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()

    def __enter__(self) -> RoutedServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        url = urlsplit(self.path)
        request = RecordedRequest(
            method=self.command,
            path=url.path,
            query=dict(parse_qsl(url.query, keep_blank_values=True)),
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
        )
        owner: RoutedServer = self.server.owner  # type: ignore[attr-defined]  # set above
        owner.requests.append(request)
        try:
            answer = owner.handler(request)
        except AssertionError as exc:
            answer = Answer.json(418, {"fake": "assertion failed", "detail": str(exc)})
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        if answer.chunks is None:
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)
        else:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in answer.chunks:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
