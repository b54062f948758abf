"""The AWS event-stream decoder: messages come out whole however the bytes are cut, every
CRC is checked, and botocore's own decoder reads what our fake servers send."""

from __future__ import annotations

import itertools
import struct
import zlib

import pytest
from botocore.eventstream import EventStreamBuffer
from hypothesis import given
from hypothesis import strategies as st

from earshot.providers.eventstream import EventStreamDecoder, EventStreamError, encode_message


def _event(kind: str, payload: bytes) -> bytes:
    return encode_message(
        {":event-type": kind, ":content-type": "application/json", ":message-type": "event"},
        payload,
    )


STREAM = b"".join(
    [
        _event("messageStart", b'{"role":"assistant"}'),
        _event("contentBlockDelta", '{"delta":{"text":"héllo"}}'.encode()),
        _event("messageStop", b'{"stopReason":"end_turn"}'),
    ]
)


def _decode(chunks: list[bytes]) -> list[tuple[str, bytes]]:
    decoder = EventStreamDecoder()
    out = [m for chunk in chunks for m in decoder.feed(chunk)] + decoder.close()
    return [(m.header(":event-type"), m.payload) for m in out]


def test_whole_stream_decodes_into_its_messages() -> None:
    assert _decode([STREAM]) == [
        ("messageStart", b'{"role":"assistant"}'),
        ("contentBlockDelta", '{"delta":{"text":"héllo"}}'.encode()),
        ("messageStop", b'{"stopReason":"end_turn"}'),
    ]


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_cutting_yields_the_same_messages(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(points)]
    assert _decode(chunks) == _decode([STREAM])


def test_botocore_reads_the_messages_we_encode() -> None:
    buffer = EventStreamBuffer()
    buffer.add_data(STREAM)
    got = [(m.headers[":event-type"], m.payload) for m in buffer]
    assert got == _decode([STREAM])


@pytest.mark.parametrize("index", [9, 30, len(STREAM) // 3 - 2])
def test_a_flipped_byte_is_a_crc_error(index: int) -> None:
    damaged = bytearray(STREAM)
    damaged[index] ^= 0x01
    with pytest.raises(EventStreamError, match="CRC"):
        _decode([bytes(damaged)])


def test_stream_ending_inside_a_message_is_an_error() -> None:
    with pytest.raises(EventStreamError, match="ended inside"):
        _decode([STREAM[:-3]])


def test_typed_headers_decode_to_python_values() -> None:
    block = (
        b"\x01a\x00"  # true
        + b"\x01b\x01"  # false
        + b"\x01c\x02\xff"  # int8 -1
        + b"\x01d\x03\x01\x00"  # int16 256
        + b"\x01e\x04"
        + struct.pack(">i", -7)
        + b"\x01f\x05"
        + struct.pack(">q", 2**40)
        + b"\x01g\x06\x00\x02\x00\x01"  # bytes
        + b"\x01h\x08"
        + struct.pack(">q", 1_700_000_000_000)
        + b"\x01i\x09"
        + bytes(range(16))
    )
    total = 16 + len(block)
    prelude = struct.pack(">II", total, len(block))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + block
    message = head + struct.pack(">I", zlib.crc32(head))
    (decoded,) = EventStreamDecoder().feed(message)
    assert decoded.headers == {
        "a": True,
        "b": False,
        "c": -1,
        "d": 256,
        "e": -7,
        "f": 2**40,
        "g": b"\x00\x01",
        "h": 1_700_000_000_000,
        "i": bytes(range(16)),
    }
    assert decoded.payload == b""


def test_an_impossible_length_is_refused_before_buffering() -> None:
    prelude = struct.pack(">II", 64 * 1024 * 1024, 0)
    with pytest.raises(EventStreamError, match="out of range"):
        EventStreamDecoder().feed(prelude + struct.pack(">I", zlib.crc32(prelude)))
