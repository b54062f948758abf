#!/usr/bin/env python3
"""The floor under ``earshot -p``'s first request: a program that does nothing but send a
streamed request like it to ``$ANTHROPIC_BASE_URL`` and read the answer, with the libraries
earshot sends it with, or with fewer. ``run_all.py`` times these in the same interleaved
run as earshot's first request: what earshot adds is the difference.

Usage: first_request_floor.py LIBS
    LIBS: anyio-httpx, anyio-httpcore, anyio-asyncio (anyio and msgspec loaded, the request
    over asyncio streams: earshot's direct path since its own HTTP client) or asyncio
"""

from __future__ import annotations

import os
import sys

BODY = (
    b'{"model":"claude-sonnet-4-6","max_tokens":64,"stream":true,'
    b'"messages":[{"role":"user","content":"hello"}]}'
)
HEADERS = {
    "x-api-key": "bench-key",
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
}


def url() -> str:
    return os.environ["ANTHROPIC_BASE_URL"].rstrip("/") + "/v1/messages"


def with_httpx() -> None:
    import anyio
    import httpx
    import msgspec

    async def send() -> None:
        async with (
            httpx.AsyncClient(verify=False) as client,
            client.stream(
                "POST",
                url(),
                content=msgspec.json.encode(msgspec.json.decode(BODY)),
                headers=HEADERS,
            ) as response,
        ):
            async for _ in response.aiter_bytes():
                pass

    anyio.run(send)


def with_httpcore() -> None:
    import anyio
    import httpcore
    import msgspec

    async def send() -> None:
        body = msgspec.json.encode(msgspec.json.decode(BODY))
        async with (
            httpcore.AsyncConnectionPool() as pool,
            pool.stream("POST", url(), content=body, headers=list(HEADERS.items())) as response,
        ):
            async for _ in response.aiter_stream():
                pass

    anyio.run(send)


async def _send_over_asyncio_streams() -> None:
    """The request over a bare asyncio stream: what earshot's own client does on a direct
    connection, without its pool, timeouts or parsing."""
    import asyncio
    from urllib.parse import urlsplit

    parts = urlsplit(url())
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    head = "".join(f"{k}: {v}\r\n" for k, v in HEADERS.items())
    writer.write(
        f"POST {parts.path} HTTP/1.1\r\nhost: {parts.netloc}\r\n{head}"
        f"content-length: {len(BODY)}\r\nconnection: close\r\n\r\n".encode()
        + BODY
    )
    while await reader.read(65536):
        pass
    writer.close()


def with_anyio_asyncio() -> None:
    import anyio
    import msgspec

    msgspec.json.decode(BODY)
    anyio.run(_send_over_asyncio_streams)


def with_asyncio() -> None:
    import asyncio
    from urllib.parse import urlsplit

    async def send() -> None:
        parts = urlsplit(url())
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        head = "".join(f"{k}: {v}\r\n" for k, v in HEADERS.items())
        writer.write(
            f"POST {parts.path} HTTP/1.1\r\nhost: {parts.netloc}\r\n{head}"
            f"content-length: {len(BODY)}\r\nconnection: close\r\n\r\n".encode()
            + BODY
        )
        while await reader.read(65536):
            pass
        writer.close()

    asyncio.run(send())


FLOORS = {
    "anyio-httpx": with_httpx,
    "anyio-httpcore": with_httpcore,
    "anyio-asyncio": with_anyio_asyncio,
    "asyncio": with_asyncio,
}

if __name__ == "__main__":
    FLOORS[sys.argv[1]]()
