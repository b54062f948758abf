"""Newline-delimited JSON-RPC over two file descriptors, answering what is not JSON-RPC.

The protocol library's own stdio transport logs a line it cannot parse and reads on, so
a client that sent it waits for an answer forever. This one replies, then reads on::

    a line that is not JSON (or not UTF-8)           -32700 parse error, id null
    JSON that is not a request, notification or      -32600 invalid request, with the
      response object (an array, a number, a bad       message's id when it had a usable
      "method" or "id", a wrong "jsonrpc")             one, else null
    a blank line                                     skipped

Everything else goes to the library's ``Connection`` (unknown methods and invalid params
are answered there). Lines are read by a daemon thread, so a blocked read never holds up
the event loop or the process exit; each message is written whole, in one call, so two
messages never interleave. ``receive`` returns None at end of input; ``send`` raises
``ConnectionError`` once the other end has gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from typing import BinaryIO

from earshot.providers.types import JSONObject, JSONValue

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def problem(line: bytes) -> tuple[JSONObject | None, JSONObject | None]:
    """``(message, None)`` for a JSON-RPC message, ``(None, error reply)`` for anything
    else, ``(None, None)`` for a blank line."""
    if not line.strip():
        return None, None
    try:
        value: JSONValue = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        return None, _error(None, PARSE_ERROR, "Parse error", f"not JSON: {exc}")
    if not isinstance(value, dict):
        return None, _invalid(None, "expected a JSON object")
    ident = value.get("id")
    usable_id = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
    if "id" in value and ident is not None and usable_id is None:
        return None, _error(
            None, INVALID_REQUEST, "Invalid request", "id must be a string or number"
        )
    if value.get("jsonrpc", "2.0") != "2.0":
        return None, _invalid(usable_id, 'jsonrpc must be "2.0"')
    if "method" in value:
        if not isinstance(value["method"], str):
            return None, _error(
                usable_id, INVALID_REQUEST, "Invalid request", "method must be a string"
            )
        return value, None
    if "id" in value and ("result" in value or "error" in value):
        return value, None
    return None, _invalid(usable_id, "neither a request nor a response")


def _invalid(ident: str | int | None, details: str) -> JSONObject:
    return _error(ident, INVALID_REQUEST, "Invalid request", details)


def _error(ident: str | int | None, code: int, message: str, details: str) -> JSONObject:
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "error": {"code": code, "message": message, "data": {"details": details}},
    }


class LineTransport:
    """The ``acp`` library's message transport over a readable binary file and a writable
    file descriptor."""

    def __init__(
        self, infile: BinaryIO, out_fd: int, *, first: bytes | None = None, ended: bool = False
    ) -> None:
        """``first``: a line already read from ``infile`` (by ``_early``), read before the
        rest; ``ended``: the input had already ended there."""
        self._in = infile
        self._out = out_fd
        self._lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._closed = False
        self._gone = False
        if first is not None:
            self._lines.put_nowait(first)
        if ended:
            self._lines.put_nowait(None)
            return
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, args=(loop,), name="acp-stdin", daemon=True).start()

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            while True:
                line = self._in.readline()
                if not line:
                    break
                loop.call_soon_threadsafe(self._lines.put_nowait, line)
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # a closed loop: the process is ending
                loop.call_soon_threadsafe(self._lines.put_nowait, None)

    async def receive(self) -> dict[str, object] | None:
        while True:
            line = await self._lines.get()
            if line is None:
                return None
            message, reply = problem(line)
            if reply is not None:
                with contextlib.suppress(ConnectionError):  # the end of input comes next
                    await self.send(reply)
            if message is not None:
                return dict(message)

    async def send(self, message: dict[str, object] | JSONObject) -> None:
        if self._closed or self._gone:
            raise ConnectionError("the client has gone")
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._out, view)
                view = view[written:]
        except OSError as exc:
            self._gone = True
            raise ConnectionError(f"the client has gone ({exc.strerror or exc})") from exc

    async def close(self) -> None:
        self._closed = True


__all__ = ["INVALID_REQUEST", "PARSE_ERROR", "LineTransport", "problem"]
