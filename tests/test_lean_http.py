"""The model requests' HTTP client (``providers.lean``) against real servers on loopback:
the body framings and content codings a server may send, a pooled connection the server
dropped, TLS, the write timeout, an abort before the headers, and the way through a proxy
(httpx, the one case it is used for)."""

from __future__ import annotations

import base64
import gzip
import socket
import ssl
import threading
import zlib
from dataclasses import replace
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from earshot.providers.http import Timeouts
from earshot.providers.lean import LeanTransport
from earshot.providers.retry import NO_RETRY
from earshot.providers.stream import collect, stream, transport_for
from earshot.providers.target import Secret, Target
from earshot.providers.transport import request_url
from earshot.providers.types import Finish, Message, ModelRequest, StreamEvent, TextPart
from tests.fake_provider import FakeProvider, anthropic
from tests.net_support import RawServer, Relay, self_signed, server_context
from tests.test_stream_faults import FAST, ask
from tests.wire.streams import error_of, finish_of, texts

_KEY = "sk-ant-lean-test-0123456789"


def target(base_url: str) -> Target:
    return Target(
        provider="anthropic",
        wire="anthropic-messages",
        base_url=base_url,
        model="m-1",
        auth="x-api-key",
        api_key=Secret(_KEY),
    )


def sse(text: str) -> bytes:
    return b"".join(anthropic.text_turn(text, chunks=3).body_chunks())


def run(url: str, *, timeouts: Timeouts | None = None) -> list[StreamEvent]:
    async def go() -> list[StreamEvent]:
        return await collect(ask(), target(url), retry=NO_RETRY, timeouts=timeouts)

    return anyio.run(go)


# --- bodies ---------------------------------------------------------------------------------


def test_a_body_that_ends_with_the_connection_is_read_to_its_end() -> None:
    body = sse("until the close")

    def handler(conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + body)

    with RawServer(handler) as server:
        events = run(server.url)
    assert texts(events) == "until the close"
    assert finish_of(events).reason == "stop"


def _encoded(coding: str, data: bytes) -> bytes:
    if coding == "gzip":
        return gzip.compress(data)
    if coding == "deflate":
        return zlib.compress(data)
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)  # "deflate" as some servers send it
    return raw.compress(data) + raw.flush()


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_a_compressed_answer_is_decoded_though_identity_was_asked(coding: str) -> None:
    packed = _encoded(coding, sse("packed " * 50))
    name = "deflate" if coding == "raw-deflate" else coding

    def handler(conn: socket.socket) -> None:
        server.read(conn)
        head = (
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            f"Content-Encoding: {name}\r\ncontent-length: {len(packed)}\r\n\r\n"
        )
        conn.sendall(head.encode() + packed)

    with RawServer(handler) as server:
        events = run(server.url)
    assert texts(events) == "packed " * 50
    assert b"accept-encoding: identity" in server.requests[0].lower()


def test_a_chunked_answer_in_odd_pieces_with_extensions_and_trailers_is_read() -> None:
    body = sse("in pieces")
    chunked = b"".join(
        b"%x;ext=1\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7])
        for i in range(0, len(body), 7)
    )
    wire = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nTRANSFER-ENCODING: chunked\r\ncontent-type: text/event-stream\r\n\r\n"
        + chunked
        + b"0\r\nx-trailer: yes\r\n\r\n"
    )

    def handler(conn: socket.socket) -> None:
        server.read(conn)
        for i in range(0, len(wire), 5):  # the bytes trickle in, splitting every boundary
            conn.sendall(wire[i : i + 5])

    with RawServer(handler) as server:
        events = run(server.url)
    assert texts(events) == "in pieces"


def test_headers_are_read_whatever_their_case() -> None:
    def handler(conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(
            b"HTTP/1.1 204 No Content\r\nX-Request-ID: abc\r\nX-Multi: 1\r\nx-multi: 2\r\n\r\n"
        )

    async def go() -> tuple[int, str, str, str]:
        pool = LeanTransport()
        exchange = pool.exchange("GET", server.url + "/", {}, b"", Timeouts())
        await exchange.start()
        assert await exchange.chunk() == b""
        await exchange.aclose()
        await pool.aclose()
        headers = exchange.headers
        return exchange.status, headers["x-request-id"], headers["X-REQUEST-ID"], headers["X-Multi"]

    with RawServer(handler) as server:
        assert anyio.run(go) == (204, "abc", "abc", "1, 2")


def test_query_parameters_are_added_to_the_url_once_encoded() -> None:
    assert request_url("http://h:1/v1/x:go?a=1", {"alt": "sse", "q": "a b&c"}) == (
        "http://h:1/v1/x:go?a=1&alt=sse&q=a+b%26c"
    )
    assert request_url("http://h/a b/%41") == "http://h/a%20b/%41"


# --- a pooled connection the server dropped --------------------------------------------------


def test_a_pooled_connection_the_server_dropped_is_replaced_once_without_an_error() -> None:
    ok = sse("fresh")
    reply = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n%s"

    def answers_once_then_drops_the_next(conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(reply % (len(ok), ok))
        server.read(conn)  # the next request arrives; the server closes instead of answering

    def answers(conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(reply % (len(ok), ok))

    async def go() -> list[str]:
        return [texts(await collect(ask(), target(server.url), retry=NO_RETRY)) for _ in range(2)]

    with RawServer(answers_once_then_drops_the_next, answers) as server:
        assert anyio.run(go) == ["fresh", "fresh"]
    assert server.connections == 2
    assert len(server.requests) == 3  # the second request was sent twice


def test_a_new_connection_closed_before_the_answer_is_an_error_not_resent() -> None:
    with RawServer(lambda conn: server.read(conn)) as server:
        error = error_of(run(server.url))
    assert error.message == (
        f"anthropic: connection closed by 127.0.0.1:{server.port} before the answer's headers "
        "(Server disconnected without sending a response.)"
    )
    assert len(server.requests) == 1


# --- timeouts and abort ------------------------------------------------------------------------


def test_a_request_the_server_does_not_read_times_out_on_the_write_timeout() -> None:
    done = threading.Event()
    big = ModelRequest(
        model="m-1", messages=[Message(role="user", parts=[TextPart(text="x" * 48_000_000)])]
    )

    async def go() -> list[StreamEvent]:
        try:
            return await collect(
                big, target(server.url), retry=NO_RETRY, timeouts=Timeouts(write=0.3)
            )
        finally:
            done.set()

    with RawServer(lambda conn: done.wait(60)) as server:  # accepts, never reads
        error = error_of(anyio.run(go))
    assert error.message == f"anthropic: sending the request to 127.0.0.1:{server.port} timed out"


class _Unanswering:
    """A listener whose accept queue is full: a new connection to it hangs in its
    handshake (Linux drops the SYN), as to a host that does not answer."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.filler = socket.create_connection(("127.0.0.1", self.port))  # fills the queue

    def close(self) -> None:
        self.filler.close()
        self.sock.close()


def test_a_host_that_does_not_answer_is_a_connect_timeout_naming_the_base_url() -> None:
    silent = _Unanswering()
    try:
        error = error_of(run(silent.url, timeouts=Timeouts(connect=0.3)))
    finally:
        silent.close()
    assert error.message == (
        f"anthropic: no connection to 127.0.0.1:{silent.port} within 300 ms "
        f"(connect timeout; base URL {silent.url})"
    )


def test_an_abort_while_connecting_ends_the_stream_at_once() -> None:
    silent = _Unanswering()

    async def go() -> list[StreamEvent]:
        request = ask()
        request.abort = anyio.Event()
        seen: list[StreamEvent] = []

        async def consume() -> None:
            async for event in stream(request, target(silent.url), retry=FAST):
                seen.append(event)

        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await anyio.sleep(0.2)  # the connect is under way (it would take 10 s)
            request.abort.set()
        return seen

    try:
        events = anyio.run(go)
    finally:
        silent.close()
    assert [type(e) for e in events] == [Finish]
    assert isinstance(events[0], Finish) and events[0].reason == "aborted"


def test_an_abort_while_waiting_for_the_headers_ends_the_stream_at_once(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(replace(anthropic.text_turn("late"), stall=30.0))
    arrived = threading.Event()
    fake_provider.responder = lambda request: arrived.set()

    async def go() -> list[StreamEvent]:
        request = ask()
        request.abort = anyio.Event()
        seen: list[StreamEvent] = []

        async def consume() -> None:
            async for event in stream(request, target(fake_provider.base_url), retry=FAST):
                seen.append(event)

        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await anyio.to_thread.run_sync(arrived.wait, 10)
            request.abort.set()
        return seen

    events = anyio.run(go)
    assert isinstance(events[-1], Finish) and events[-1].reason == "aborted"
    assert len(fake_provider.requests) == 1


# --- TLS ---------------------------------------------------------------------------------------


def test_tls_to_a_server_whose_certificate_is_trusted(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    trusting = ssl.create_default_context(cafile=str(cert))
    with FakeProvider(tls=server_context(cert, key)) as fake:
        fake.script(anthropic.text_turn("over tls"), anthropic.text_turn("again"))

        async def go() -> list[str]:
            pool = LeanTransport(ssl_context=trusting)
            try:
                return [
                    texts(await collect(ask(), target(fake.base_url), client=pool, retry=FAST))
                    for _ in range(2)
                ]
            finally:
                await pool.aclose()

        assert anyio.run(go) == ["over tls", "again"]
        assert fake.connections == 1
        assert fake.requests[0].headers["host"] == f"localhost:{fake.base_url.rsplit(':', 1)[1]}"


def test_a_certificate_nobody_trusts_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    with FakeProvider(tls=server_context(cert, key)) as fake:
        fake.script(anthropic.text_turn("never"))
        error = error_of(run(fake.base_url))
        assert fake.requests == []
    assert error.kind == "network"
    assert "could not connect to localhost:" in error.message
    assert "CERTIFICATE_VERIFY_FAILED" in error.message


# --- through a proxy ---------------------------------------------------------------------------


def test_a_request_goes_through_the_configured_proxy(
    fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = Relay(int(fake_provider.base_url.rsplit(":", 1)[1]))
    monkeypatch.setenv("HTTP_PROXY", relay.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    fake_provider.script(anthropic.text_turn("proxied"))
    try:
        assert texts(run(fake_provider.base_url)) == "proxied"
    finally:
        relay.close()
    assert relay.lines == [f"POST {fake_provider.base_url}/v1/messages HTTP/1.1"]


def test_no_proxy_sends_the_request_directly(
    fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "example.com,127.0.0.1")

    async def go() -> object:
        return transport_for(fake_provider.base_url + "/v1/messages")

    assert isinstance(anyio.run(go), LeanTransport)
    fake_provider.script(anthropic.text_turn("direct"))
    assert texts(run(fake_provider.base_url)) == "direct"


def test_a_header_no_request_can_carry_is_refused_without_sending_or_retrying(
    fake_provider: FakeProvider,
) -> None:
    broken = replace(target(fake_provider.base_url), headers={"x-gateway": "a\r\nx-smuggled: b"})

    async def go() -> list[StreamEvent]:
        return await collect(ask(), broken, retry=FAST)

    events = anyio.run(go)
    error = error_of(events)
    assert (error.kind, error.retryable) == ("invalid_request", False)
    assert "'x-gateway' holds a line break" in error.message
    assert fake_provider.requests == []
    assert len(events) == 1


def test_an_answer_that_closes_its_connection_is_followed_on_a_new_one() -> None:
    ok = sse("closing")
    reply = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nConnection: close\r\n"
        b"content-length: %d\r\n\r\n%s" % (len(ok), ok)
    )

    def answers_and_closes(conn: socket.socket) -> None:
        server.read(conn)
        conn.sendall(reply)

    async def go() -> list[str]:
        return [texts(await collect(ask(), target(server.url), retry=NO_RETRY)) for _ in range(2)]

    with RawServer(answers_and_closes, answers_and_closes) as server:
        assert anyio.run(go) == ["closing", "closing"]
    assert (server.connections, len(server.requests)) == (2, 2)  # none sent in vain


def test_a_body_shorter_than_its_content_length_is_a_cut_answer() -> None:
    whole = sse("cut short")
    sent = whole[: len(whole) // 2]

    def short(conn: socket.socket) -> None:
        server.read(conn)
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n"
        conn.sendall(head % len(whole) + sent)

    with RawServer(short) as server:
        error = error_of(run(server.url))
    assert error.kind == "network"
    assert f"connection closed by 127.0.0.1:{server.port} after " in error.message
    assert f"{len(whole) - len(sent)} bytes of the content length missing" in error.message


def test_user_info_in_the_base_url_is_sent_as_basic_auth(fake_provider: FakeProvider) -> None:
    gateway = fake_provider.base_url.replace("http://", "http://team:s%40cret@")
    fake_provider.script(anthropic.text_turn("let in"))
    assert texts(run(gateway)) == "let in"
    expected = "Basic " + base64.b64encode(b"team:s@cret").decode()
    assert fake_provider.requests[0].headers["authorization"] == expected
