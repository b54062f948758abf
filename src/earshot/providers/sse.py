"""An incremental Server-Sent Events decoder: bytes in, events out.

Follows the WHATWG event-stream rules: the bytes are UTF-8 (an invalid sequence becomes
U+FFFD; one leading BOM is dropped); lines end with LF, CRLF or CR; a line starting with ``:``
is a comment; ``data:`` lines join with LF; ``event``, ``id`` and ``retry`` set the event type,
the last event id and the reconnection time; other field names are ignored; a line with no
colon is a field with an empty value; one space after the colon is dropped; a blank line
dispatches; an event with no ``data`` line is not dispatched.

Chunk boundaries may fall anywhere, including inside a UTF-8 sequence or between the CR and
LF of a CRLF pair: every cutting of a stream yields the events of feeding it whole.

Two values outlive an event, as in a browser: the last event id (an ``id`` line changes it; one
containing NUL is ignored) and the reconnection time (``retry``, ASCII digits only). Each
``SSEEvent`` carries both as they stand at its dispatch, so an ``id`` or ``retry`` sent in a
block with no data reaches the consumer with the next event.

Unlike a browser, ``close()`` processes a trailing line that has no line end and dispatches an
event whose final blank line never arrived: a vendor that closes the connection straight after
its last ``data:`` line loses nothing. Call ``close()`` once, at the end of the stream.

How it works: lines are framed on bytes and decoded a line (or a run of LF-ended lines) at a
time. CR and LF never occur inside a UTF-8 sequence, so this decodes exactly as the whole
stream would, and an unfinished line costs one list append per chunk however long it grows.

Plain synchronous code with no dynamic tricks, so mypyc can compile this module; it defines
no ``msgspec.Struct``.
"""

from __future__ import annotations

from typing import Final

_BOM: Final = b"\xef\xbb\xbf"
_CR: Final = 13
_LF: Final = 10
# A longer value is ignored, not parsed: no real reconnection time needs one, and int() refuses
# digit strings longer than sys.get_int_max_str_digits().
_RETRY_MAX_DIGITS: Final = 18


class SSEEvent:
    """One dispatched event. ``event`` is ``"message"`` when the stream named none.

    ``id`` is the last event id at dispatch (``None`` if the stream never set one); ``retry``
    is the last valid reconnection time in milliseconds, or ``None``.
    """

    __slots__ = ("data", "event", "id", "retry")

    def __init__(
        self, event: str, data: str, id: str | None = None, retry: int | None = None
    ) -> None:
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry

    def __repr__(self) -> str:
        return (
            f"SSEEvent(event={self.event!r}, data={self.data!r}, id={self.id!r}, "
            f"retry={self.retry!r})"
        )

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
    """Feed it byte chunks as they arrive; it returns the events each chunk completes.

    Never raises on malformed input: whatever the rules cannot use is ignored.
    """

    def __init__(self) -> None:
        # Bytes of the current line, whose line end has not arrived yet.
        self._partial: list[bytes] = []
        # The last chunk ended with CR: an LF opening the next chunk completes that CRLF.
        self._pending_cr = False
        # The stream's first bytes, held until it is clear whether they are a BOM; then None.
        self._head: bytes | None = b""
        self._event = ""
        self._data: list[str] = []
        self._last_id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        if self._head is not None:
            head = self._head + chunk
            if len(head) < len(_BOM) and _BOM.startswith(head):
                self._head = head
                return out
            self._head = None
            chunk = head[len(_BOM) :] if head.startswith(_BOM) else head
        if self._pending_cr:
            self._pending_cr = False
            if chunk.startswith(b"\n"):
                chunk = chunk[1:]
        if not chunk:
            return out
        if b"\r" in chunk:
            # bytes.splitlines() splits on exactly LF, CRLF and CR: the event-stream line ends.
            raw = chunk.splitlines()
            if self._partial:
                self._partial.append(raw[0])
                raw[0] = b"".join(self._partial)
                self._partial = []
            last = chunk[-1]
            if last == _CR:
                self._pending_cr = True
            elif last != _LF:
                self._partial.append(raw.pop())
            lines = [line.decode("utf-8", "replace") for line in raw]
            self._lines(lines, out)
            return out
        end = chunk.rfind(b"\n")
        if end < 0:
            self._partial.append(chunk)
            return out
        if self._partial:
            self._partial.append(chunk[:end])
            block = b"".join(self._partial)
            self._partial = []
        else:
            block = chunk[:end]
        if end + 1 < len(chunk):
            self._partial.append(chunk[end + 1 :])
        self._lines(block.decode("utf-8", "replace").split("\n"), out)
        return out

    def close(self) -> list[SSEEvent]:
        """End of stream: process a trailing unterminated line, then dispatch a pending event."""
        out: list[SSEEvent] = []
        if self._head:
            self._partial.append(self._head)  # part of a BOM and nothing more: invalid UTF-8
        self._head = None
        if self._partial:
            line = b"".join(self._partial).decode("utf-8", "replace")
            self._partial = []
            self._lines([line], out)
        self._dispatch(out)
        return out

    def _lines(self, lines: list[str], out: list[SSEEvent]) -> None:
        """Process complete lines, their line ends already removed."""
        for line in lines:
            if line.startswith("data:"):  # the common case first
                if len(line) > 5 and line[5] == " ":
                    self._data.append(line[6:])
                else:
                    self._data.append(line[5:])
                continue
            if not line:
                self._dispatch(out)
                continue
            colon = line.find(":")
            if colon == 0:
                continue  # a comment, such as a keep-alive
            if colon < 0:
                name = line
                value = ""
            else:
                name = line[:colon]
                if len(line) > colon + 1 and line[colon + 1] == " ":
                    value = line[colon + 2 :]
                else:
                    value = line[colon + 1 :]
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value
            elif name == "id":
                if "\0" not in value:
                    self._last_id = value
            elif (
                name == "retry"
                and value.isascii()
                and value.isdigit()
                and len(value) <= _RETRY_MAX_DIGITS
            ):
                self._retry = int(value)

    def _dispatch(self, out: list[SSEEvent]) -> None:
        if self._data:
            data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
            out.append(SSEEvent(self._event or "message", data, self._last_id, self._retry))
            self._data = []
        self._event = ""


__all__ = ["SSEDecoder", "SSEEvent"]
