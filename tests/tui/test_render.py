"""The rendering rules without a terminal: events in, printed text out."""

from __future__ import annotations

import re
from pathlib import Path

from earshot.cli.tui_cmd import split_prompt
from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    HookRan,
    ModelCallStarted,
    Notice,
    RetryInfo,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    ToolProgress,
    TurnEnded,
    TurnStarted,
)
from earshot.core.tools.display import FileChange
from earshot.providers import types as pt
from earshot.tui._attach import build_input, placeholder_for
from earshot.tui.app import Attachments
from earshot.tui.render import Feed, Painter, split_blocks, status_text, tool_block

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(text: str) -> str:
    return ANSI.sub("", text)


def answer_turn(text: str, pieces: int) -> list[AgentEvent]:
    step = max(1, len(text) // pieces)
    deltas: list[AgentEvent] = [
        TextDelta(text=text[i : i + step]) for i in range(0, len(text), step)
    ]
    message = pt.Message(role="assistant", parts=[pt.TextPart(text=text)])
    usage = pt.Usage(input=100, output=20)
    return [
        TurnStarted(input=pt.Message(role="user", parts=[pt.TextPart(text="q")])),
        ModelCallStarted(index=1, model="a/b"),
        *deltas,
        AssistantMessage(
            message=message,
            model="a/b",
            finish_reason="stop",
            usage=usage,
            cost_usd=0.01,
            total_usage=usage,
            total_cost_usd=0.01,
        ),
        TurnEnded(
            reason="end_turn",
            text=text,
            model_calls=1,
            usage=usage,
            cost_usd=0.01,
            total_usage=usage,
            total_cost_usd=0.01,
        ),
    ]


def printed(feed: Feed, events: list[AgentEvent]) -> str:
    return "".join(block for event in events for block in feed.event(event))


def test_every_streamed_paragraph_is_printed_once_and_the_live_region_empties() -> None:
    text = "First paragraph BISON.\n\nSecond one with `code`.\n\n- a list item YAK"
    feed = Feed(Painter(60, color=False))
    out = plain(printed(feed, answer_turn(text, 17)))
    for word in ("BISON", "Second one", "YAK"):
        assert out.count(word) == 1, out
    assert feed.live == ""
    assert feed.context_tokens == 120


def test_a_finished_paragraph_leaves_the_live_region_while_the_next_streams() -> None:
    feed = Feed(Painter(60, color=False))
    feed.event(ModelCallStarted(index=1, model="a/b"))
    out = feed.event(TextDelta(text="Done para.\n\nStill go"))
    assert "Done para." in plain("".join(out))
    assert feed.live == "Still go"


def test_a_blank_line_inside_a_code_fence_does_not_split_it() -> None:
    text = "Intro\n\n```py\nx = 1\n\ny = 2\n```\n\nafter"
    done, rest = split_blocks(text)
    assert done.endswith("```")
    assert rest == "after"
    assert split_blocks("```py\nx = 1\n\ny")[0] == ""


def test_tool_result_is_collapsed_to_its_first_and_last_lines() -> None:
    result = "\n".join(f"line {i}" for i in range(30)) + "\n3 passed\nexit code: 0"
    out = plain(tool_block(Painter(60, color=False), "bash: seq 30", result, brief="exit 0"))
    assert "bash: seq 30" in out
    assert "line 3" in out
    assert "line 4\n" not in out
    assert "+26 lines" in out
    assert out.rstrip().endswith("3 passed\n    exit code: 0")


def test_tabs_in_tool_output_are_expanded_not_wrapped() -> None:
    source = "\n".join(f"{n:6}\t    return a - b  # line {n}" for n in range(1, 4))
    out = plain(tool_block(Painter(120, color=False), "read", source))
    lines = out.splitlines()
    assert "\t" not in out
    assert len(lines) == 4  # the title and one screen line per source line
    assert lines[1].endswith("return a - b  # line 1")


def test_an_edit_is_shown_as_a_coloured_diff() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old = 1\n+new = 2\n"
    change = FileChange(path="/x.py", diff=diff, old="old = 1\n", new="new = 2\n")
    call = pt.ToolCallPart(id="c1", name="edit", input={"path": "x.py"})
    result = pt.ToolResultPart(call_id="c1", name="edit", content=[pt.TextPart(text="ok")])
    feed = Feed(Painter(60, color=True))
    feed.event(ToolCallRequested(call=call, read_only=False, title="edit: x.py"))
    out = "".join(
        feed.event(ToolFinished(result=result, brief="", duration_ms=1.0, display=change))
    )
    assert "\x1b[32m" in out and "+new = 2" in out
    assert "\x1b[31m" in out and "-old = 1" in out
    colourless = Feed(Painter(60, color=False))
    colourless.event(ToolCallRequested(call=call, read_only=False, title="edit: x.py"))
    out = "".join(
        colourless.event(ToolFinished(result=result, brief="", duration_ms=1.0, display=change))
    )
    assert "\x1b[3" not in out


def test_status_line_names_model_mode_context_cost_and_session() -> None:
    line = status_text(
        model="anthropic/claude-sonnet-4-6",
        mode="ask",
        context_tokens=50_000,
        context_window=200_000,
        cost_usd=0.1234,
        session_id="01a22ba8-c",
    )
    assert line == "anthropic/claude-sonnet-4-6 · ask · ctx 25% · $0.1234 · 01a22ba8-c"


def test_a_long_paste_is_collapsed_and_expanded_when_sent(tmp_path: Path) -> None:
    attachments = Attachments()
    pasted = "\n".join(f"row {i}" for i in range(40))
    shown = placeholder_for(pasted, attachments, tmp_path)
    assert shown == "[Pasted text #1 +40 lines]"
    assert placeholder_for("short", attachments, tmp_path) == "short"
    display, turn_input = build_input(f"look at {shown}", attachments, tmp_path)
    assert display == "look at [Pasted text #1 +40 lines]"
    assert turn_input == f"look at {pasted}"


def test_a_pasted_image_path_becomes_an_image_part(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    attachments = Attachments()
    shown = placeholder_for(str(tmp_path / "shot.png"), attachments, tmp_path)
    assert shown == "[Image #1]"
    _, turn_input = build_input(f"what is in {shown}", attachments, tmp_path)
    assert isinstance(turn_input, list)
    assert [type(p).__name__ for p in turn_input] == ["TextPart", "ImagePart"]


def test_command_line_takes_one_prompt_among_the_flags() -> None:
    flags, prompt = split_prompt(["--model", "a/b", "fix the bug", "--permission-mode", "ask"])
    assert flags == ["--model", "a/b", "--permission-mode", "ask"]
    assert prompt == "fix the bug"
    assert split_prompt(["-c"]) == (["-c"], None)


def test_a_retry_shows_on_the_activity_line_before_the_wait() -> None:
    feed = Feed(Painter(60, color=False))
    feed.event(ModelCallStarted(index=1, model="a/b"))
    retry = RetryInfo(
        attempt=2, max_attempts=3, kind="rate_limit", reason="rate limited", delay_s=4.0, error="x"
    )
    out = feed.event(
        Notice(level="warning", message="retrying in 4 s (rate limited, attempt 2/3)", retry=retry)
    )
    assert out == []  # a status, not a block in the scrollback
    assert feed.activity == "retrying in 4 s (rate limited, attempt 2/3)"
    feed.event(TextDelta(text="Here"))
    assert feed.activity == "writing"


def test_a_hook_run_shows_only_when_it_decided_something() -> None:
    feed = Feed(Painter(100, color=False))

    def ran(decision: str, code: int) -> HookRan:
        return HookRan(
            event="PreToolUse",
            command="./check.sh",
            matcher="Bash",
            source="user",
            exit_code=code,
            duration_ms=12.0,
            decision=decision,
            output="",
        )

    assert feed.event(ran("ok", 0)) == []
    shown = "".join(feed.event(ran("block", 2)))
    assert "hook PreToolUse `./check.sh`: block (exit 2, 12 ms)" in shown


def test_a_running_calls_progress_shows_on_the_activity_line_until_it_finishes() -> None:
    feed = Feed(Painter(60, color=False))
    call = pt.ToolCallPart(id="c1", name="mcp__db__migrate", input={})
    feed.event(ToolCallRequested(call=call, read_only=False, title="mcp__db__migrate"))
    assert feed.event(ToolProgress(call_id="c1", message="table 3", progress=3, total=10)) == []
    assert feed.activity == "running mcp__db__migrate · table 3 (3/10)"
    feed.event(ToolProgress(call_id="c1", progress=0.5))
    assert feed.activity == "running mcp__db__migrate · 0.5"
    result = pt.ToolResultPart(call_id="c1", name="mcp__db__migrate", content=[])
    printed = feed.event(ToolFinished(result=result, brief="migrated", duration_ms=5.0))
    assert "table 3" not in plain("".join(printed))
    feed.event(ToolProgress(call_id="c1", message="late"))  # never after the result
    assert "late" not in feed.activity
