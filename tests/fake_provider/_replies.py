"""What the fake provider can be told to send: SSE streams and raw bodies.

Shape::

    Reply      SSEReply | RawReply
    SSEReply   frames: list[Frame], status, headers, delay, cut_after, abrupt, line_ending,
               raw_tail, reset, stall
    RawReply   status, body, headers, content_type
    Frame      event: str | None, data: str (, comment: str | None)

An ``SSEReply`` is sent with chunked transfer encoding, one HTTP chunk per frame, so that
``cut_after`` with ``abrupt=True`` can drop the connection in the middle of the body. The
builders in the per-wire modules produce ``SSEReply`` values; tests may also build frames by
hand or edit a builder's output with ``dataclasses.replace``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TypeAlias

from earshot.providers.types import JSONValue

_LINE_ENDINGS = ("\n", "\r\n", "\r")


@dataclass(frozen=True)
class Frame:
    """One SSE event: an optional ``event:`` line, then the data split into ``data:`` lines.

    A frame with a ``comment`` is preceded by a ``: comment`` line; a frame with a comment,
    no event and empty data is a pure comment (a keep-alive) and dispatches no event.
    """

    event: str | None
    data: str
    comment: str | None = None

    @classmethod
    def of(cls, payload: JSONValue, *, event: str | None = None) -> Frame:
        """A frame whose data is ``payload`` as compact JSON, as the vendors send it."""
        return cls(event, dumps(payload))

    @classmethod
    def keepalive(cls, text: str) -> Frame:
        """A comment-only frame, such as OpenRouter's ``: OPENROUTER PROCESSING``."""
        return cls(None, "", comment=text)

    def encode(self, line_ending: str = "\n") -> bytes:
        lines: list[str] = []
        if self.comment is not None:
            lines.append(f": {self.comment}")
        if self.comment is None or self.event is not None or self.data:
            if self.event is not None:
                lines.append(f"event: {self.event}")
            lines.extend(f"data: {line}" for line in self.data.split("\n"))
        return (line_ending.join(lines) + line_ending + line_ending).encode()


@dataclass
class SSEReply:
    """A ``text/event-stream`` reply.

    Sends ``frames`` (only the first ``cut_after`` of them when set) with ``delay`` seconds
    before every frame after the first, then ``raw_tail`` verbatim, then ends the chunked
    body cleanly, or, when ``abrupt`` is set, closes the connection without ending it (with
    ``cut_after`` unset, after all frames). ``reset`` ends it with a TCP reset instead (a
    proxy or load balancer dropping the connection). ``stall`` waits that many seconds
    before sending anything, headers included (a server that accepted and went silent).
    """

    frames: list[Frame]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    cut_after: int | None = None
    abrupt: bool = False
    line_ending: str = "\n"
    raw_tail: bytes = b""
    reset: bool = False
    stall: float = 0.0

    def __post_init__(self) -> None:
        if self.line_ending not in _LINE_ENDINGS:
            raise ValueError(f"line_ending must be one of {_LINE_ENDINGS!r}")
        if self.cut_after is not None and self.cut_after < 0:
            raise ValueError("cut_after must be >= 0")

    def sent_frames(self) -> list[Frame]:
        return self.frames if self.cut_after is None else self.frames[: self.cut_after]

    def body_chunks(self) -> list[bytes]:
        """The body as sent: one encoded frame per chunk, then ``raw_tail`` if any."""
        chunks = [frame.encode(self.line_ending) for frame in self.sent_frames()]
        if self.raw_tail:
            chunks.append(self.raw_tail)
        return chunks


@dataclass
class RawReply:
    """A plain reply with a fixed body, sent with ``Content-Length``."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"

    @classmethod
    def json(
        cls, status: int, payload: JSONValue, *, headers: dict[str, str] | None = None
    ) -> RawReply:
        return cls(status, dumps(payload).encode(), dict(headers or {}))


Reply: TypeAlias = SSEReply | RawReply


@dataclass(frozen=True)
class ToolCallSpec:
    """A tool call for the ``tool_calls_turn`` builders; ``arguments`` is the parsed input."""

    id: str
    name: str
    arguments: dict[str, JSONValue] = field(default_factory=dict)

    def arguments_json(self) -> str:
        return dumps(self.arguments)


def dumps(payload: JSONValue) -> str:
    """Compact JSON with non-ASCII kept as is, the way the vendors write their streams."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def split_text(text: str, parts: int) -> list[str]:
    """``text`` cut into ``parts`` near-equal non-empty pieces (fewer if it is shorter).

    Empty text gives one empty piece, so a builder still sends one delta.
    """
    if parts < 1:
        raise ValueError("parts must be >= 1")
    count = max(1, min(parts, len(text)))
    size, extra = divmod(len(text), count)
    pieces: list[str] = []
    start = 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces
