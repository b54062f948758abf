"""The small glitches of the walk-through, fixed: a Markdown heading starts at the left,
a file tool's line says its path and verb once, ``/init``'s session is titled ``/init``,
sessions are listed by their last update, an alias in ``/model``. A real ``earshot`` in a
pseudo-terminal, and real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from earshot.core.config.aliases import alias_target
from earshot.providers.catalog import ModelCatalog
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.tui.terminal import MODEL, Terminal, earshot_env


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "src").mkdir()
    (work / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return work


def cli(fake: FakeProvider, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=repo,
        env=earshot_env(fake.base_url),
        timeout=60,
        check=False,
    )


def test_headings_start_at_the_left_and_file_tools_say_things_once(
    fake_provider: FakeProvider, repo: Path
) -> None:
    read = ToolCallSpec("t1", "read", {"path": "src/calc.py"})
    edit = ToolCallSpec(
        "t2", "edit", {"path": "src/calc.py", "old_string": "a - b", "new_string": "a + b"}
    )
    fake_provider.script(
        anthropic.tool_calls_turn([read]),
        anthropic.tool_calls_turn([edit]),
        anthropic.text_turn("# Fixed Heading\n\nThe sum is right now."),
    )
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "--permission-mode", "yolo"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("fix calc")
        term.wait_for("The sum is right now.")
        term.wait_for(term.idle, "the turn to end")
        rows = term.text().splitlines()
        assert "Fixed Heading" in rows  # at column 0, not centred
        assert "● read: src/calc.py  lines 1-2 of 2" in rows
        assert "● edit: src/calc.py  +1 -1" in rows
        assert not [row for row in rows if row.startswith("●") and str(repo) in row]
        assert term.exit() == 0


def test_init_is_the_title_of_the_session_it_starts(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Wrote AGENTS.md."))
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("/init")
        term.wait_for("Wrote AGENTS.md.")
        term.wait_for(term.idle, "the turn to end")
        term.type_line("/sessions")
        term.wait_for("(this one)")
        listed = next(r for r in term.text().splitlines() if "(this one)" in r)
        assert "/init" in listed and "Look at this repository" not in listed
        assert term.exit() == 0
    rows = cli(fake_provider, repo, "sessions", "list").stdout.splitlines()
    assert rows[1].endswith("/init")


def test_sessions_are_listed_by_their_last_update(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(
        anthropic.text_turn("one"), anthropic.text_turn("two"), anthropic.text_turn("again")
    )
    for prompt in ("first session", "second session"):
        done = cli(fake_provider, repo, "--model", MODEL, "-p", prompt)
        assert done.returncode == 0, done.stderr
    listed = cli(fake_provider, repo, "sessions", "list").stdout.splitlines()
    assert [row.split()[-2:] for row in listed[1:]] == [["second", "session"], ["first", "session"]]
    first_id = listed[2].split()[0]
    done = cli(fake_provider, repo, "--model", MODEL, "-r", first_id, "-p", "once more")
    assert done.returncode == 0, done.stderr
    relisted = cli(fake_provider, repo, "sessions", "list").stdout.splitlines()
    assert relisted[1].split()[0] == first_id  # updated last, so listed first


def test_model_takes_an_alias(fake_provider: FakeProvider, repo: Path) -> None:
    newest = alias_target("haiku", ModelCatalog.load(use_cache=False))
    assert newest is not None
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as term:
        term.wait_ready()
        term.type_line("/model haiku")
        term.wait_for(
            lambda: (
                term.display().splitlines()[-1].startswith(newest)
                or any(row.startswith(newest + " ·") for row in term.display().splitlines())
            ),
            "the status line to show the alias's model",
        )
        assert term.exit() == 0
