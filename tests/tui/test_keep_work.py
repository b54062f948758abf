"""Nothing typed or said is lost: a failed /resume, an interrupt with queued messages,
Ctrl-C over a draft, the way out. A real ``earshot`` in a pseudo-terminal."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, SSEReply, ToolCallSpec, anthropic
from tests.tui.terminal import (
    CTRL_C,
    ESC,
    MODEL,
    SHIFT_TAB,
    Terminal,
    earshot_env,
    scripted_turn,
)


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


def slow(reply: SSEReply, delay: float) -> SSEReply:
    reply.delay = delay
    return reply


def status_line(term: Terminal) -> str:
    rows = [row for row in term.display().splitlines() if row.strip()]
    return rows[-1] if rows else ""


def status_colour(term: Terminal) -> str:
    """The colour pyte saw on the status line's first character."""
    with term._lock:
        rows = [y for y, row in enumerate(term.screen.display) if row.strip()]
        return str(term.screen.buffer[rows[-1]][0].fg)


def test_a_failed_resume_keeps_the_conversation(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    scripted_turn(term, fake_provider, 1)
    before = status_line(term)
    term.type_line("/resume 0000dead")
    term.wait_for("this session goes on")
    assert status_line(term) == before
    scripted_turn(term, fake_provider, 2)
    assert "question 1" in str(fake_provider.requests[-1].json()["messages"])
    assert term.exit() == 0


def test_esc_puts_a_queued_message_back_in_the_box(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    words = " ".join(f"word{i}" for i in range(60))
    fake_provider.script(slow(anthropic.text_turn(words, chunks=60), 0.15))
    term.type_line("talk slowly")
    term.wait_for("word1", "the stream to start")
    term.type_line("also mention tests")
    term.wait_for("queued: also mention tests")
    term.send(ESC)
    term.wait_for("went back in the input box")
    term.wait_for(term.idle, "the turn to end")
    assert term.input_line() == "› also mention tests"
    assert "queued:" not in term.display()
    assert len(fake_provider.requests) == 1
    term.send("\x15")
    assert term.exit() == 0


def test_ctrl_c_interrupts_then_clears_a_draft_and_only_then_exits(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    words = " ".join(f"word{i}" for i in range(60))
    fake_provider.script(slow(anthropic.text_turn(words, chunks=60), 0.15))
    term.type_line("talk slowly")
    term.wait_for("word1", "the stream to start")
    term.send(CTRL_C)
    term.wait_for(term.idle, "the turn to end")
    term.send("some draft text")
    term.wait_for(lambda: term.input_line() == "› some draft text", "the draft")
    term.send(CTRL_C)
    term.wait_for("draft cleared")
    assert term.proc.poll() is None
    assert term.input_line() == "›"
    term.send("\x1b[A")  # Up brings the cleared draft back
    term.wait_for(lambda: term.input_line() == "› some draft text", "the draft again")
    term.send("\x15")
    term.send(CTRL_C)
    term.wait_for("press Ctrl-C again to exit")
    term.send(CTRL_C)
    assert term.proc.wait(15) == 0
    term.wait_for("resume: earshot -r", "the exit summary")


def test_shift_tab_never_reaches_yolo_and_yolo_is_set_by_name(term: Terminal) -> None:
    seen: list[str] = []
    for _ in range(5):
        term.send(SHIFT_TAB)
        term.wait_quiet(0.2)
        modes = {"plan", "ask", "accept-edits", "auto", "yolo"}
        seen += [part for part in status_line(term).split(" · ") if part in modes]
    assert "yolo" not in seen
    assert {"accept-edits", "auto", "plan", "ask"} <= set(seen)
    term.type_line("/mode yolo")
    term.wait_for(lambda: "· yolo ·" in term.display(), "yolo by name")
    assert status_colour(term) == "red"
    assert term.exit() == 0


def test_the_way_out_prints_the_session_and_how_to_resume_it(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        scripted_turn(term, fake_provider, 1)
        term.type_line("/exit")
        assert term.proc.wait(15) == 0
        term.wait_for("resume: earshot -r")
        line = next(r for r in term.text().splitlines() if "resume: earshot -r" in r)
    short = line.rsplit(" ", 1)[-1]
    assert "$" in line and "tokens" in line
    with Terminal(["--model", MODEL, "-r", short], cwd=repo, env=env) as term:
        term.wait_ready()
        assert "(resumed)" in term.text()
        term.wait_for("question 1", "the replayed history")
        assert term.exit() == 0


def test_session_ids_shown_are_unique_prefixes_everywhere(
    fake_provider: FakeProvider, repo: Path
) -> None:
    env = earshot_env(fake_provider.base_url)
    for index in (1, 2):
        fake_provider.script(anthropic.text_turn(f"answer {index}"))
        done = subprocess.run(
            [sys.executable, "-m", "earshot", "--model", MODEL, "-p", f"run {index}"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("/sessions")
        term.wait_for("sessions in this directory")
        term.wait_quiet(0.2)
        shown = term.text()
        assert term.exit() == 0
    listed = subprocess.run(
        [sys.executable, "-m", "earshot", "sessions", "list"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    cli_ids = [row.split()[0] for row in listed.splitlines()[1:] if row.strip()]
    assert len(cli_ids) >= 2 and len(set(cli_ids)) == len(cli_ids)
    for short in cli_ids:
        assert not any(o != short and o.startswith(short) for o in cli_ids)
    for short in cli_ids[-2:]:  # the two runs: the same prefix in the UI's list
        assert f" {short} " in shown


def test_a_resumed_session_replays_its_tool_calls(fake_provider: FakeProvider, repo: Path) -> None:
    env = earshot_env(fake_provider.base_url)
    call = ToolCallSpec("t1", "bash", {"command": "echo REPLAYED-OUTPUT"})
    fake_provider.script(anthropic.tool_calls_turn([call]), anthropic.text_turn("Ran it."))
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "--model", MODEL, "--permission-mode=yolo", "-p", "e"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with Terminal(["--model", MODEL, "-c"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.wait_for("REPLAYED-OUTPUT")
        text = term.text()
        assert "bash: echo REPLAYED-OUTPUT" in text
        assert text.index("› e") < text.index("REPLAYED-OUTPUT") < text.index("Ran it.")
        assert term.exit() == 0


def test_commands_are_echoed_and_small_glitches_stay_fixed(
    fake_provider: FakeProvider, repo: Path
) -> None:
    call = ToolCallSpec("t1", "bash", {"command": "echo BODY-LINE"})
    fake_provider.script(anthropic.tool_calls_turn([call]), anthropic.text_turn("Ran."))
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "--permission-mode", "yolo"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.send("first line")
        term.send("\n")  # Ctrl-J: a second line in the box
        term.type_line("second line")
        term.wait_for("Ran.")
        term.wait_for(term.idle, "the turn to end")
        text = term.text()
        assert "› first line\n  second line" in text
        assert "(exit 0)" in text and "exit code: 0" not in text
        term.type_line("/context")
        term.wait_for("last call (measured)")
        assert "› /context" in term.text()
        measured = next(r for r in term.text().splitlines() if "last call (measured)" in r)
        assert "(measured) " in measured
        assert term.exit() == 0


def test_at_path_attaches_the_file_text(
    fake_provider: FakeProvider, term: Terminal, repo: Path
) -> None:
    (repo / "mod.py").write_text("x = 1  # ATTACHED-CONTENT\n")
    fake_provider.script(anthropic.text_turn("It sets x."))
    term.type_line("look at @mod.py")
    term.wait_for("It sets x.")
    sent = str(fake_provider.requests[-1].json()["messages"])
    assert "ATTACHED-CONTENT" in sent
    assert "ATTACHED-CONTENT" not in term.text()
    assert term.exit() == 0


def test_reasoning_is_a_collapsed_line_and_ctrl_o_expands_it(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    reasoning = "First I consider the bug.\nThen HIDDEN-DETAIL matters."
    fake_provider.script(anthropic.reasoning_turn(reasoning, "The answer."))
    term.type_line("think")
    term.wait_for("The answer.")
    term.wait_for(term.idle, "the turn to end")
    assert "✻ thinking" in term.text()
    assert "HIDDEN-DETAIL" not in term.text()
    term.send("\x0f")  # Ctrl-O
    term.wait_for("HIDDEN-DETAIL")
    assert term.exit() == 0


def test_rewind_keeps_the_model_switched_to(fake_provider: FakeProvider, term: Terminal) -> None:
    scripted_turn(term, fake_provider, 1)
    term.type_line("/model anthropic/claude-haiku-4-5")
    term.wait_for(lambda: "claude-haiku-4-5 ·" in status_line(term), "the switch")
    term.type_line("/rewind 1")
    term.wait_for("rewound to before message 1")
    term.wait_quiet(0.2)
    assert "claude-haiku-4-5 ·" in status_line(term)
    term.send("\x15")
    assert term.exit() == 0


def test_a_pasted_block_counts_its_lines(term: Terminal) -> None:
    pasted = "".join(f"row {i}\n" for i in range(30))
    term.send("\x1b[200~" + pasted + "\x1b[201~")
    term.wait_for("[Pasted text #1 +30 lines]")
    term.send("\x15")
    assert term.exit() == 0
