"""Subagents on screen: one block per running ``task`` call in the live region, one line in
the scrollback when it ends.

::

    Children.start(call, title)      the parent asked for a task: its block appears
    Children.event(call_id, event)   one of that child's events (tool calls, text, usage)
    Children.finish(call_id) -> Child  the task's result arrived: the block leaves the live
                                     region; ``summary_block`` is its one printed line and
                                     ``Child.log`` what the expand key prints
    live_rows(children, width, now)  the blocks of the running children, a few rows each

A block shows what the child is doing now, its last tool lines and the last line of its
text, how long it has run and its tokens::

    ◆ task: find the tests (general-purpose) · 12s · 3.4k tokens
      ⎿ ● read: src/a.py
        ⋯ bash: pytest -q
        the tests live in tests/…

Nothing here repaints the scrollback: a child's lines are live-region rows until it ends,
then one summary line is printed, once (``docs/tui.md``, "Scrollback is the terminal's").
Pure: ``now`` is passed in, so tests need no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from rich.text import Text

from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    CompactionEnded,
    CompactionStarted,
    HookRan,
    ModelCallStarted,
    Notice,
    PermissionDecided,
    ReasoningDelta,
    SubagentEvent,
    TextDelta,
    ToolCallRequested,
    ToolCallStreaming,
    ToolFinished,
    ToolProgress,
    TurnEnded,
    TurnStarted,
    UserMessageInjected,
    VerificationRan,
)
from earshot.providers import types as pt
from earshot.tui._blocks import EXPAND_KEY, Painter

ROWS = 3
"""Rows under each child's header in the live region."""
MAX_CHILDREN_SHOWN = 4
LOG_LINES = 2000
"""The most lines of a child's log kept for the expand key."""


@dataclass
class Child:
    """One running (or just finished) subagent, as its block shows it."""

    call_id: str
    title: str
    agent: str = ""
    started: float | None = None
    """When its first event arrived (a child that can change files may wait its turn)."""
    ended: float | None = None
    tokens: int = 0
    calls: int = 0
    doing: str = ""
    text: str = ""
    """The text of its current model call, as streamed."""
    done: list[str] = field(default_factory=list)
    """Its finished tool calls, one line each (``●``, or ``✗`` for an error or denial)."""
    running: dict[str, str] = field(default_factory=dict)
    progress: dict[str, str] = field(default_factory=dict)
    """The last line each running call reported (a command's output)."""
    log: list[str] = field(default_factory=list)
    """Everything it did, for the expand key: tool lines and its text."""

    def elapsed(self, now: float) -> float:
        if self.started is None:
            return 0.0
        return (self.ended if self.ended is not None else now) - self.started

    def _log(self, text: str) -> None:
        self.log.extend(text.rstrip("\n").splitlines() or [""])
        if len(self.log) > LOG_LINES:
            del self.log[: len(self.log) - LOG_LINES]

    def event(self, event: AgentEvent, now: float) -> None:
        if self.started is None:
            self.started = now
        match event:
            case ModelCallStarted():
                self.text = ""
                self.doing = "waiting for the model"
            case TextDelta(text=text):
                self.text += text
                self.doing = "writing"
            case ReasoningDelta():
                self.doing = "thinking"
            case ToolCallStreaming(name=name):
                self.doing = f"preparing {name}"
            case AssistantMessage(message=message, total_usage=usage):
                u = usage
                self.tokens = u.input + u.cache_read + u.cache_write + u.output
                said = "".join(p.text for p in message.parts if isinstance(p, pt.TextPart))
                if said.strip():
                    self._log(said.strip())
                    self.text = said
                self.doing = ""
            case ToolCallRequested(call=call, title=title):
                self.running[call.id] = title
                self.calls += 1
                self.doing = f"running {title}"
            case ToolFinished(result=result, brief=brief):
                title = self.running.pop(result.call_id, result.name)
                self.progress.pop(result.call_id, None)
                mark = "✗" if result.is_error else "●"
                line = f"{mark} {title}" + (f"  {brief}" if brief else "")
                self.done.append(line)
                del self.done[:-ROWS]
                self._log(line)
                self.doing = "waiting for the model" if not self.running else self.doing
            case Notice(level=level, message=message) if level == "warning":
                self._log(f"! {message}")
            case ToolProgress(call_id=call_id, message=message):
                lines = [line for line in message.splitlines() if line.strip()]
                if lines and call_id in self.running:
                    self.progress[call_id] = lines[-1].strip()
            case Notice():
                pass
            case HookRan(decision=decision) if decision != "ok":
                self._log(f"· {event.line}")
            case HookRan():
                pass
            case SubagentEvent(event=ToolCallRequested(title=title)):
                # a grandchild's call: one log line (its progress is its own parent's)
                self._log(f"  ↳ {title}")
            case SubagentEvent():
                pass
            case TurnEnded(text=final):
                self.ended = now
                self.doing = ""
                last = final.strip().splitlines()
                if last and self.log[-len(last) :] == last:
                    del self.log[-len(last) :]  # the report is printed after the log
            case (
                TurnStarted()
                | PermissionDecided()
                | UserMessageInjected()
                | CompactionStarted()
                | CompactionEnded()
                | VerificationRan()
            ):
                pass
            case _:
                assert_never(event)

    def rows(self) -> list[str]:
        """The lines under its header: last tool lines, running calls, its last text."""
        rows = list(self.done)
        for call_id, title in self.running.items():
            rows.append(f"⋯ {title}")
            if call_id in self.progress:
                rows.append(f"  {self.progress[call_id]}")
        last = [line for line in self.text.splitlines() if line.strip()]
        if last and not self.running:
            rows.append(last[-1].strip())
        if not rows and self.doing:
            rows.append(self.doing)
        if self.started is None:
            rows.append("waiting to start")
        return rows[-ROWS:]


def tokens_text(tokens: int) -> str:
    if tokens >= 1000:
        return f"{tokens / 1000:.1f}k tokens"
    return f"{tokens} tokens"


def _facts(child: Child, now: float) -> str:
    parts = [f"{child.elapsed(now):.0f}s"]
    if child.tokens:
        parts.append(tokens_text(child.tokens))
    return " · ".join(parts)


class Children:
    """The subagents of the current turn, by the parent's ``task`` call id."""

    def __init__(self) -> None:
        self.running: dict[str, Child] = {}

    def start(self, call: pt.ToolCallPart, title: str) -> None:
        args = call.input if isinstance(call.input, dict) else {}
        description = args.get("description")
        agent = args.get("agent")
        shown = f"{call.name}: {description}" if isinstance(description, str) else title
        self.running[call.id] = Child(
            call.id, shown, agent=agent if isinstance(agent, str) else "general-purpose"
        )

    def event(self, call_id: str, event: AgentEvent, now: float, *, agent: str = "") -> None:
        child = self.running.get(call_id)
        if child is not None:
            if agent:
                child.agent = agent
            child.event(event, now)

    def finish(self, call_id: str, now: float) -> Child | None:
        child = self.running.pop(call_id, None)
        if child is not None and child.ended is None:
            child.ended = now
        return child

    def clear(self) -> None:
        self.running.clear()

    def __bool__(self) -> bool:
        return bool(self.running)


def live_rows(
    children: Children, width: int, now: float, height: int = 16
) -> list[tuple[str, str]]:
    """``(style, line)`` rows for the live region: each running child's header and its
    last rows, cut to ``width``, at most ``height`` rows (children that do not fit are
    counted on the last row)."""
    out: list[tuple[str, str]] = []
    running = list(children.running.values())
    for index, child in enumerate(running):
        left = len(running) - index
        room = height - len(out) - (1 if left > 1 else 0)
        if room < 1 or index >= MAX_CHILDREN_SHOWN:
            out.append(("class:child", f"  … {left} more subagents running"[:width]))
            break
        head = f"◆ {child.title} ({child.agent}) · {_facts(child, now)}"
        out.append(("class:child.head", head[:width]))
        for number, row in enumerate(child.rows()[: room - 1]):
            lead = "  ⎿ " if number == 0 else "    "
            out.append(("class:child", (lead + row.expandtabs(8))[:width]))
    return out


def summary_block(p: Painter, child: Child, *, brief: str, is_error: bool) -> str:
    """The one line a finished child leaves in the scrollback, fitted to the width (the
    tokens, then the time are left out first; the title is cut last)."""
    end = child.ended if child.ended is not None else 0.0
    facts = [brief or child.agent, f"{child.calls} tool call{'s' if child.calls != 1 else ''}"]
    optional = [f"{child.elapsed(end):.0f}s"]
    optional += [tokens_text(child.tokens)] if child.tokens else []
    hint = f"{EXPAND_KEY} expands"
    while True:
        tail = "  " + " · ".join([*facts, *optional, hint])
        if 2 + len(child.title) + len(tail) <= p.width or not optional:
            break
        optional.pop()
    title = child.title
    room = p.width - 2 - len(tail)
    if len(title) > room:
        title = title[: max(8, room - 1)] + "…"
    line = Text()
    line.append("● ", style="red" if is_error else "green")
    line.append(title, style="bold")
    line.append(tail, style="dim")
    return p.render(line)


def expanded_text(child: Child, result: str) -> str:
    """What the expand key prints for a finished child: what it did, then its report."""
    did = "\n".join(child.log) if child.log else "(no tool calls)"
    return f"{did}\n\n── report ──\n{result}"


__all__ = [
    "Child",
    "Children",
    "expanded_text",
    "live_rows",
    "summary_block",
    "tokens_text",
]
