"""Importing Claude Code, pi and earshot session files: what maps, and what was dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.session import SessionError, SessionStore, read_transcript
from earshot.core.session.importers import detect_format, import_session
from earshot.providers.types import ImagePart, ReasoningPart, ToolCallPart, ToolResultPart, Usage
from tests.session.messages import texts

DATA = Path(__file__).parent / "data"


def sample(name: str, tmp_path: Path, cwd: Path | str) -> Path:
    """A copy of a sample file with its recorded cwd set to ``cwd``."""
    path = tmp_path / name
    path.write_text((DATA / name).read_text().replace('"CWD"', f'"{cwd}"'))
    return path


def test_formats_are_recognised(tmp_path: Path, project: Path) -> None:
    assert detect_format(sample("claude-code.jsonl", tmp_path, project)) == "claude-code"
    assert detect_format(sample("pi-v3.jsonl", tmp_path, project)) == "pi"
    assert detect_format(DATA / "format-v1.jsonl") == "earshot"
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n')
    with pytest.raises(SessionError, match="not a session file"):
        detect_format(other)


def test_claude_code_session_imports_with_its_tree_usage_and_drops_counted(
    tmp_path: Path, project: Path, data: Path
) -> None:
    report = import_session(
        sample("claude-code.jsonl", tmp_path, project), cwd=tmp_path, data_dir=data
    )
    assert report.format == "claude-code"
    assert report.cwd == project.resolve()  # the recorded directory exists: it goes there
    assert report.dropped == [
        "1 assistant blocks of type 'server_tool_use'",
        "1 file history snapshots",
        "1 subagent (sidechain) messages",
        "1 summary lines",
        "1 synthetic API-error messages",
        "1 system events",
        "1 unreadable lines",  # the torn last line of a live file
    ]
    transcript = read_transcript(report.path)
    assert transcript.problems == []
    header = transcript.header
    assert header.imported_from is not None
    assert header.imported_from.session_id == "5b0c7e0e-1111-4222-8333-944455556666"
    tree = transcript.tree
    assert texts(tree.history()) == [
        "user:Why does parse() fail on empty input?",
        "assistant:Let me read it. + call toolu_1",
        "tool:result toolu_1",
        "assistant:s[0] fails on an empty string.",
        "user:Fix it, see:",
        "assistant:call toolu_2",
        "tool:result toolu_2 (error)",
        "user:[Request interrupted by user for tool use]",
        "assistant:Understood.",
    ]
    history = tree.history()
    # The three lines of API message msg_01 are one message again, with the last usage.
    merged = tree.get("a1")
    assert merged is not None and tree.get("a2") is None and tree.get("a3") is None
    thinking = history[1].parts[0]
    assert isinstance(thinking, ReasoningPart)
    assert thinking.provider_metadata == {"anthropic": {"signature": "c2lnLTE="}}
    call = history[1].parts[2]
    assert isinstance(call, ToolCallPart) and call.name == "Read"
    result = history[2].parts[0]
    assert isinstance(result, ToolResultPart) and result.name == "Read"
    assert isinstance(history[4].parts[1], ImagePart)
    assert tree.model() == "anthropic/claude-sonnet-4-5"
    store = SessionStore(project, data)
    [info] = store.list()
    assert info.title == "Why does parse() fail on empty input?"
    assert info.cost_usd == pytest.approx(0.002)
    entry = tree.get("a1")
    assert entry is not None
    assert getattr(entry, "usage", None) == Usage(
        input=12, output=41, cache_read=50, cache_write=100
    )


def test_pi_session_imports_branches_compaction_and_model_changes(
    tmp_path: Path, project: Path, data: Path
) -> None:
    report = import_session(sample("pi-v3.jsonl", tmp_path, project), cwd=tmp_path, data_dir=data)
    assert report.format == "pi"
    assert report.dropped == [
        "1 reasoning signatures from openai",
        "1 session names",
        "1 shell runs excluded from the context",
        "1 thinking-level changes",
    ]
    assert "shell runs the user made in pi became user messages" in report.notes
    tree = read_transcript(report.path).tree
    # The current branch went back to the first prompt, then was compacted.
    assert texts(tree.history()) == [
        "user:The conversation so far, summarised:\nUser asked about notes.md.",
        "user:Actually, count words",
        "user:I ran `wc -w notes.md` (exit code 0):\n340 notes.md",
        "assistant:340 words.",
    ]
    assert tree.model() == "openai/gpt-5"
    assert texts(tree.history("a0000002")) == [
        "user:Count the lines in notes.md",
        "assistant:call call_1",
        "tool:result call_1",
        "assistant:12 lines.",
    ]
    assert tree.model("a0000002") == "anthropic/claude-sonnet-4-5"
    assert len(tree.branches()) == 2
    assert tree.labels() == {"u0000001": "start"}
    thinking = tree.history("a0000002")[1].parts[0]
    assert isinstance(thinking, ReasoningPart)
    assert thinking.provider_metadata == {"anthropic": {"signature": "c2ln"}}


def test_pi_format_1_without_ids_becomes_a_chain(tmp_path: Path, data: Path) -> None:
    gone = tmp_path / "no-longer-here"
    report = import_session(sample("pi-v1.jsonl", tmp_path, gone), cwd=tmp_path, data_dir=data)
    assert report.cwd == tmp_path.resolve()  # the recorded directory is gone: the current one
    tree = read_transcript(report.path).tree
    assert texts(tree.history()) == ["user:hello", "assistant:hi"]


def test_an_earshot_file_imports_as_a_copy_with_a_new_id(tmp_path: Path, data: Path) -> None:
    report = import_session(DATA / "format-v1.jsonl", cwd=tmp_path, data_dir=data)
    assert report.format == "earshot"
    copy = read_transcript(report.path)
    original = read_transcript(DATA / "format-v1.jsonl")
    assert copy.id != original.id
    assert copy.tree.entries() == original.tree.entries()
    assert report.dropped == []


def test_a_file_with_nothing_to_import_is_refused(tmp_path: Path, data: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text('{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}\n')
    with pytest.raises(SessionError, match="no messages"):
        import_session(path, cwd=tmp_path, data_dir=data)


def test_claude_code_message_left_empty_is_dropped_and_its_children_reattached(
    tmp_path: Path, data: Path
) -> None:
    lines = [
        '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t1",'
        '"message":{"role":"user","content":"search it"}}',
        '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"t2",'
        '"message":{"id":"m1","role":"assistant","model":"claude-x","content":'
        '[{"type":"server_tool_use","id":"srv","name":"web_search","input":{}}]}}',
        '{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","timestamp":"t3",'
        '"message":{"role":"user","content":"well?"}}',
    ]
    path = tmp_path / "cc.jsonl"
    path.write_text("\n".join(lines) + "\n")
    report = import_session(path, cwd=tmp_path, data_dir=data)
    assert "1 empty assistant messages" in report.dropped
    tree = read_transcript(report.path).tree
    assert texts(tree.history()) == ["user:search it", "user:well?"]
    second = tree.get("u2")
    assert second is not None and second.parent_id == "u1"
