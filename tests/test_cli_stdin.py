"""The command line as people type it: piped stdin, a positional prompt, the usage, denied
calls in text mode, and ``earshot undo`` finding the session to undo. Real processes
against the fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return work


def run(
    fake: FakeProvider, cwd: Path, *args: str, stdin: str | None = None, model: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "PYTHONUNBUFFERED": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "earshot", *(["--model", MODEL] if model else []), *args],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def sent(fake: FakeProvider) -> str:
    return json.dumps(fake.requests[0].json()["messages"])


def test_piped_stdin_is_appended_to_the_prompt_as_context(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Because of line 2."))
    done = run(fake_provider, repo, "-p", "why?", stdin="PIPEDMARKER42 failed at line 2\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Because of line 2.\n"
    body = sent(fake_provider)
    assert "why?" in body and "PIPEDMARKER42" in body
    assert body.index("why?") < body.index("PIPEDMARKER42")


def test_p_alone_reads_the_prompt_from_stdin(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(anthropic.text_turn("Fixed."))
    done = run(fake_provider, repo, "-p", stdin="fix the bug in calc.py\n")
    assert done.returncode == 0, done.stderr
    assert "fix the bug in calc.py" in sent(fake_provider)


def test_piped_stdin_without_p_runs_headless(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(anthropic.text_turn("Hello there."))
    done = run(fake_provider, repo, stdin="hi\n", model=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello there.\n"
    assert '"hi' in sent(fake_provider)


def test_a_positional_prompt_without_a_terminal_runs_headless(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.text_turn("On it."))
    done = run(fake_provider, repo, "fix the tests")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "On it.\n"
    assert "fix the tests" in sent(fake_provider)


def test_help_shows_the_interactive_form_first(fake_provider: FakeProvider, repo: Path) -> None:
    done = run(fake_provider, repo, "--help", model=False)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "Usage:"
    assert lines[1].strip().startswith('earshot [OPTIONS] ["PROMPT"]')
    assert "interactive UI" in lines[1]
    options = done.stdout.index("Options (the interactive UI and -p):")
    headless = done.stdout.index("Headless (-p) only:")
    assert options < done.stdout.index("--continue") < headless
    assert headless < done.stdout.index("--output-format")


def test_text_mode_names_denied_calls_on_stderr(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn(
            [
                ToolCallSpec("b1", "bash", {"command": "rm calc.py"}),
                ToolCallSpec("b2", "bash", {"command": "touch x"}),
            ]
        ),
        anthropic.text_turn("Done."),
    )
    done = run(fake_provider, repo, "-p", "clean up")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    assert "2 tool calls were denied (bash ×2)" in done.stderr
    assert "--permission-mode" in done.stderr


def test_undo_picks_the_newest_session_with_edits_and_names_it(
    fake_provider: FakeProvider, repo: Path
) -> None:
    write = ToolCallSpec("w1", "write", {"path": "notes.md", "content": "remember\n"})
    fake_provider.script(anthropic.tool_calls_turn([write]), anthropic.text_turn("Written."))
    edit = run(fake_provider, repo, "-p", "take a note", "--permission-mode", "accept-edits")
    assert edit.returncode == 0, edit.stderr
    assert (repo / "notes.md").read_text() == "remember\n"
    fake_provider.script(anthropic.text_turn("Hello."))
    assert run(fake_provider, repo, "-p", "hi").returncode == 0
    undone = run(fake_provider, repo, "undo", "--yes", model=False)
    assert undone.returncode == 0, undone.stderr
    assert "has nothing to undo; using session" in undone.stdout
    assert not (repo / "notes.md").exists()


@pytest.mark.parametrize(
    ("command", "options"),
    [
        (["undo"], ["--session", "--list", "--yes"]),
        (["sessions", "list"], ["--all", "--json"]),
        (["sessions", "export"], ["ID", "--format"]),
        (["permissions", "check"], ["REQUEST", "--mode", "--json"]),
        (["auth", "login"], ["PROVIDER"]),
    ],
)
def test_subcommand_help_describes_every_option_on_its_line(
    fake_provider: FakeProvider, repo: Path, command: list[str], options: list[str]
) -> None:
    done = run(fake_provider, repo, *command, "--help", model=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: earshot {' '.join(command)}")
    rows = done.stdout.splitlines()
    for option in options:
        row = next(r for r in rows if r.strip().startswith(option))
        described = row.split(":", 1)[1].strip() if ":" in row else ""
        assert described and not described.startswith("["), row
    assert all(not r or r.startswith(("Usage", " ")) or r[0].isupper() for r in rows)


def test_fork_session_without_a_session_is_refused(fake_provider: FakeProvider, repo: Path) -> None:
    done = run(fake_provider, repo, "-p", "hi there", "--fork-session")
    assert done.returncode == 2
    assert "--fork-session branches a session: add -c or -r ID" in done.stderr
    assert fake_provider.requests == []
