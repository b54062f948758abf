"""From agent events to text: what goes into the scrollback (once) and what the live region
shows. Pure functions and one small state machine, testable without a terminal.

::

    Painter         rich renderables -> ANSI text at a width (colour off for NO_COLOR)
    *_block         one printed block each: user, assistant markdown, tool call + result
                    (collapsed; a diff coloured), notice, turn end
    split_blocks    streamed markdown cut at the last blank line outside a code fence
    Feed            events in, blocks to print out; keeps the live state (the streamed text
                    not yet printed, the current activity)
    status_text     the status line

Contract: every completed message, tool call and error leaves ``Feed.event`` exactly once,
as text to print above the live region; nothing printed is ever drawn again. What the live
region holds (``Feed.live``) is only the current, unfinished paragraph, so the cost of a
repaint does not grow with the transcript.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, assert_never

from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text

from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    CompactionEnded,
    CompactionStarted,
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
    result_text,
)
from earshot.core.tools.display import FileChange
from earshot.providers import types as pt
from earshot.tui._children import Children, expanded_text, summary_block
from earshot.tui._paint import EXPAND_KEY, Painter

if TYPE_CHECKING:
    from earshot.core.agent_session import AgentSession

RESULT_LINES = 6
RESULT_TAIL_LINES = 2
DIFF_LINES = 40
LIVE_CHARS = 6000


def _markdown(text: str) -> Markdown:
    return Markdown(text, code_theme="monokai", hyperlinks=False)


def user_block(p: Painter, text: str, *, note: str = "") -> str:
    line = Text()
    line.append("› ", style="bold cyan")
    # continuation lines are indented under the first, as the input box shows them
    line.append(text.rstrip("\n").replace("\n", "\n  "), style="bold")
    if note:
        line.append(f"  ({note})", style="dim")
    return p.render(Text(""), line)


def command_block(p: Painter, text: str) -> str:
    """A slash command as typed, dim: the scrollback shows what asked for the reply."""
    return p.render(Text(""), Text(f"› {text.strip()}", style="dim"))


def assistant_block(p: Painter, text: str) -> str:
    if not text.strip():
        return ""
    return p.render(_markdown(text.strip("\n")))


def collapse(text: str, lines: int = RESULT_LINES) -> tuple[list[str], int]:
    """The first ``lines`` lines of ``text`` and how many were left out."""
    rows = text.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return rows, 0
    return rows[:lines], len(rows) - lines


def collapse_ends(
    text: str, lines: int = RESULT_LINES, tail: int = RESULT_TAIL_LINES
) -> tuple[list[str], int, list[str]]:
    """``text`` in at most ``lines`` lines: all of it, or its first lines, how many were
    left out, and its last ``tail`` lines (where a test summary and an exit code are)."""
    rows = text.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return rows, 0, []
    keep = max(lines - tail, 1)
    return rows[:keep], len(rows) - keep - tail, rows[len(rows) - tail :]


def _rows(rows: list[str], width: int) -> str:
    """Rows for a folding column: tabs expanded first (a column measures a tab as one cell,
    so an unexpanded tab makes every ``read`` line wrap), each cut at four screen lines."""
    return "\n".join(row.expandtabs(8)[: width * 4] for row in rows)


def diff_text(diff: str, lines: int = DIFF_LINES) -> Text:
    """A unified diff, coloured: additions green, removals red, hunks cyan."""
    out = Text()
    rows, hidden = collapse(diff, lines)
    for row in rows:
        style = ""
        if row.startswith(("+++", "---")):
            style = "bold"
        elif row.startswith("+"):
            style = "green"
        elif row.startswith("-"):
            style = "red"
        elif row.startswith("@@"):
            style = "cyan"
        out.append("    " + row + "\n", style=style)
    if hidden:
        out.append(f"    … {hidden} more diff lines\n", style="dim")
    return out


def tool_block(
    p: Painter,
    title: str,
    result: str,
    *,
    is_error: bool = False,
    brief: str = "",
    diff: str = "",
) -> str:
    _, _, subject = title.partition(": ")
    if subject and brief.startswith(subject):
        brief = brief[len(subject) :].strip()
    head = Text()
    head.append("● ", style="red" if is_error else "green")
    head.append(title, style="bold")
    if brief:
        head.append(f"  {brief}", style="dim")
    if diff:
        return p.render(head, diff_text(diff))
    first, hidden, last = collapse_ends(result)
    if not first:
        return p.render(head)
    style = "red" if is_error else "dim"
    body = Text(_rows(first, p.width), style=style)
    if hidden:
        body.append(f"\n… +{hidden} lines", style="dim")
        body.append("\n" + _rows(last, p.width), style=style)
    grid = Table.grid(padding=0)
    grid.add_column(width=4, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(Text("  ⎿ ", style="dim"), body)
    return p.render(head, grid)


def shown_result(text: str, brief: str) -> str:
    """A result as the scrollback shows it: a last ``exit code: N`` line is left out when
    the title already says ``(exit N)``."""
    head, _, last = text.rstrip("\n").rpartition("\n")
    if last.startswith("exit code: ") and f"(exit {last[11:].split()[0]})" in brief:
        return head if head.strip() else ""
    return text


def thinking_block(p: Painter, reasoning: str) -> str:
    """Reasoning, collapsed to one dim line; the expand key prints it whole."""
    words = len(reasoning.split())
    first = reasoning.splitlines()[0] if reasoning else ""
    line = Text(f"✻ thinking ({words} words) · {EXPAND_KEY} expands", style="dim italic")
    if first:
        line.append(f"\n  {first[: max(10, p.width - 4)]}", style="dim")
    return p.render(line)


def expanded_block(p: Painter, title: str, text: str) -> str:
    """The last collapsed block in full (the expand key)."""
    head = Text(f"▾ {title}", style="bold dim")
    return p.render(head, Text(text.expandtabs(8), style="dim"))


def banner_block(p: Painter, version: str, session: AgentSession) -> str:
    """The two lines a session starts with: version, model, directory; id and keys."""
    lines = [
        f"earshot {version} · {session.model} · {session.cwd}",
        f"session {session.id}{' (resumed)' if session.resumed else ''} · "
        "/help for commands · Esc interrupts · Ctrl-D exits",
    ]
    return info_block(p, "\n".join(lines))


def notice_block(p: Painter, level: str, message: str) -> str:
    style = "yellow" if level == "warning" else "dim"
    return p.render(Text(f"{'!' if level == 'warning' else '·'} {message}", style=style))


def error_block(p: Painter, message: str) -> str:
    return p.render(Text(f"✗ {message}", style="bold red"))


def info_block(p: Painter, text: str) -> str:
    return p.render(Text(text, style="dim"))


def split_blocks(text: str) -> tuple[str, str]:
    """``(complete, rest)``: ``text`` cut after its last blank line that lies outside a
    code fence, so a paragraph is printed only once it is finished."""
    cut = -1
    search = 0
    while True:
        found = text.find("\n\n", search)
        if found < 0:
            break
        if text.count("```", 0, found) % 2 == 0:
            cut = found
        search = found + 1
    if cut < 0:
        return "", text
    return text[:cut], text[cut + 2 :].lstrip("\n")


def message_text(message: pt.Message) -> str:
    return "".join(p.text for p in message.parts if isinstance(p, pt.TextPart))


@dataclass
class Feed:
    """The printed transcript's state machine. ``event`` returns the blocks to print now;
    ``live`` is the streamed text not printed yet; ``activity`` what the spinner says."""

    painter: Painter
    live: str = ""
    activity: str = ""
    context_tokens: int = 0
    last_cost: float | None = 0.0
    _streamed: bool = False
    _blocks: int = 0
    _titles: dict[str, str] = field(default_factory=dict)
    reasoning: str = ""
    """The reasoning streamed in this model call, until its collapsed line is printed."""
    expandable: tuple[str, str] | None = None
    """``(title, full text)`` of the last collapsed block (a result, the reasoning, a
    subagent's work): what the expand key prints."""
    children: Children = field(default_factory=Children)
    """The running subagents (``task`` calls): live-region blocks until they end."""
    clock: Callable[[], float] = time.monotonic

    def event(self, event: AgentEvent) -> list[str]:
        out = self._thought(event)
        out += self._event(event)
        return [block for block in out if block]

    def _thought(self, event: AgentEvent) -> list[str]:
        """The collapsed thinking line, once the model moves on from reasoning."""
        if isinstance(event, ReasoningDelta) or not self.reasoning.strip():
            return []
        text, self.reasoning = self.reasoning.strip(), ""
        self.expandable = ("thinking", text)
        return [thinking_block(self.painter, text)]

    def _event(self, event: AgentEvent) -> list[str]:
        p = self.painter
        out: list[str] = []
        match event:
            case TurnStarted():
                self.activity = "waiting for the model"
            case ModelCallStarted():
                self.live = ""
                self._streamed = False
                self._blocks = 0
                self.activity = "waiting for the model"
            case TextDelta(text=text):
                self.activity = "writing"
                self._streamed = True
                self.live += text
                done, self.live = split_blocks(self.live)
                if done.strip():
                    out.append(self._paragraphs(done))
            case ReasoningDelta(text=text):
                self.activity = "thinking"
                self.reasoning += text
            case ToolCallStreaming(name=name):
                self.activity = f"preparing {name}"
            case AssistantMessage(message=message, usage=usage, total_cost_usd=total):
                rest = self.live if self._streamed else message_text(message)
                self.live = ""
                if rest.strip():
                    out.append(self._paragraphs(rest))
                self._blocks = 0
                self.context_tokens = (
                    usage.input + usage.cache_read + usage.cache_write + usage.output
                )
                self.last_cost = total
                self.activity = ""
            case ToolCallRequested(call=call, title=title):
                self._titles[call.id] = title
                self.activity = f"running {title}"
                if call.name == "task":
                    self.children.start(call, title)
            case PermissionDecided() | ToolProgress():
                pass
            case ToolFinished(result=result, brief=brief) if (
                result.call_id in self.children.running
            ):
                self._titles.pop(result.call_id, None)
                child = self.children.finish(result.call_id, self.clock())
                if child is not None:
                    self.expandable = (child.title, expanded_text(child, result_text(result)))
                    out.append(summary_block(p, child, brief=brief, is_error=result.is_error))
                self.activity = "waiting for the model"
            case ToolFinished(result=result, brief=brief, display=display):
                title = self._titles.pop(result.call_id, result.name)
                diff = display.diff if isinstance(display, FileChange) else ""
                self.expandable = (title, result_text(result))
                out.append(
                    tool_block(
                        p,
                        title,
                        shown_result(result_text(result), brief),
                        is_error=result.is_error,
                        brief=brief,
                        diff="" if result.is_error else diff,
                    )
                )
                self.activity = "waiting for the model"
            case UserMessageInjected(message=message):
                out.append(user_block(p, message_text(message), note="sent while working"))
            case Notice(retry=retry, message=text) if retry is not None:
                self.activity = text  # "retrying in 4 s (rate limited, attempt 2/3)"
            case Notice(level=level, message=text):
                out.append(notice_block(p, level, text))
            case CompactionStarted(reason=reason, tokens_before=before):
                self.activity = "compacting the conversation"
                why = "the window is nearly full" if reason != "manual" else "asked"
                out.append(info_block(p, f"compacting ~{before:,} tokens ({why})"))
            case CompactionEnded(ok=ok, tokens_before=before, tokens_after=after, message=msg):
                self.activity = ""
                if ok:
                    out.append(info_block(p, f"compacted: ~{before:,} → ~{after:,} tokens"))
                else:
                    out.append(notice_block(p, "warning", f"not compacted: {msg}"))
            case VerificationRan(command=command, passed=passed, exit_code=code, output=output):
                brief = "passed" if passed else ("not run" if code is None else f"exit {code}")
                out.append(
                    tool_block(
                        p,
                        f"check: {command}",
                        "" if passed else output,
                        is_error=not passed,
                        brief=brief,
                    )
                )
            case SubagentEvent(parent_call_id=call_id, agent=agent, event=inner):
                self.children.event(call_id, inner, self.clock(), agent=agent)
            case TurnEnded() as ended:
                if self.live.strip():
                    out.append(self._paragraphs(self.live))
                self._blocks = 0
                self.live = ""
                self.activity = ""
                self._titles.clear()
                self.children.clear()
                self.last_cost = ended.total_cost_usd
                line = turn_end_line(ended)
                if line:
                    out.append(
                        error_block(p, line)
                        if ended.reason == "error"
                        else notice_block(p, "warning", line)
                    )
            case _:
                assert_never(event)
        return out

    def _paragraphs(self, text: str) -> str:
        """Finished paragraphs of the message being streamed, a blank line after the
        ones printed before them."""
        block = assistant_block(self.painter, text)
        self._blocks += 1
        return block if self._blocks == 1 else "\n" + block


def turn_end_line(ended: TurnEnded) -> str:
    match ended.reason:
        case "end_turn":
            return ""
        case "aborted":
            return "interrupted"
        case "error":
            line = f"the model call failed: {ended.error or ended.error_kind or 'unknown error'}"
            if ended.error_kind == "stream_incomplete":
                line += ' (the partial answer is kept: send "continue" to pick up from it)'
            return line
        case "max_turns":
            return "stopped: the limit on model calls was reached"
        case "budget":
            return "stopped: the cost budget is spent"
        case "length":
            return "the answer hit the model's output limit"
        case "refusal":
            return "the model refused"


def live_lines(p: Painter, text: str, height: int) -> str:
    """The unfinished paragraph as markdown, cut to its last ``height`` lines."""
    if not text.strip() or height <= 0:
        return ""
    rendered = p.render(_markdown(text[-LIVE_CHARS:])).rstrip("\n")
    rows = rendered.split("\n")
    return "\n".join(rows[-height:])


def status_text(
    *,
    model: str,
    mode: str,
    context_tokens: int,
    context_window: int,
    cost_usd: float | None,
    session_id: str,
    extra: Sequence[str] = (),
    effort: str = "",
) -> str:
    """``model · effort E · mode · ctx N% · $cost · session`` (a plain string; no effort
    part when the model does not reason)."""
    parts = [model, f"effort {effort}", mode] if effort else [model, mode]
    if context_window > 0:
        parts.append(f"ctx {min(100, round(100 * context_tokens / context_window))}%")
    parts.append("$?" if cost_usd is None else f"${cost_usd:.4f}")
    parts.append(session_id)
    parts.extend(extra)
    return " · ".join(parts)


__all__ = [
    "EXPAND_KEY",
    "Feed",
    "Painter",
    "assistant_block",
    "banner_block",
    "collapse",
    "command_block",
    "diff_text",
    "error_block",
    "expanded_block",
    "info_block",
    "live_lines",
    "message_text",
    "notice_block",
    "shown_result",
    "split_blocks",
    "status_text",
    "thinking_block",
    "tool_block",
    "turn_end_line",
    "user_block",
]
