"""Reasoning effort in the running UI: ``--effort`` at start, ``/effort``, the status line,
and what the next request carries."""

from __future__ import annotations

import subprocess
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


def _effort_sent(fake: FakeProvider) -> object:
    body = fake.requests[-1].json()
    config = body.get("output_config")
    return config.get("effort") if isinstance(config, dict) else None


def test_effort_flag_and_command_set_the_status_line_and_the_request(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "--effort", "high"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.wait_for(lambda: "· effort high ·" in term.display(), "the flag's effort")
        scripted_turn(term, fake_provider, 1)
        assert _effort_sent(fake_provider) == "high"
        term.type_line("/effort low")
        term.wait_for(lambda: "· effort low ·" in term.display(), "the new effort")
        scripted_turn(term, fake_provider, 2)
        assert _effort_sent(fake_provider) == "low"
        term.type_line("/effort off")
        term.wait_for(lambda: "· effort off ·" in term.display(), "effort off")
        scripted_turn(term, fake_provider, 3)
        assert "thinking" not in fake_provider.requests[-1].json()
        term.type_line("/effort lots")
        term.wait_for("unknown effort 'lots'")
        term.type_line("/effort max")
        term.type_line("/clear")
        term.wait_for("new session")
        term.wait_for(lambda: "· effort max ·" in term.display(), "the effort kept by /clear")
        assert term.exit() == 0


def test_a_reasoning_model_thinks_at_medium_by_default(
    fake_provider: FakeProvider, repo: Path
) -> None:
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as term:
        term.wait_ready()
        term.wait_for(lambda: "· effort medium ·" in term.display(), "the default effort")
        scripted_turn(term, fake_provider, 1)
        assert _effort_sent(fake_provider) == "medium"
        assert term.exit() == 0
