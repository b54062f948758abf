"""Pickers and completion in the running UI: the completion menu's rows, ``/model``,
``/mode``, ``/resume`` and ``/rewind`` arguments. A real ``earshot`` in a pseudo-terminal."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider
from tests.tui.terminal import MODEL, Terminal, earshot_env, scripted_turn


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


def last_row(term: Terminal) -> str:
    rows = [row for row in term.display().splitlines() if row.strip()]
    return rows[-1] if rows else ""


def menu(term: Terminal) -> str:
    """The rows under the input box (the menu), status line left out."""
    rows = term.display().split("› /")[-1].splitlines()[1:]
    return "\n".join(rows[:-1])


def test_the_slash_menu_shows_several_rows_above_an_intact_status_line(term: Terminal) -> None:
    term.send("/")
    term.wait_for(lambda: "/rewind" in term.display(), "the menu")
    shown = [
        name for name in ("/help", "/model", "/mode", "/cost", "/context") if name in term.display()
    ]
    assert len(shown) >= 4
    assert MODEL in last_row(term)
    term.send("\x15")
    assert term.exit() == 0


def test_model_alone_opens_a_filterable_picker(term: Terminal) -> None:
    term.type_line("/model")
    term.wait_for(lambda: term.box() == "› /model", "the picker")
    term.wait_for(lambda: "anthropic/claude-sonnet-5" in menu(term), "newest first")
    assert "no key" not in menu(term)  # providers with a key come first
    term.send("anthropic/claude-haiku-4-5")
    term.wait_for(lambda: "claude-haiku-4-5" in menu(term), "filtered")
    assert "claude-sonnet" not in menu(term)
    term.send("\t")
    term.wait_for(lambda: term.box().startswith("› /model anthropic/claude-haiku-4-5"), "pick")
    term.send("\r")
    term.wait_for("Switched model: anthropic/claude-haiku-4-5")
    term.wait_for(lambda: "claude-haiku-4-5" in last_row(term), "the status line")
    assert term.exit() == 0


def test_mode_argument_completes(term: Terminal) -> None:
    term.send("/mode acc")
    term.wait_for(lambda: "file edits run" in term.display(), "the mode menu")
    term.send("\t")
    term.wait_for(lambda: term.box() == "› /mode accept-edits", "completed")
    term.send("\r")
    term.wait_for(lambda: "· accept-edits ·" in last_row(term), "the mode")
    assert term.exit() == 0


def test_resume_and_rewind_pickers_preview_their_choices(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    scripted_turn(term, fake_provider, 1)
    scripted_turn(term, fake_provider, 2)
    term.type_line("/rewind")
    term.wait_for(lambda: term.box() == "› /rewind", "the rewind picker")
    term.wait_for(lambda: "question 2" in term.display().split("› /rewind")[-1], "preview")
    term.send("\x15")
    term.type_line("/clear")
    term.wait_for("new session")
    term.type_line("/resume")
    term.wait_for(lambda: term.box() == "› /resume", "the resume picker")
    term.wait_for(lambda: "question 1" in term.display().split("› /resume")[-1], "preview")
    term.send("\t\r")
    term.wait_for("resumed")
    scripted_turn(term, fake_provider, 3)
    assert "question 2" in str(fake_provider.requests[-1].json()["messages"])
    assert term.exit() == 0


def test_onboarding_filters_models_and_takes_a_key_inline(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = earshot_env(fake_provider.base_url)
    env.pop("ANTHROPIC_API_KEY")
    with Terminal([], cwd=repo, env=env) as term:
        term.wait_for("model ›")
        term.send("anthropic/claude-haiku-4")
        term.wait_for(lambda: "Claude Haiku 4.5" in term.display(), "the filtered models")
        term.send("-5\r")
        term.wait_for("API key (hidden")
        term.send("sk-ant-pasted-key-42\r")
        term.wait_for("stored the Anthropic key")
        term.wait_ready()
        assert "starting…" not in term.text()
        assert "sk-ant-pasted-key-42" not in term.text()
        scripted_turn(term, fake_provider, 1)
        assert fake_provider.requests[-1].headers["x-api-key"] == "sk-ant-pasted-key-42"
        assert term.exit() == 0


def test_resume_flag_without_an_id_opens_the_picker(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        scripted_turn(term, fake_provider, 1)
        assert term.exit() == 0
    with Terminal(["--model", MODEL, "-r"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.wait_for(lambda: term.box() == "› /resume", "the resume picker")
        term.wait_for(lambda: "question 1" in menu(term), "the preview")
        term.send("\t\r")
        term.wait_for("resumed")
        scripted_turn(term, fake_provider, 2)
        assert "question 1" in str(fake_provider.requests[-1].json()["messages"])
        assert term.exit() == 0
