"""From agent events to text: what goes into the scrollback (once) and what the live region
shows. Pure functions and one small state machine, testable without a terminal.

::

    Painter, *_block    (``_blocks``, re-exported) rich renderables -> ANSI text; one
                        printed block each: user, assistant markdown, tool call + result
                        (collapsed; a diff coloured)
    thinking/notice/error/info/banner blocks
    split_blocks    streamed markdown cut at the last blank line outside a code fence
    Feed            events in, blocks to print out; keeps the live state (the streamed text
                    not yet printed, the current activity, running calls' latest reports)
    tail_text       the live view of running calls: each one's last lines of output
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
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

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
    progress_text,
    result_text,
)
from earshot.core.tools.display import FileChange
from earshot.providers import types as pt
from earshot.tui._blocks import (
    DIFF_LINES,
    EXPAND_KEY,
    RESULT_LINES,
    RESULT_TAIL_LINES,
    TAIL_LINES,
    Painter,
    assistant_block,
    collapse,
    collapse_ends,
    command_block,
    diff_text,
    markdown,
    short_path,
    shown_result,
    tail_text,
    tool_block,
    tool_head,
    user_block,
)
from earshot.tui._children import Children, expanded_text, summary_block

if TYPE_CHECKING:
    from earshot.core.agent_session import AgentSession

LIVE_CHARS = 6000


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
    tails: dict[str, str] = field(default_factory=dict)
    """Running calls' latest output (a report with a message and no count: a command's
    last lines), by call id, until each call's result is printed. A report with a count
    goes on the activity line instead: ``running TITLE · message (3/10)``."""
    running_since: float | None = None
    """When the running tool call started (its elapsed time is what the spinner shows)."""
    clock: Callable[[], float] = time.monotonic
    cwd: Path | None = None
    """The session's directory: file tools' paths are shown relative to it."""

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
            case PermissionDecided(outcome=outcome):
                if outcome == "allow" and self.running_since is None:
                    self.running_since = self.clock()
            case ToolProgress(call_id=call_id, message=message, progress=None, total=None):
                if call_id in self._titles and message.strip():  # output: the tail shows it
                    self.tails[call_id] = message
            case ToolProgress(call_id=call_id):
                running = self._titles.get(call_id)
                if running is not None:  # a count: the activity line shows it
                    shown = progress_text(event)
                    self.activity = f"running {running}" + (f" · {shown}" if shown else "")
            case ToolFinished(result=result, brief=brief) if (
                result.call_id in self.children.running
            ):
                self._titles.pop(result.call_id, None)
                self.running_since = None
                child = self.children.finish(result.call_id, self.clock())
                if child is not None:
                    self.expandable = (child.title, expanded_text(child, result_text(result)))
                    out.append(summary_block(p, child, brief=brief, is_error=result.is_error))
                self.activity = "waiting for the model"
            case ToolFinished(result=result, brief=brief, display=display):
                self.tails.pop(result.call_id, None)
                self.running_since = None
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
                        cwd=self.cwd,
                    )
                )
                self.activity = "waiting for the model"
            case UserMessageInjected(message=message):
                out.append(user_block(p, message_text(message), note="sent while working"))
            case HookRan(decision=decision):
                # a hook that only ran (exit 0, nothing said) stays out of the scrollback;
                # the transcript keeps every run
                if decision != "ok":
                    level = "warning" if decision in ("block", "stop", "error") else "info"
                    out.append(notice_block(p, level, event.line))
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
                self.tails.clear()
                self.running_since = None
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
    rendered = p.render(markdown(text[-LIVE_CHARS:])).rstrip("\n")
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
    "DIFF_LINES",
    "EXPAND_KEY",
    "RESULT_LINES",
    "RESULT_TAIL_LINES",
    "TAIL_LINES",
    "Feed",
    "Painter",
    "assistant_block",
    "banner_block",
    "collapse",
    "collapse_ends",
    "command_block",
    "diff_text",
    "error_block",
    "expanded_block",
    "info_block",
    "live_lines",
    "markdown",
    "message_text",
    "notice_block",
    "short_path",
    "shown_result",
    "split_blocks",
    "status_text",
    "tail_text",
    "thinking_block",
    "tool_block",
    "tool_head",
    "turn_end_line",
    "user_block",
]
