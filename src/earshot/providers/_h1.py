"""HTTP/1.1 framing without I/O: the request head, the response head, and the body's
framing (chunked, a content length, or until the connection closes) and content coding
(gzip, deflate), for the model-request client in ``providers.lean``.

Everything here is synchronous and works on bytes: ``lean`` reads from the socket and
feeds what arrived. A malformed answer raises ``ProtocolError`` with a short reason.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping

MAX_HEAD = 64 * 1024
"""The longest response head (status line and headers) accepted."""


class ProtocolError(Exception):
    """The server's bytes are not HTTP/1.1 as expected."""


class Headers(Mapping[str, str]):
    """Response headers, looked up case-insensitively; a repeated header's values are
    joined with ``", "`` (as HTTP allows for lists)."""

    __slots__ = ("_map",)

    def __init__(self, pairs: list[tuple[str, str]] | None = None) -> None:
        self._map: dict[str, str] = {}
        for name, value in pairs or ():
            key = name.lower()
            self._map[key] = f"{self._map[key]}, {value}" if key in self._map else value

    def __getitem__(self, name: str) -> str:
        return self._map[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._map

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __repr__(self) -> str:
        return f"Headers({self._map!r})"


def request_head(method: str, target: str, host: str, headers: Mapping[str, str]) -> bytes:
    """The request line and headers, ending with the blank line. ``host`` goes first, as
    HTTP/1.1 asks; a ``host`` in ``headers`` is not sent twice."""
    lines = [f"{method} {target} HTTP/1.1", f"host: {host}"]
    for name, value in headers.items():
        if name.lower() == "host":
            continue
        if "\n" in value or "\r" in value or "\n" in name or "\r" in name:
            raise ValueError(f"header {name!r} holds a line break")
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def parse_head(data: bytes) -> tuple[int, str, Headers]:
    """``(status, http_version, headers)`` of a response head (without its blank line)."""
    text = data.decode("latin-1")
    status_line, _, rest = text.partition("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ProtocolError(f"not an HTTP/1.1 status line: {status_line[:60]!r}")
    pairs: list[tuple[str, str]] = []
    for line in rest.split("\r\n") if rest else ():
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise ProtocolError(f"malformed header line: {line[:60]!r}")
        pairs.append((name, value.strip(" \t")))
    return int(parts[1]), parts[0], Headers(pairs)


class Framing:
    """How a response body ends. ``feed`` returns the body bytes in what arrived and keeps
    anything after the end in ``extra``; ``done`` once the body is complete; ``eof`` is
    called when the connection closed (an error unless the body ends with the
    connection)."""

    done = False
    extra = b""
    reusable = True
    """Whether the connection can carry another request once the body is done."""

    def feed(self, data: bytes) -> bytes:
        raise NotImplementedError

    def eof(self) -> None:
        if not self.done:
            raise ProtocolError(
                f"peer closed connection without sending complete message body ({self.missing()})"
            )

    def missing(self) -> str:
        return "incomplete body"


class Sized(Framing):
    def __init__(self, length: int) -> None:
        self.left = length
        self.done = length == 0

    def feed(self, data: bytes) -> bytes:
        body, self.extra = data[: self.left], data[self.left :]
        self.left -= len(body)
        self.done = self.left == 0
        return body

    def missing(self) -> str:
        return f"{self.left} bytes of the content length missing"


class UntilClose(Framing):
    reusable = False

    def feed(self, data: bytes) -> bytes:
        return data

    def eof(self) -> None:
        self.done = True


class Chunked(Framing):
    """``Transfer-Encoding: chunked``: sizes in hex (extensions ignored), data, and the
    trailers after the last, empty chunk (read and dropped)."""

    def __init__(self) -> None:
        self._held = b""
        self._left = 0  # data bytes left in the current chunk
        self._state = "size"  # "size", "data", "crlf", "trailer"

    def feed(self, data: bytes) -> bytes:
        buf = self._held + data
        self._held = b""
        out: list[bytes] = []
        pos = 0
        while pos < len(buf) and not self.done:
            if self._state == "data":
                piece = buf[pos : pos + self._left]
                out.append(piece)
                pos += len(piece)
                self._left -= len(piece)
                if self._left == 0:
                    self._state = "crlf"
                continue
            end = buf.find(b"\n", pos)
            if end < 0:
                if len(buf) - pos > 4096:
                    raise ProtocolError("a chunk header longer than 4 kB")
                self._held = buf[pos:]
                break
            line = buf[pos:end].rstrip(b"\r")
            pos = end + 1
            if self._state == "crlf":
                if line:
                    raise ProtocolError("a chunk not followed by its line end")
                self._state = "size"
            elif self._state == "size":
                size = line.split(b";", 1)[0].strip()
                try:
                    self._left = int(size, 16)
                except ValueError:
                    raise ProtocolError(f"a bad chunk size: {bytes(size[:20])!r}") from None
                self._state = "data" if self._left else "trailer"
            elif not line:  # the blank line after the trailers
                self.done = True
        self.extra = buf[pos:] if self.done else b""
        return b"".join(out)

    def missing(self) -> str:
        return "incomplete chunked read"


def framing_for(method: str, status: int, headers: Headers) -> Framing:
    """The body framing of a response, per RFC 9112 section 6.3."""
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return Sized(0)
    coding = headers.get("transfer-encoding", "").lower()
    if coding:
        if coding.rsplit(",", 1)[-1].strip() == "chunked":
            return Chunked()
        return UntilClose()
    length = headers.get("content-length")
    if length is not None:
        values = {v.strip() for v in length.split(",")}
        value = values.pop() if len(values) == 1 else ""
        if not value.isdigit():
            raise ProtocolError(f"a bad content-length: {length[:40]!r}")
        return Sized(int(value))
    return UntilClose()


def keep_alive(version: str, headers: Headers) -> bool:
    """Whether the server keeps the connection open after this response."""
    tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    if "close" in tokens:
        return False
    return version != "HTTP/1.0" or "keep-alive" in tokens


class Inflater:
    """Decodes a ``content-encoding`` of gzip or deflate (the latter with or without its
    zlib wrapper, as servers differ); any other coding passes through unchanged."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._obj: zlib._Decompress | None = None
        self._raw_tried = False
        if coding in ("gzip", "x-gzip"):
            self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            self._obj = zlib.decompressobj()

    @classmethod
    def of(cls, headers: Headers) -> Inflater | None:
        coding = headers.get("content-encoding", "").strip().lower()
        return cls(coding) if coding in ("gzip", "x-gzip", "deflate") else None

    def feed(self, data: bytes) -> bytes:
        assert self._obj is not None
        try:
            return self._obj.decompress(data)
        except zlib.error as exc:
            if self.coding == "deflate" and not self._raw_tried:
                self._raw_tried = True  # a raw deflate stream, no zlib header
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.feed(data)
            raise ProtocolError(f"a {self.coding} body that does not decode ({exc})") from None

    def flush(self) -> bytes:
        assert self._obj is not None
        return self._obj.flush()


__all__ = [
    "MAX_HEAD",
    "Chunked",
    "Framing",
    "Headers",
    "Inflater",
    "ProtocolError",
    "Sized",
    "UntilClose",
    "framing_for",
    "keep_alive",
    "parse_head",
    "request_head",
]
