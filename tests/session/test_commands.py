"""The ``sessions`` and ``undo`` command functions, run in-process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

from earshot.cli import sessions_cmd, undo_cmd
from earshot.core.session import SessionStore, read_transcript
from earshot.core.undo import Undo
from tests.session.messages import assistant, call, result, user

DATA = Path(__file__).parent / "data"


def _fill(store: SessionStore, prompt: str = "Fix the flaky test\nin ci") -> str:
    async def run() -> str:
        with store.create(model="anthropic/claude") as session:
            await session.append_message(user(prompt))
            await session.append_message(
                assistant("Looking.", call("c1", command="pytest -x")),
                cost_usd=0.0123,
                model="anthropic/claude",
            )
            await session.append_message(result("c1", "1 failed\nline 2"))
            await session.append_message(assistant("Fixed it."))
            return session.id

    return anyio.run(run)


def test_list_prints_a_table_and_json(
    store: SessionStore, project: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _fill(store)
    second = _fill(store, "Second task")
    assert sessions_cmd.list_sessions(all=False, as_json=False, cwd=project, data_dir=data) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ID", "UPDATED", "TURNS", "COST", "TITLE"]
    assert second.startswith(out[1].split()[0]) and "Second task" in out[1]
    assert first.startswith(out[2].split()[0]) and out[2].endswith("Fix the flaky test")
    assert "$0.0123" in out[2]

    assert sessions_cmd.list_sessions(all=True, as_json=True, cwd=project, data_dir=data) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in records] == [second, first]
    assert records[1]["turns"] == 1 and records[1]["cwd"] == str(store.cwd)


def test_list_with_no_sessions_says_so(
    project: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sessions_cmd.list_sessions(all=False, as_json=False, cwd=project, data_dir=data) == 0
    assert capsys.readouterr().out.startswith("no sessions in ")


def test_show_prints_facts_and_the_branch(
    store: SessionStore, project: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = _fill(store)
    assert sessions_cmd.show(session_id[:14], cwd=project, data_dir=data) == 0
    out = capsys.readouterr().out
    assert f"session       {session_id}" in out
    assert "model         anthropic/claude" in out
    assert '→ bash {"command":"pytest -x"}' in out
    assert "← bash (2 lines): 1 failed" in out


def test_show_prints_each_hook_run_after_the_message_it_followed(
    store: SessionStore, project: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def run() -> str:
        with store.create(model="anthropic/claude") as session:
            await session.append_hook("SessionStart", "echo hi", 0, 4.2, decision="context")
            await session.append_message(user("Run the tests"))
            await session.append_message(assistant("Running.", call("c1", command="rm -rf x")))
            await session.append_hook(
                "PreToolUse",
                "./no-rm.sh",
                2,
                12.6,
                matcher="Bash",
                source="user",
                decision="block",
                output="rm is not allowed here",
            )
            await session.append_message(result("c1", "permission denied"))
            await session.append_hook("Stop", "sleep 99", None, 60000.0, decision="error")
            return session.id

    session_id = anyio.run(run)
    assert sessions_cmd.show(session_id, cwd=project, data_dir=data) == 0
    out = capsys.readouterr().out
    start = out.index("(hook SessionStart `echo hi`: context, exit 0, 4 ms)")
    call_at = out.index('→ bash {"command":"rm -rf x"}')
    blocked = out.index("(hook PreToolUse `./no-rm.sh`: block, exit 2, 13 ms)")
    assert start < out.index("Run the tests") < call_at < blocked
    assert blocked < out.index("  rm is not allowed here") < out.index("← bash")
    assert out.index("← bash") < out.index("(hook Stop `sleep 99`: error, timed out")


def test_unknown_or_ambiguous_ids_are_usage_errors(
    store: SessionStore, project: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(store)
    _fill(store)
    assert sessions_cmd.show("zzzz", cwd=project, data_dir=data) == 2
    assert "no session 'zzzz'" in capsys.readouterr().err
    assert sessions_cmd.export("0", format="jsonl", cwd=project, data_dir=data) == 2
    assert "ambiguous" in capsys.readouterr().err
    assert sessions_cmd.export("x", format="html", cwd=project, data_dir=data) == 2
    assert "markdown, jsonl" in capsys.readouterr().err


def test_export_markdown_and_jsonl(
    store: SessionStore,
    project: Path,
    data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    session_id = _fill(store)
    assert sessions_cmd.export(session_id, format="markdown", cwd=project, data_dir=data) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("# Fix the flaky test\n")
    assert "## assistant" in markdown and '"command": "pytest -x"' in markdown
    assert "1 failed\nline 2" in markdown

    assert sessions_cmd.export(session_id, format="jsonl", cwd=project, data_dir=data) == 0
    copy = tmp_path / "copy.jsonl"
    copy.write_text(capsys.readouterr().out)
    assert copy.read_bytes() == store.path_for(session_id).read_bytes()
    assert read_transcript(copy).problems == []


def test_import_reports_what_was_dropped(
    project: Path, data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "pi.jsonl"
    source.write_text((DATA / "pi-v3.jsonl").read_text().replace('"CWD"', '"/nowhere/at/all"'))
    assert sessions_cmd.import_session(source, cwd=project, data_dir=data) == 0
    out = capsys.readouterr().out
    assert out.startswith("imported the pi session as ")
    assert "dropped: 1 thinking-level changes" in out
    assert len(SessionStore(project, data).list()) == 1
    assert sessions_cmd.import_session(tmp_path / "missing.jsonl", cwd=project, data_dir=data) == 2


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_undo_command_shows_the_diff_asks_and_restores(
    store: SessionStore, project: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(project, "init", "-q")
    (project / "a.txt").write_text("before\n")
    session_id = _fill(store)
    undoer = Undo(project, session_id, data)
    anyio.run(undoer.snapshot, "edit a.txt")
    (project / "a.txt").write_text("after\n")

    assert undo_cmd.undo(session=None, list_only=True, yes=False, cwd=project, data_dir=data) == 0
    assert "undo" in capsys.readouterr().out

    # Not a terminal and no --yes: nothing changes.
    code = undo_cmd.undo(session=None, list_only=False, yes=False, cwd=project, data_dir=data)
    assert code == 2
    assert "pass --yes" in capsys.readouterr().err
    assert (project / "a.txt").read_text() == "after\n"

    # Asked and declined, then asked and accepted.
    no = undo_cmd.undo(
        session=None, list_only=False, yes=False, cwd=project, data_dir=data, ask=lambda q: "n"
    )
    assert no == 0 and "-after\n+before" in capsys.readouterr().out
    assert (project / "a.txt").read_text() == "after\n"
    yes = undo_cmd.undo(
        session=session_id[:12],
        list_only=False,
        yes=False,
        cwd=project,
        data_dir=data,
        ask=lambda q: "y",
    )
    assert yes == 0 and "undid edit a.txt" in capsys.readouterr().out
    assert (project / "a.txt").read_text() == "before\n"

    assert undo_cmd.undo(session=None, list_only=False, yes=True, cwd=project, data_dir=data) == 0
    assert "nothing to undo" in capsys.readouterr().out


def test_undo_command_without_sessions_or_git(
    store: SessionStore,
    project: Path,
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert undo_cmd.undo(session=None, list_only=False, yes=True, cwd=project, data_dir=data) == 0
    assert "no session" in capsys.readouterr().out
    assert undo_cmd.undo(session="beef", list_only=False, yes=True, cwd=project, data_dir=data) == 2
    _fill(store)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert undo_cmd.undo(session=None, list_only=False, yes=True, cwd=project, data_dir=data) == 1
    assert "git was not found" in capsys.readouterr().err
