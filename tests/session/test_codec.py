"""The session file format: round trips, damage reporting, and the version path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from earshot.core.session import read_transcript
from earshot.core.session.codec import (
    FORMAT_VERSION,
    MIGRATIONS,
    FormatTooNewError,
    encode_line,
    parse,
)
from earshot.core.session.entries import (
    CompactionEntry,
    FormatMark,
    Header,
    HookEntry,
    LabelEntry,
    Line,
    MessageEntry,
    ModelSwitchEntry,
    RewindEntry,
    ScopeEntry,
    SnapshotEntry,
    TodoItem,
    TodosEntry,
    UnknownEntry,
)
from earshot.providers.types import ImagePart, Message, TextPart, Usage
from tests.session.messages import call, texts, thinking, user

DATA = Path(__file__).parent / "data"
HEADER = Header(version=1, id="s1", timestamp="t0", cwd="/p", earshot_version="0.1.0")


def _lines() -> list[Line]:
    rich = Message(
        role="assistant",
        parts=[
            thinking("hmm", "sig"),
            TextPart(text="ok", provider_metadata={"openai": {"id": "msg_1", "n": [1, 2.5]}}),
            call("c1", command="ls"),
        ],
    )
    return [
        HEADER,
        MessageEntry(
            id="a",
            parent_id=None,
            timestamp="t1",
            message=Message(
                role="user",
                parts=[TextPart(text="hi ✓"), ImagePart(media_type="image/png", data="AAAA")],
            ),
        ),
        MessageEntry(
            id="b",
            parent_id="a",
            timestamp="t2",
            message=rich,
            usage=Usage(input=1, output=2, cache_read=3, cache_write=4, reasoning=1),
            cost_usd=0.5,
            model="anthropic/m",
        ),
        ModelSwitchEntry(id="c", parent_id="b", timestamp="t3", model="openai/gpt"),
        CompactionEntry(
            id="d", parent_id="c", timestamp="t4", first_kept="b", preamble=[user("summary")]
        ),
        TodosEntry(
            id="e",
            parent_id="d",
            timestamp="t5",
            todos=[TodoItem(content="x", status="pending", id="1")],
        ),
        ScopeEntry(id="f", parent_id="e", timestamp="t6", scope={"paths": ["src"], "n": None}),
        LabelEntry(id="g", parent_id="f", timestamp="t7", target="a", label="start"),
        SnapshotEntry(id="h", parent_id="g", timestamp="t8", snapshot="abc"),
        RewindEntry(id="i", parent_id="a", timestamp="t9", from_id="h"),
        HookEntry(
            id="j",
            parent_id="i",
            timestamp="t10",
            event="PreToolUse",
            command="./check.sh",
            exit_code=2,
            duration_ms=3.4,
            matcher="Bash|Edit",
            source="project",
            decision="block",
            output="no shell today",
        ),
    ]


def test_every_line_type_round_trips_exactly() -> None:
    lines = _lines()
    data = b"".join(encode_line(line) for line in lines)
    parsed = parse(data)
    assert parsed.header == lines[0]
    assert parsed.entries == lines[1:]
    assert parsed.problems == []
    assert b"".join(encode_line(e) for e in [parsed.header, *parsed.entries]) == data


def test_a_hook_line_written_before_decision_and_output_still_reads() -> None:
    old = (
        b'{"type":"hook","id":"h1","parent_id":null,"timestamp":"t1","event":"Stop",'
        b'"command":"true","exit_code":0,"duration_ms":2.5}\n'
    )
    parsed = parse(encode_line(HEADER) + old)
    assert parsed.problems == []
    assert parsed.entries == [
        HookEntry(
            id="h1",
            parent_id=None,
            timestamp="t1",
            event="Stop",
            command="true",
            exit_code=0,
            duration_ms=2.5,
        )
    ]
    entry = parsed.entries[0]
    assert isinstance(entry, HookEntry) and entry.decision == "" and entry.output == ""


def test_every_entry_carries_type_id_parent_and_timestamp() -> None:
    for line in _lines()[1:]:
        text = encode_line(line)
        for key in (b'"type":', b'"id":', b'"parent_id":', b'"timestamp":'):
            assert key in text, (key, text)
    root = encode_line(_lines()[1])
    assert b'"parent_id":null' in root


def test_torn_last_line_is_skipped_with_a_warning() -> None:
    good = b"".join(encode_line(line) for line in _lines()[:3])
    torn = encode_line(_lines()[3])[:25]
    parsed = parse(good + torn)
    assert [e.id for e in parsed.entries] == ["a", "b"]
    assert [(p.line, p.kind) for p in parsed.problems] == [(4, "torn")]
    assert not parsed.terminated


def test_a_complete_last_line_without_its_newline_is_kept() -> None:
    data = b"".join(encode_line(line) for line in _lines()[:3]).rstrip(b"\n")
    parsed = parse(data)
    assert [e.id for e in parsed.entries] == ["a", "b"]
    assert parsed.problems == []
    assert not parsed.terminated


def test_corrupt_middle_line_is_reported_with_its_number_and_nothing_is_rewritten(
    tmp_path: Path,
) -> None:
    lines = [encode_line(line) for line in _lines()[:5]]
    lines[2] = b'{"type":"message","id":"b", this is not json\n'
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()
    transcript = read_transcript(path)
    assert [(p.line, p.kind) for p in transcript.problems] == [(3, "corrupt"), (4, "orphan")]
    assert all(w.startswith(f"{path}:") for w in transcript.warnings())
    # The entry after the lost one is attached to the entry before it: history survives.
    assert [e.id for e in transcript.tree.path()] == ["a", "c", "d"]
    assert path.read_bytes() == before


def test_unknown_entry_type_keeps_the_tree_connected() -> None:
    data = (
        encode_line(HEADER)
        + encode_line(_lines()[1])
        + b'{"type":"hologram","id":"x","parent_id":"a","timestamp":"t","beam":1}\n'
        + encode_line(MessageEntry(id="y", parent_id="x", timestamp="t", message=user("next")))
    )
    parsed = parse(data)
    assert [(p.line, p.kind) for p in parsed.problems] == [(3, "unknown")]
    assert isinstance(parsed.entries[1], UnknownEntry)
    assert [e.id for e in parsed.entries] == ["a", "x", "y"]


def test_known_type_with_bad_fields_is_an_invalid_placeholder() -> None:
    data = encode_line(HEADER) + b'{"type":"message","id":"x","parent_id":null,"timestamp":"t"}\n'
    parsed = parse(data)
    assert [(p.line, p.kind) for p in parsed.problems] == [(2, "invalid")]
    assert isinstance(parsed.entries[0], UnknownEntry)


def test_missing_header_is_reported_and_entries_still_read(tmp_path: Path) -> None:
    path = tmp_path / "0190a000-0000-7000-8000-00000000000f.jsonl"
    path.write_bytes(b"{garbage\n" + encode_line(_lines()[1]))
    transcript = read_transcript(path)
    assert transcript.header.id == path.stem
    assert [p.kind for p in transcript.problems] == ["header", "corrupt"]
    assert texts(transcript.tree.history()) == ["user:hi ✓"]


def test_a_newer_format_is_refused_with_an_upgrade_hint() -> None:
    newer = Header(version=FORMAT_VERSION + 1, id="s", timestamp="t", cwd="/", earshot_version="9")
    with pytest.raises(FormatTooNewError, match="upgrade earshot"):
        parse(encode_line(newer))
    mark = encode_line(HEADER) + encode_line(FormatMark(version=FORMAT_VERSION + 1))
    with pytest.raises(FormatTooNewError):
        parse(mark)


# --- the version path ------------------------------------------------------------------------


def test_a_frozen_sample_exists_for_every_format_version() -> None:
    for version in range(1, FORMAT_VERSION + 1):
        assert (DATA / f"format-v{version}.jsonl").is_file(), version
    for version in range(1, FORMAT_VERSION):
        assert version in MIGRATIONS, f"no migration from format {version}"


@pytest.mark.parametrize("version", range(1, FORMAT_VERSION + 1))
def test_every_format_version_still_reads(version: int) -> None:
    parsed = parse((DATA / f"format-v{version}.jsonl").read_bytes())
    assert parsed.problems == []
    assert parsed.header is not None
    assert parsed.header.id == "0190a000-0000-7000-8000-000000000001"
    assert len(parsed.entries) == 13


def test_format_v1_sample_means_what_it_meant(tmp_path: Path) -> None:
    transcript = read_transcript(DATA / "format-v1.jsonl")
    tree = transcript.tree
    # The current branch is the rewind's: e9 then the other answer; the cut is off it.
    assert texts(tree.history()) == [
        "user:List the files",
        "assistant:Listing. + call call_1",
        "tool:result call_1",
        "user:Now fix b.py",
        "assistant:Fixed differently.",
    ]
    assert texts(tree.history("e11")) == [
        "user:Summary: listed a.py and b.py.",
        "user:Now fix b.py",
        "assistant:Fixed.",
    ]
    assert tree.model() == "openai/gpt-5"
    assert [t.status for t in tree.todos()] == ["completed", "in_progress"]
    assert tree.labels() == {"e2": "listed"}
    first = tree.get("e2")
    assert isinstance(first, MessageEntry)
    assert first.usage == Usage(input=10, output=20, cache_read=3, cache_write=4, reasoning=5)
    assert first.message.parts[0].provider_metadata == {"anthropic": {"signature": "sig-1"}}


def test_older_lines_are_migrated_through_the_table() -> None:
    """The migration seam, exercised with a made-up history: in "format 1" a model switch
    called its field ``name`` and scope lines existed; "format 2" (today's types) calls it
    ``model`` and has no scope lines. A file begun in format 1 and continued, after a
    ``format`` line, in format 2 reads as format 2, and only its format-1 lines (header
    included) pass through the migration."""
    old = [
        b'{"type":"session","version":1,"id":"s","timestamp":"t","cwd":"/","earshot_version":"0"}',
        b'{"type":"model_switch","id":"a","parent_id":null,"timestamp":"t","name":"old/m"}',
        b'{"type":"scope","id":"b","parent_id":"a","timestamp":"t","scope":{}}',
    ]
    new = [
        encode_line(FormatMark(version=2)),
        encode_line(ModelSwitchEntry(id="c", parent_id="a", timestamp="t", model="new/m")),
    ]
    data = b"\n".join(old) + b"\n" + b"".join(new)
    seen: list[str] = []

    def one_to_two(raw: dict[str, Any]) -> dict[str, Any] | None:
        seen.append(raw["type"])
        if raw["type"] == "scope":
            return None
        if raw["type"] == "model_switch":
            raw = {**raw, "model": raw.pop("name")}
        return raw

    parsed = parse(data, current=2, migrations={1: one_to_two})
    assert seen == ["session", "model_switch", "scope"]
    assert parsed.problems == []
    assert parsed.header is not None and parsed.header.id == "s"
    assert parsed.entries == [
        ModelSwitchEntry(id="a", parent_id=None, timestamp="t", model="old/m"),
        ModelSwitchEntry(id="c", parent_id="a", timestamp="t", model="new/m"),
    ]
    assert parsed.version == 2
