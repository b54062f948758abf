"""A running shell command shows its last lines in the live region, and the time it has
run, before its result is printed. A real ``earshot`` in a pseudo-terminal; the command
waits for a file the test creates, so nothing depends on timing."""

from __future__ import annotations

import subprocess
from pathlib import Path

from earshot.core.loop.events import (
    PermissionDecided,
    ToolCallRequested,
    ToolFinished,
    ToolProgress,
)
from earshot.providers import types as pt
from earshot.tui.render import Feed, Painter, tail_text
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.tui.terminal import MODEL, Terminal, earshot_env

# prints a line, waits until the test says go (at most a minute), prints another; the
# lines it prints (FIRST-LIVE, SECOND-LIVE) are not in its text, which the title shows
COMMAND = (
    "x=LIVE; echo FIRST-$x; "
    "for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done; "
    "echo SECOND-$x"
)


def test_a_running_command_shows_its_output_live(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    call = ToolCallSpec("t1", "bash", {"command": COMMAND})
    fake_provider.script(anthropic.tool_calls_turn([call]), anthropic.text_turn("Both ran."))
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "--permission-mode", "yolo"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("run it")
        term.wait_for("⎿ FIRST-LIVE", "the first line in the live region")
        screen = term.display()
        assert "running bash" in screen and "s · esc to interrupt" in screen
        assert "● bash" not in term.text()  # the result is not printed yet
        assert "SECOND-LIVE" not in term.text()
        (repo / "go").touch()
        term.wait_for("Both ran.")
        term.wait_for(term.idle, "the turn to end")
        text = term.text()
        assert text.count("SECOND-LIVE") == 1  # printed once, in the result
        assert text.index("● bash") < text.index("SECOND-LIVE") < text.index("Both ran.")
        assert "⎿ FIRST-LIVE\n    SECOND-LIVE" in text
        assert term.exit() == 0


def test_output_goes_in_the_tail_and_a_count_on_the_activity_line() -> None:
    feed = Feed(Painter(60, color=False), clock=lambda: 100.0)
    call = pt.ToolCallPart(id="c1", name="bash", input={})
    feed.event(ToolCallRequested(call=call, read_only=False, title="bash: make"))
    feed.event(PermissionDecided(call_id="c1", tool="bash", outcome="allow", reason="ok"))
    assert feed.running_since == 100.0
    feed.event(ToolProgress(call_id="c1", message="cc a.c\n\tcc b.c\ncc c.c"))
    assert feed.activity == "running bash: make"
    shown = tail_text(list(feed.tails.values()), 60, lines=2)
    assert shown == "  ⎿         cc b.c\n    cc c.c"  # last lines, tabs expanded
    feed.event(ToolProgress(call_id="c1", message="linking", progress=3, total=4))
    assert feed.activity == "running bash: make · linking (3/4)"
    result = pt.ToolResultPart(call_id="c1", name="bash", content=[])
    feed.event(ToolFinished(result=result, brief="make (exit 0)", duration_ms=5.0))
    assert feed.tails == {} and feed.running_since is None
