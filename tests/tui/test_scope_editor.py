"""``/scope`` opens the declared scope in ``$EDITOR`` with the UI suspended; the saved edit
applies (widening included: the person editing is the person who would be asked), a bad
edit names its line and keeps both the old scope and the text typed. A real ``earshot`` in a
pseudo-terminal; the editor is a small script that rewrites the file it is given."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from earshot._base.json import JSONValue
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.tui.terminal import MODEL, Terminal, earshot_env

SCOPE: dict[str, JSONValue] = {"goal": "fix the parser", "paths": ["src/**"], "steps": ["fix"]}
EDITOR = """\
import pathlib, sys
here = pathlib.Path(__file__).parent
n = len(list(here.glob("seen-*")))
target = pathlib.Path(sys.argv[1])
(here / f"seen-{n}").write_text(target.read_text())
target.write_text((here / f"edit-{n}").read_text())
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


@pytest.fixture
def editor(tmp_path: Path) -> Path:
    """A folder holding the editor script: it saves what it was given as ``seen-N`` and
    writes ``edit-N`` in its place, N counting the runs."""
    folder = tmp_path / "editor"
    folder.mkdir()
    (folder / "edit.py").write_text(EDITOR)
    return folder


def env_with_editor(base_url: str, editor: Path | None) -> dict[str, str]:
    env = earshot_env(base_url)
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    if editor is not None:
        env["EDITOR"] = f"{shlex.quote(sys.executable)} {shlex.quote(str(editor / 'edit.py'))}"
    return env


@pytest.fixture
def term(fake_provider: FakeProvider, repo: Path, editor: Path) -> Iterator[Terminal]:
    args = ["--model", MODEL, "--permission-mode", "accept-edits"]
    with Terminal(args, cwd=repo, env=env_with_editor(fake_provider.base_url, editor)) as t:
        t.wait_ready()
        yield t


def test_an_edited_scope_applies_and_the_screen_comes_back(
    fake_provider: FakeProvider, term: Terminal, repo: Path, editor: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("s1", "declare_scope", SCOPE)]),
        anthropic.text_turn("declared"),
    )
    term.type_line("plan it")
    term.wait_for(lambda: "declared" in term.text() and term.idle(), "the declaration")
    (editor / "edit-0").write_text(
        "goal: fix the parser and note it\npaths:\n  src/**\n  docs/**\nsteps:\n  1. fix\n"
    )
    term.type_line("/scope")
    term.wait_for("scope updated: goal; paths + docs/**")
    seen = (editor / "seen-0").read_text()
    assert "goal: fix the parser\npaths:\n  src/**\nsteps:\n  1. fix\n" in seen
    term.wait_for(lambda: term.box().startswith("›") and "$" in term.display(), "the UI again")
    fake_provider.script(
        anthropic.tool_calls_turn(
            [ToolCallSpec("w1", "write", {"path": "docs/x.md", "content": "notes\n"})]
        ),
        anthropic.text_turn("written"),
    )
    term.type_line("write the notes")
    term.wait_for(lambda: "written" in term.text() and term.idle(), "the write")
    assert (repo / "docs" / "x.md").read_text() == "notes\n"
    told = str(fake_provider.requests[-2].json()["messages"])
    assert "The user edited the declared scope" in told and "docs/**" in told
    assert "allow write?" not in term.text()  # docs/** is in the edited scope: no prompt
    assert b"\x1b[6n" not in term.raw  # no cursor position query, editor or not
    assert term.exit() == 0


def test_a_bad_edit_keeps_the_scope_and_the_text_typed(
    fake_provider: FakeProvider, term: Terminal, editor: Path
) -> None:
    bad = "goal: write the notes\npaths:\n  docs/** src/**\n"
    (editor / "edit-0").write_text(bad)
    (editor / "edit-1").write_text("goal: write the notes\npaths:\n  docs/**\n")
    term.type_line("/scope")
    term.wait_for("the scope is unchanged: line 3: 'docs/** src/**' is not one path glob")
    term.type_line("/scope")
    term.wait_for("scope updated")
    assert (editor / "seen-1").read_text() == bad
    assert "paths: docs/**" in term.text()
    assert term.exit() == 0


def test_without_an_editor_scope_says_how_to_set_one(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = env_with_editor(fake_provider.base_url, None)
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("/scope")
        term.wait_for("set $EDITOR (or $VISUAL) to edit the scope here")
        assert "no scope declared" in term.text()
        assert term.exit() == 0
