"""The SSE decoder: the WHATWG event-stream rules, case by case, then as properties.

The properties feed generated streams cut at every kind of boundary (single bytes, between CR
and LF, inside UTF-8 sequences) and compare with feeding the stream whole and with
``reference_decode``, a deliberately plain decoder that splits the whole text into lines.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earshot.providers.sse import SSEDecoder, SSEEvent


def decode(*chunks: bytes) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    return events + decoder.close()


def decode_cut(stream: bytes, cuts: set[int]) -> list[SSEEvent]:
    bounds = sorted({0, len(stream), *cuts})
    return decode(*(stream[a:b] for a, b in itertools.pairwise(bounds)))


def reference_decode(stream: bytes) -> list[SSEEvent]:
    """The event-stream rules written as plainly as possible, for whole streams only."""
    text = stream.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = re.split(r"\r\n|\r|\n", text)
    if lines[-1] == "":
        lines.pop()  # the stream ended with a line end: no unterminated last line
    lines.append("")  # the end of the stream dispatches what is pending
    events: list[SSEEvent] = []
    event_type = ""
    data: list[str] = []
    last_id: str | None = None
    retry: int | None = None
    for line in lines:
        if line == "":
            if data:
                events.append(SSEEvent(event_type or "message", "\n".join(data), last_id, retry))
            event_type = ""
            data = []
        elif line.startswith(":"):
            pass
        else:
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                data.append(value)
            elif name == "event":
                event_type = value
            elif name == "id" and "\0" not in value:
                last_id = value
            elif name == "retry" and re.fullmatch("[0-9]{1,18}", value):
                retry = int(value)
    return events


def message(data: str, event: str = "message", id: str | None = None) -> SSEEvent:
    return SSEEvent(event, data, id)


# Line ends


def test_lf_line_ends_dispatch_on_blank_line() -> None:
    assert decode(b"data: one\n\ndata: two\n\n") == [message("one"), message("two")]


def test_crlf_line_ends() -> None:
    assert decode(b"event: a\r\ndata: one\r\n\r\ndata: two\r\n\r\n") == [
        message("one", "a"),
        message("two"),
    ]


def test_cr_line_ends() -> None:
    assert decode(b"event: a\rdata: one\r\rdata: two\r\r") == [message("one", "a"), message("two")]


def test_line_ends_may_mix_within_a_stream() -> None:
    assert decode(b"data: a\rdata: b\r\ndata: c\n\r\n") == [message("a\nb\nc")]


def test_crlf_cut_between_cr_and_lf_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\ndata: b\r") == []
    assert decoder.feed(b"\n\r") == [message("a\nb")]
    assert decoder.feed(b"\n") == []
    assert decoder.close() == []


def test_cr_at_chunk_end_then_blank_line_dispatches() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\r") == [message("a")]


def test_line_cut_across_chunks_joins_whatever_the_line_end() -> None:
    assert decode(b"data: a", b"b", b"c\r\n", b"\r\n") == [message("abc")]
    assert decode(b"data: a", b"b", b"c\r\r") == [message("abc")]
    assert decode(b"data: a", b"b", b"c\n\n") == [message("abc")]


def test_events_come_back_from_the_feed_that_completes_them() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: one\n\ndata: tw") == [message("one")]
    assert decoder.feed(b"o\n") == []
    assert decoder.feed(b"\ndata: three\n\n") == [message("two"), message("three")]


# Fields


def test_multiline_data_joins_with_lf() -> None:
    assert decode(b"data: first\ndata:\ndata: third\n\n") == [message("first\n\nthird")]


def test_comment_lines_are_ignored() -> None:
    stream = b": OPENROUTER PROCESSING\n\n:\n\ndata: a\n: OPENROUTER PROCESSING\ndata: b\n\n"
    assert decode(stream) == [message("a\nb")]


def test_event_field_names_the_event_until_dispatch() -> None:
    stream = b"event: content_block_delta\ndata: {}\n\ndata: {}\n\n"
    assert decode(stream) == [message("{}", "content_block_delta"), message("{}")]


def test_event_type_without_data_does_not_leak_into_the_next_event() -> None:
    assert decode(b"event: ping\n\ndata: x\n\n") == [message("x")]


def test_empty_event_field_means_message() -> None:
    assert decode(b"event: a\nevent:\ndata: x\n\n") == [message("x")]


def test_id_persists_across_events() -> None:
    stream = b"id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n"
    assert decode(stream) == [message("a", id="1"), message("b", id="1"), message("c", id="2")]


def test_id_without_data_applies_to_following_events() -> None:
    assert decode(b"id: 7\n\ndata: a\n\n") == [message("a", id="7")]


def test_empty_id_resets_last_event_id() -> None:
    assert decode(b"id: 1\ndata: a\n\nid\ndata: b\n\n") == [
        message("a", id="1"),
        message("b", id=""),
    ]


def test_id_containing_nul_is_ignored() -> None:
    assert decode(b"id: 1\n\nid: 2\x003\ndata: a\n\n") == [message("a", id="1")]


def test_retry_sets_reconnection_time_carried_by_later_events() -> None:
    events = decode(b"retry: 3000\ndata: a\n\ndata: b\n\nretry: 5\n\ndata: c\n\n")
    assert [event.retry for event in events] == [3000, 3000, 5]


@pytest.mark.parametrize(
    "value",
    ["", "10a", "-5", "+5", "1 000", "1.5", " 12", "١٢", "²", "0x10", "1" * 19, "9" * 5000],
)
def test_retry_is_ignored_unless_all_ascii_digits(value: str) -> None:
    stream = f"retry: 1\ndata: a\n\nretry: {value}\ndata: b\n\n".encode()
    assert [event.retry for event in decode(stream)] == [1, 1]


def test_field_without_colon_has_empty_value() -> None:
    assert decode(b"data\n\nevent: x\nevent\ndata\ndata\n\n") == [message(""), message("\n")]


def test_one_leading_space_is_dropped_from_the_value() -> None:
    stream = b"data:tight\n\ndata: one\n\ndata:  two\n\ndata: trailing \n\ndata: a: b:c\n\n"
    assert [event.data for event in decode(stream)] == [
        "tight",
        "one",
        " two",
        "trailing ",
        "a: b:c",
    ]


def test_event_without_data_is_not_dispatched() -> None:
    assert decode(b"event: ping\n\nid: 3\n\nretry: 10\n\n: hi\n\n\n\n") == []


def test_unknown_fields_are_ignored() -> None:
    stream = b"foo: bar\nDATA: no\nData: no\ndata : no\n data: no\ndata: yes\nevent2: x\n\n"
    assert decode(stream) == [message("yes")]


# Encoding


def test_leading_bom_is_stripped() -> None:
    assert decode(b"\xef\xbb\xbfdata: x\n\n") == [message("x")]


def test_leading_bom_is_stripped_when_cut_across_chunks() -> None:
    assert decode(b"\xef", b"", b"\xbb", b"\xbfdata: x\n\n") == [message("x")]


def test_only_the_first_bom_is_stripped() -> None:
    # The second BOM becomes part of the field name, which is then unknown.
    assert decode(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n") == [message("y")]


def test_bom_inside_a_value_is_kept() -> None:
    assert decode("data: \ufeffx\n\n".encode()) == [message("\ufeffx")]


def test_utf8_sequence_cut_across_chunks() -> None:
    raw = "data: é€😀\n\n".encode()
    assert decode(*(raw[i : i + 1] for i in range(len(raw)))) == [message("é€😀")]


def test_invalid_utf8_becomes_replacement_character() -> None:
    assert decode(b"data: a\xffb\xe2\x82\n\n") == [message("a\ufffdb\ufffd")]


def test_stream_of_only_a_truncated_bom_decodes_to_nothing() -> None:
    assert decode(b"\xef\xbb") == []


# End of stream


def test_close_dispatches_event_whose_blank_line_never_came() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"event: done\ndata: x\n") == []
    assert decoder.close() == [message("x", "done")]


def test_close_flushes_trailing_partial_line() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\ndata: b") == []
    assert decoder.close() == [message("a\nb")]


def test_close_flushes_partial_line_ending_in_truncated_utf8() -> None:
    assert decode(b"data: x\xe2\x82") == [message("x\ufffd")]


def test_close_with_nothing_pending_returns_nothing() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\n") == [message("a")]
    assert decoder.close() == []


def test_close_after_trailing_cr() -> None:
    assert decode(b"data: a\r") == [message("a")]


def test_long_line_fed_in_tiny_chunks() -> None:
    payload = "x€" * 50_000
    raw = f"data: {payload}\n\n".encode()
    assert decode(*(raw[i : i + 7] for i in range(0, len(raw), 7))) == [message(payload)]


# SSEEvent


def test_event_defaults_and_equality() -> None:
    event = SSEEvent("message", "x")
    assert (event.id, event.retry) == (None, None)
    assert event == SSEEvent("message", "x", None, None)
    assert event != SSEEvent("message", "x", "1")
    assert event != SSEEvent("message", "x", None, 5)
    assert event != "x"
    assert repr(event) == "SSEEvent(event='message', data='x', id=None, retry=None)"


def test_event_is_not_hashable() -> None:
    with pytest.raises(TypeError):
        hash(SSEEvent("message", "x"))


# Properties

_TEXT = st.text(
    st.one_of(
        # Single-, 2-, 3- and 4-byte UTF-8, the characters the rules look at, NUL and a BOM.
        st.sampled_from(["a", "Z", "7", " ", ":", "é", "ß", "€", "中", "😀", "𐍈", "\0", "\ufeff"]),
        st.characters(exclude_characters="\r\n", exclude_categories=["Cs"]),
    ),
    max_size=10,
)
_FIELD = st.sampled_from(["data", "data", "data", "event", "id", "retry", "foo", "Data", ""])
_SEPARATOR = st.sampled_from([": ", ":", ":  ", ""])
_DIGITS = st.text(st.sampled_from("0123456789"), min_size=1, max_size=6)


@st.composite
def _lines(draw: st.DrawFn) -> str:
    field = draw(_FIELD)
    value = draw(_DIGITS) if field == "retry" and draw(st.booleans()) else draw(_TEXT)
    return field + draw(_SEPARATOR) + value


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """Events of random lines (fields, comments), each closed by a blank line; each line end
    drawn on its own from LF, CRLF and CR; sometimes a BOM first, sometimes no final line end.
    """
    events = draw(st.lists(st.lists(_lines(), max_size=5), max_size=6))
    drop_last_blank, drop_last_end, bom = draw(
        st.tuples(st.booleans(), st.booleans(), st.booleans())
    )
    lines = [line for event in events for line in [*event, ""]]
    if lines and drop_last_blank:
        lines.pop()  # the last event's blank line never comes
    ends = draw(
        st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines), max_size=len(lines))
    )
    if ends and drop_last_end:
        ends[-1] = ""  # no line end after the last line
    text = "".join(line + end for line, end in zip(lines, ends, strict=True))
    prefix = "\ufeff" if bom else ""
    return (prefix + text).encode()


def _awkward_cuts(stream: bytes) -> list[int]:
    """Cut points between a CR and its LF and inside UTF-8 sequences."""
    return [
        i
        for i in range(1, len(stream))
        if (stream[i - 1] == 0x0D and stream[i] == 0x0A) or stream[i] & 0xC0 == 0x80
    ]


def _check_chunking(stream: bytes, data: st.DataObject) -> None:
    whole = decode(stream)
    assert whole == reference_decode(stream)
    assert decode(*(stream[i : i + 1] for i in range(len(stream)))) == whole
    cuts = data.draw(st.sets(st.integers(0, len(stream))), label="random cuts")
    awkward = _awkward_cuts(stream)
    if awkward:
        cuts |= data.draw(st.sets(st.sampled_from(awkward)), label="awkward cuts")
    assert decode_cut(stream, cuts) == whole


@settings(max_examples=300, deadline=None)
@given(stream=streams(), data=st.data())
def test_any_chunking_of_a_stream_decodes_like_the_whole_and_the_reference(
    stream: bytes, data: st.DataObject
) -> None:
    _check_chunking(stream, data)


_TOKENS = st.sampled_from(
    [
        *(b"data", b"event", b"id", b"retry", b":", b" ", b"x", b"1", b"\n", b"\r", b"\r\n"),
        *(b"\xef\xbb\xbf", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\x00"),
        *(b"\xff", b"\xe2\x82", b"\xf0\x9f", b"\x80", b"\xc3"),  # invalid or truncated UTF-8
    ]
)


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(_TOKENS, max_size=40), data=st.data())
def test_any_chunking_of_arbitrary_bytes_decodes_like_the_whole_and_the_reference(
    tokens: list[bytes], data: st.DataObject
) -> None:
    _check_chunking(b"".join(tokens), data)
