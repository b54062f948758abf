"""Slash commands and keys in the running UI: a real ``earshot`` in a pseudo-terminal."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, anthropic
from tests.tui.terminal import MODEL, SHIFT_TAB, Terminal, earshot_env, scripted_turn


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


@pytest.fixture
def term(fake_provider: FakeProvider, repo: Path) -> Iterator[Terminal]:
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as t:
        t.wait_ready()
        yield t


def test_compact_summarises_older_turns(fake_provider: FakeProvider, term: Terminal) -> None:
    for index in range(1, 4):
        scripted_turn(term, fake_provider, index)
    fake_provider.script(anthropic.text_turn("Summary: three questions were asked."))
    term.type_line("/compact keep the numbers")
    term.wait_for("compacted:")
    summary_request = fake_provider.requests[-1].json()
    assert "keep the numbers" in str(summary_request)
    scripted_turn(term, fake_provider, 4)
    after = str(fake_provider.requests[-1].json()["messages"])
    assert "Summary: three questions were asked." in after
    assert "question 3" in after
    assert term.exit() == 0


def test_rewind_returns_to_before_an_earlier_message(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    for index in range(1, 4):
        scripted_turn(term, fake_provider, index)
    term.type_line("/rewind")
    term.wait_for("rewind to before which message?")
    term.wait_for(lambda: term.box() == "› /rewind", "the picker")
    term.type_line("2")  # the picker left "/rewind " in the box
    term.wait_for("rewound to before message 2")
    term.wait_for(lambda: term.input_line() == "› question 2", "the message back in the box")
    term.send("\x15")  # Ctrl-U: clear the line
    scripted_turn(term, fake_provider, 9)
    sent = str(fake_provider.requests[-1].json()["messages"])
    assert "question 1" in sent
    assert "question 2" not in sent and "question 3" not in sent
    assert term.exit() == 0


def test_clear_starts_a_new_session_and_resume_returns_to_the_old_one(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    scripted_turn(term, fake_provider, 1)
    term.type_line("/clear")
    term.wait_for("new session")
    scripted_turn(term, fake_provider, 2)
    assert "question 1" not in str(fake_provider.requests[-1].json()["messages"])
    term.type_line("/sessions")
    term.wait_for("sessions in this directory")
    term.type_line("/resume 2")
    term.wait_for("resumed")
    scripted_turn(term, fake_provider, 3)
    sent = str(fake_provider.requests[-1].json()["messages"])
    assert "question 1" in sent
    assert "question 2" not in sent
    assert term.exit() == 0


def test_shift_tab_and_mode_command_change_the_permission_mode(term: Terminal) -> None:
    term.wait_for(lambda: "· ask ·" in term.display(), "the status line")
    term.send(SHIFT_TAB)
    term.wait_for(lambda: "· accept-edits ·" in term.display(), "the next mode")
    term.type_line("/mode plan")
    term.wait_for(lambda: "· plan ·" in term.display(), "plan mode")
    term.type_line("/mode nonsense")
    term.wait_for("unknown permission mode")
    assert term.exit() == 0


def test_help_lists_the_commands_and_unknown_ones_are_named(term: Terminal) -> None:
    term.type_line("/help")
    term.wait_for("/rewind")
    for name in ("/model", "/mode", "/cost", "/undo", "/compact", "/todos", "/exit"):
        assert name in term.text()
    term.type_line("/frobnicate")
    term.wait_for("unknown command /frobnicate")
    term.type_line("/exit")
    assert term.proc.wait(15) == 0


def test_slash_completion_offers_commands(term: Terminal) -> None:
    term.send("/res")
    term.wait_for("resume another session", "the completion menu")
    term.send("\t")
    term.wait_for(lambda: term.box().startswith("› /resume"), "the completed command")
    term.send("\x15")
    assert term.exit() == 0


def test_first_run_without_a_key_offers_onboarding(repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with Terminal(["--permission-mode", "ask"], cwd=repo, env=env) as term:
        term.wait_for("Welcome to earshot.")
        assert "earshot auth login" in term.text()
        term.wait_for("model ›")
        term.send("\r")
        assert term.proc.wait(15) == 2


def test_input_history_is_kept_across_runs_in_a_project(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        scripted_turn(term, fake_provider, 1)
        assert term.exit() == 0
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        term.send("\x1b[A")  # Up
        term.wait_for(lambda: term.input_line() == "› question 1", "the earlier line")
        term.send("\x15")
        assert term.exit() == 0


def test_command_files_and_skills_complete_with_their_hint_and_run(
    fake_provider: FakeProvider, repo: Path
) -> None:
    command = repo / ".earshot" / "commands" / "frontend" / "component.md"
    command.parent.mkdir(parents=True)
    command.write_text(
        "---\ndescription: scaffold a component\nargument-hint: <name>\n---\nMake $1 now.\n"
    )
    skill = repo / ".earshot" / "skills" / "hello" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: hello\ndescription: greet people warmly\n---\nWave.\n")
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as term:
        term.wait_ready()
        term.send("/fronte")
        term.wait_for("<name> · scaffold a component", "the command file's hint")
        term.send("\x15")
        term.type_line("/help")
        term.wait_for("skill: greet people warmly", "the skill in /help")
        assert "project:" in term.text()
        fake_provider.script(anthropic.text_turn("Made it."))
        term.type_line("/frontend:component Card")
        term.wait_for("Made it.")
        assert "Make Card now." in str(fake_provider.requests[-1].json()["messages"])
        assert term.exit() == 0
