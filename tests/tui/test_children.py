"""Subagents without a terminal: a running ``task`` is a live block with the child's current
tool calls, time and tokens; when it ends, one summary line is printed and the expand key
holds what the child did and its report."""

from __future__ import annotations

import re

from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    ModelCallStarted,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    ToolProgress,
    TurnEnded,
)
from earshot.providers import types as pt
from earshot.tui._children import live_rows
from earshot.tui.render import Feed, Painter

ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def plain(text: str) -> str:
    return ANSI.sub("", text)


def requested(call_id: str, name: str, title: str, args: pt.JSONValue) -> ToolCallRequested:
    return ToolCallRequested(
        call=pt.ToolCallPart(id=call_id, name=name, input=args), read_only=True, title=title
    )


def finished(call_id: str, name: str, text: str, brief: str = "") -> ToolFinished:
    result = pt.ToolResultPart(call_id=call_id, name=name, content=[pt.TextPart(text=text)])
    return ToolFinished(result=result, brief=brief, duration_ms=1.0)


def said(text: str, tokens: int) -> AssistantMessage:
    usage = pt.Usage(input=tokens - 10, output=10)
    return AssistantMessage(
        message=pt.Message(role="assistant", parts=[pt.TextPart(text=text)]),
        model="a/b",
        finish_reason="stop",
        usage=usage,
        cost_usd=None,
        total_usage=usage,
        total_cost_usd=None,
    )


def ended(text: str) -> TurnEnded:
    usage = pt.Usage()
    return TurnEnded(
        reason="end_turn",
        text=text,
        model_calls=1,
        usage=usage,
        cost_usd=None,
        total_usage=usage,
        total_cost_usd=None,
    )


def rows(feed: Feed, clock: Clock, width: int = 80) -> list[str]:
    return [row for _, row in live_rows(feed.children, width, clock.now)]


def test_a_running_child_shows_its_tool_calls_time_and_tokens_then_one_line() -> None:
    clock = Clock()
    feed = Feed(Painter(100, color=False), clock=clock)
    task = requested("t1", "task", "task", {"description": "find the tests", "prompt": "p"})
    assert feed.event(task) == []
    assert rows(feed, clock) == [
        "◆ task: find the tests (general-purpose) · 0s",
        "  ⎿ waiting to start",  # children that change files run one at a time
    ]
    child: list[AgentEvent] = [
        ModelCallStarted(index=1, model="a/b"),
        said("", 3400),
        requested("c1", "read", "read: src/a.py", {"path": "src/a.py"}),
    ]
    for event in child:
        feed.children.event("t1", event, clock.now)
    clock.now += 12
    assert rows(feed, clock) == [
        "◆ task: find the tests (general-purpose) · 12s · 3.4k tokens",
        "  ⎿ ⋯ read: src/a.py",
    ]
    more: list[AgentEvent] = [
        finished("c1", "read", "1\tx = 1", "1 line"),
        ModelCallStarted(index=2, model="a/b"),
        TextDelta(text="The tests are in tests/.\nThere are two."),
    ]
    for event in more:
        feed.children.event("t1", event, clock.now)
    assert rows(feed, clock)[1:] == ["  ⎿ ● read: src/a.py  1 line", "    There are two."]
    feed.children.event("t1", said("The tests are in tests/.\nThere are two.", 4200), clock.now)
    feed.children.event("t1", ended("The tests are in tests/."), clock.now)
    clock.now += 3  # the result comes back after the child's turn ended: its time stays
    out = plain("".join(feed.event(finished("t1", "task", "The tests are in tests/.", "ok"))))
    assert out.strip() == (
        "● task: find the tests  ok · 1 tool call · 12s · 4.2k tokens · Ctrl-O expands"
    )
    assert not feed.children and rows(feed, clock) == []
    assert feed.expandable is not None
    title, text = feed.expandable
    assert title == "task: find the tests"
    assert "● read: src/a.py  1 line" in text and text.endswith("The tests are in tests/.")


def test_each_of_two_children_has_its_own_block() -> None:
    clock = Clock()
    feed = Feed(Painter(100, color=False), clock=clock)
    for call_id, agent in (("t1", "reader"), ("t2", "writer")):
        args: pt.JSONValue = {"description": f"job {call_id}", "prompt": "p", "agent": agent}
        feed.event(requested(call_id, "task", "task", args))
    feed.children.event("t2", requested("c9", "bash", "bash: ls", {}), clock.now)
    feed.children.event("t2", ToolProgress(call_id="c9", message="a.py\nb.py\n"), clock.now)
    assert rows(feed, clock) == [
        "◆ task: job t1 (reader) · 0s",
        "  ⎿ waiting to start",
        "◆ task: job t2 (writer) · 0s",
        "  ⎿ ⋯ bash: ls",
        "      b.py",  # the running command's last output line
    ]
    feed.event(finished("t1", "task", "done"))
    assert rows(feed, clock)[0] == "◆ task: job t2 (writer) · 0s"
    feed.event(ended(""))
    assert rows(feed, clock) == []


def test_children_that_do_not_fit_are_counted() -> None:
    clock = Clock()
    feed = Feed(Painter(100, color=False), clock=clock)
    for n in range(6):
        args: pt.JSONValue = {"description": f"job {n}", "prompt": "p"}
        feed.event(requested(f"t{n}", "task", "task", args))
    shown = [row for _, row in live_rows(feed.children, 80, clock.now, height=5)]
    assert shown == [
        "◆ task: job 0 (general-purpose) · 0s",
        "  ⎿ waiting to start",
        "◆ task: job 1 (general-purpose) · 0s",
        "  ⎿ waiting to start",
        "  … 4 more subagents running",
    ]
