"""A subagent in the running UI: while its ``task`` runs, the live region shows the child's
current tool call; when it ends, one summary line stays in the scrollback and Ctrl-O prints
what the child did. A real ``earshot`` in a pseudo-terminal over the fake provider."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.tui.terminal import ESC, MODEL, Terminal, earshot_env

CTRL_O = "\x0f"
WAIT_FOR_GO = "until [ -f go ]; do sleep 0.05; done; echo went"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


@pytest.fixture
def term(fake_provider: FakeProvider, repo: Path) -> Iterator[Terminal]:
    args = ["--model", MODEL, "--permission-mode", "yolo"]
    with Terminal(args, cwd=repo, env=earshot_env(fake_provider.base_url)) as t:
        t.wait_ready()
        yield t


def test_a_running_child_shows_its_tool_call_then_one_summary_line(
    fake_provider: FakeProvider, term: Terminal, repo: Path
) -> None:
    task = {"description": "wait for the file", "prompt": "wait until the go file exists"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "task", dict(task))]),
        anthropic.tool_calls_turn([ToolCallSpec("c1", "bash", {"command": WAIT_FOR_GO})]),
        anthropic.text_turn("The go file appeared."),
        anthropic.text_turn("All done."),
    )
    term.type_line("delegate the waiting")
    # the child's command blocks until the file exists: the block is on screen meanwhile
    term.wait_for(
        lambda: (
            "◆ task: wait for the file (general-purpose)" in term.display()
            and f"⋯ bash: {WAIT_FOR_GO}" in term.display()
        ),
        "the child's block with its running command",
    )
    (repo / "go").write_text("")
    term.wait_for(lambda: "All done." in term.text() and term.idle(), "the parent's answer")
    summary = [row for row in term.text().splitlines() if row.startswith("● task:")]
    assert len(summary) == 1  # one line, fitted to the width
    assert summary[0].startswith("● task: wait for the file  general-purpose: 0 file(s) changed")
    assert "· 1 tool call ·" in summary[0] and summary[0].endswith("Ctrl-O expands")
    assert "◆ task" not in term.display()
    term.send(CTRL_O)
    term.wait_for("▾ task: wait for the file", "the expanded child")
    expanded = term.text().split("▾ task: wait for the file", 1)[1]
    assert f"● bash: {WAIT_FOR_GO}" in expanded
    assert "The go file appeared." in expanded
    assert term.exit() == 0


def test_esc_stops_a_running_child_and_its_block_says_so(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    task = {"description": "wait forever", "prompt": "wait until the go file exists"}
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "task", dict(task))]),
        anthropic.tool_calls_turn([ToolCallSpec("c1", "bash", {"command": WAIT_FOR_GO})]),
    )
    term.type_line("delegate the waiting")
    term.wait_for(lambda: "⋯ bash: until" in term.display(), "the child's running command")
    term.send(ESC)
    term.wait_for(lambda: "interrupted" in term.text() and term.idle(), "the interrupt")
    summary = [row for row in term.text().splitlines() if row.startswith("● task:")]
    assert len(summary) == 1 and "interrupted" in summary[0]
    assert "◆ task" not in term.display()
    assert term.exit() == 0
