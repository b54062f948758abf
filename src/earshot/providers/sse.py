"""An incremental Server-Sent Events decoder: bytes in, events out.

Follows the WHATWG event-stream rules: lines end with LF, CRLF or CR; ``data:`` lines join
with LF; lines starting with ``:`` are comments; ``event``, ``id`` and ``retry`` fields; a
blank line dispatches; an event with no data is not dispatched. Chunk boundaries may fall
anywhere, including inside a UTF-8 sequence or between the CR and LF of a CRLF pair.

Unlike a browser, ``close()`` dispatches an event whose final blank line never arrived: a
vendor that closes the connection straight after its last ``data:`` line loses nothing.

Plain synchronous code with no dynamic tricks, so mypyc can compile this module; it defines
no ``msgspec.Struct``.
"""

from __future__ import annotations

import codecs
from typing import Final

_BOM: Final = "\ufeff"


class SSEEvent:
    """One dispatched event. ``event`` is ``"message"`` when the stream named none."""

    __slots__ = ("data", "event", "id", "retry")

    def __init__(
        self, event: str, data: str, id: str | None = None, retry: int | None = None
    ) -> None:
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry

    def __repr__(self) -> str:
        return f"SSEEvent(event={self.event!r}, data={self.data!r}, id={self.id!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SSEEvent):
            return NotImplemented
        return (
            self.event == other.event
            and self.data == other.data
            and self.id == other.id
            and self.retry == other.retry
        )

    __hash__ = None  # type: ignore[assignment]  # mutable value object: equality, no hashing


class SSEDecoder:
    """Feed it byte chunks as they arrive; it returns the events each chunk completes."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._pending_cr = False
        self._first = True
        self._event = ""
        self._data: list[str] = []
        self._has_data = False
        self._last_id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        return self._feed_text(self._utf8.decode(chunk, False))

    def close(self) -> list[SSEEvent]:
        """End of stream: flush a partial line and dispatch a pending event."""
        out = self._feed_text(self._utf8.decode(b"", True))
        if self._buffer:
            self._line(self._buffer, out)
            self._buffer = ""
        self._dispatch(out)
        return out

    def _feed_text(self, text: str) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        if not text:
            return out
        if self._first:
            self._first = False
            if text.startswith(_BOM):
                text = text[1:]
        if self._pending_cr:
            self._pending_cr = False
            if text.startswith("\n"):
                text = text[1:]
        buf = self._buffer + text if self._buffer else text
        start = 0
        n = len(buf)
        while start < n:
            lf = buf.find("\n", start)
            cr = buf.find("\r", start, lf if lf >= 0 else n)
            if cr >= 0:
                end = cr
                if cr + 1 < n:
                    nxt = cr + 2 if buf[cr + 1] == "\n" else cr + 1
                else:
                    self._pending_cr = True
                    nxt = cr + 1
            elif lf >= 0:
                end = lf
                nxt = lf + 1
            else:
                break
            self._line(buf[start:end], out)
            start = nxt
        self._buffer = buf[start:]
        return out

    def _line(self, line: str, out: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(out)
            return
        if line[0] == ":":
            return
        colon = line.find(":")
        if colon < 0:
            name = line
            value = ""
        else:
            name = line[:colon]
            value = line[colon + 1 :]
            if value.startswith(" "):
                value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)

    def _dispatch(self, out: list[SSEEvent]) -> None:
        if self._has_data:
            out.append(
                SSEEvent(
                    self._event or "message", "\n".join(self._data), self._last_id, self._retry
                )
            )
        self._event = ""
        self._data = []
        self._has_data = False


__all__ = ["SSEDecoder", "SSEEvent"]
