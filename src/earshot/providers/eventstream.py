"""An incremental decoder for the AWS event-stream framing (Bedrock's streaming answers).

One message on the wire::

    total length    uint32 BE   the whole message, these 4 bytes and the CRCs included
    headers length  uint32 BE
    prelude CRC     uint32 BE   CRC-32 of the 8 bytes above
    headers         repeated:   name length (uint8), name (UTF-8), value type (uint8), value
    payload         total - headers - 16 bytes
    message CRC     uint32 BE   CRC-32 of everything before it, prelude CRC included

Header value types: 0 true, 1 false (no value bytes), 2 int8, 3 int16, 4 int32, 5 int64,
6 bytes (uint16 length), 7 string (uint16 length, UTF-8), 8 timestamp (int64 ms), 9 UUID (16
bytes). All integers are big-endian and signed. The CRC is the common CRC-32 (``zlib.crc32``).

Chunk boundaries may fall anywhere: every cutting of a stream yields the messages of feeding
it whole. A bad CRC, an impossible length or an unknown header type raises
``EventStreamError``: after one of those the rest of the stream cannot be framed, so the
caller ends the stream. ``close()`` raises if the stream stopped inside a message.

Plain synchronous code, no ``msgspec.Struct``: a candidate for mypyc like ``sse.py``.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from typing import Final

from earshot.providers.sse import SSEEvent

_PRELUDE: Final = 12
_MIN_MESSAGE: Final = 16
# The service's own cap on one message; a larger length means the framing is lost.
_MAX_MESSAGE: Final = 16 * 1024 * 1024
_MAX_HEADERS: Final = 128 * 1024

HeaderValue = bool | int | bytes | str


class EventStreamError(Exception):
    """The bytes are not a valid event stream (CRC mismatch, bad length, bad header)."""


class EventMessage:
    """One decoded message: its headers by name and its raw payload."""

    __slots__ = ("headers", "payload")

    def __init__(self, headers: dict[str, HeaderValue], payload: bytes) -> None:
        self.headers = headers
        self.payload = payload

    def header(self, name: str) -> str:
        """A string header's value, ``""`` when absent or not a string."""
        value = self.headers.get(name)
        return value if isinstance(value, str) else ""

    def __repr__(self) -> str:
        return f"EventMessage(headers={self.headers!r}, payload={self.payload[:80]!r})"


class EventStreamDecoder:
    """Bytes in, ``EventMessage``s out. Call ``close()`` once at the end of the stream."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, chunk: bytes) -> list[EventMessage]:
        self._buf += chunk
        out: list[EventMessage] = []
        while len(self._buf) >= _PRELUDE:
            total, headers_len, prelude_crc = struct.unpack_from(">III", self._buf, 0)
            if zlib.crc32(bytes(self._buf[:8])) != prelude_crc:
                raise EventStreamError("event stream prelude CRC mismatch")
            if total < _MIN_MESSAGE or total > _MAX_MESSAGE:
                raise EventStreamError(f"event stream message length {total} out of range")
            if headers_len > _MAX_HEADERS or headers_len > total - _MIN_MESSAGE:
                raise EventStreamError(f"event stream headers length {headers_len} out of range")
            if len(self._buf) < total:
                break
            message = bytes(self._buf[:total])
            del self._buf[:total]
            (message_crc,) = struct.unpack_from(">I", message, total - 4)
            if zlib.crc32(message[: total - 4]) != message_crc:
                raise EventStreamError("event stream message CRC mismatch")
            headers = _decode_headers(message[_PRELUDE : _PRELUDE + headers_len])
            out.append(EventMessage(headers, message[_PRELUDE + headers_len : total - 4]))
        return out

    def close(self) -> list[EventMessage]:
        if self._buf:
            left = len(self._buf)
            self._buf.clear()
            raise EventStreamError(f"event stream ended inside a message ({left} bytes left)")
        return []


def _decode_headers(raw: bytes) -> dict[str, HeaderValue]:
    headers: dict[str, HeaderValue] = {}
    pos = 0
    end = len(raw)
    try:
        while pos < end:
            name_len = raw[pos]
            pos += 1
            name = raw[pos : pos + name_len].decode("utf-8")
            pos += name_len
            kind = raw[pos]
            pos += 1
            value: HeaderValue
            if kind == 0:
                value = True
            elif kind == 1:
                value = False
            elif kind == 2:
                value = struct.unpack_from(">b", raw, pos)[0]
                pos += 1
            elif kind == 3:
                value = struct.unpack_from(">h", raw, pos)[0]
                pos += 2
            elif kind == 4:
                value = struct.unpack_from(">i", raw, pos)[0]
                pos += 4
            elif kind in (5, 8):
                value = struct.unpack_from(">q", raw, pos)[0]
                pos += 8
            elif kind in (6, 7):
                (length,) = struct.unpack_from(">H", raw, pos)
                pos += 2
                data = raw[pos : pos + length]
                if len(data) != length:
                    raise EventStreamError("event stream header value runs past its block")
                pos += length
                value = data.decode("utf-8") if kind == 7 else data
            elif kind == 9:
                value = raw[pos : pos + 16]
                pos += 16
            else:
                raise EventStreamError(f"event stream header {name!r} has unknown type {kind}")
            if pos > end:
                raise EventStreamError("event stream header value runs past its block")
            headers[name] = value
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise EventStreamError(f"event stream headers are malformed ({exc})") from exc
    return headers


class EventStreamFrames:
    """The decoder behind the same face as ``SSEDecoder``: each message becomes an
    ``SSEEvent`` whose ``event`` is the ``:event-type`` (an exception's is
    ``exception:<:exception-type>``, an error message's ``error:<:error-code>`` with
    ``{"message": <:error-message>}`` as data) and whose ``data`` is the UTF-8 payload.
    Framing that cannot continue (a bad CRC, a cut message) becomes one
    ``earshot:framing-error`` event whose data is the reason, and nothing after it."""

    def __init__(self) -> None:
        self._decoder = EventStreamDecoder()
        self._broken = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        return self._run(lambda: self._decoder.feed(chunk))

    def close(self) -> list[SSEEvent]:
        return self._run(self._decoder.close)

    def _run(self, step: Callable[[], list[EventMessage]]) -> list[SSEEvent]:
        if self._broken:
            return []
        try:
            messages = step()
        except EventStreamError as exc:
            self._broken = True
            return [SSEEvent(FRAMING_ERROR, str(exc))]
        return [_as_event(m) for m in messages]


FRAMING_ERROR: Final = "earshot:framing-error"


def _as_event(message: EventMessage) -> SSEEvent:
    kind = message.header(":message-type")
    data = message.payload.decode("utf-8", "replace")
    if kind == "exception":
        return SSEEvent("exception:" + message.header(":exception-type"), data)
    if kind == "error":
        text = json.dumps({"message": message.header(":error-message")})
        return SSEEvent("error:" + message.header(":error-code"), text)
    return SSEEvent(message.header(":event-type"), data)


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One message with string headers: what a fake server (and a test) sends."""
    block = bytearray()
    for name, value in headers.items():
        name_b = name.encode("utf-8")
        value_b = value.encode("utf-8")
        block += struct.pack(">B", len(name_b)) + name_b + b"\x07"
        block += struct.pack(">H", len(value_b)) + value_b
    total = _MIN_MESSAGE + len(block) + len(payload)
    prelude = struct.pack(">II", total, len(block))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + bytes(block) + payload
    return head + struct.pack(">I", zlib.crc32(head))


__all__ = [
    "FRAMING_ERROR",
    "EventMessage",
    "EventStreamDecoder",
    "EventStreamError",
    "EventStreamFrames",
    "encode_message",
]
