"""What Ctrl-C, Esc and Shift-Tab do, and what earshot prints on the way out.

Ctrl-C, in order: a running turn is interrupted (and nothing is armed); a draft in the box
is cleared (it stays in the history: Up brings it back) and nothing is armed; on an empty
box the first press arms exit and the second, within two seconds, exits. Typing disarms.
So a draft is never lost to Ctrl-C, and Ctrl-D exits only from an empty box.

Esc that interrupts a turn puts the messages queued during it back in the input box,
oldest first, above any draft: nothing typed is sent after the interrupt, or out of order.

Ctrl-O prints the last collapsed block (a tool result, the reasoning) in full.

Shift-Tab cycles ``ask → accept-edits → auto → plan``; it never reaches ``yolo`` (runs
everything without asking): that takes ``/mode yolo`` or ``--permission-mode yolo``.
The status line is yellow in ``auto`` and red in ``yolo``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from prompt_toolkit.application import Application
    from prompt_toolkit.buffer import Buffer

    from earshot.core.agent_session import AgentSession
    from earshot.tui.render import Feed, Painter


class Tui(Protocol):
    """What the keys need of the UI (``app.Tui``), so this module does not import it."""

    hint: str
    queued: list[str]
    buffer: Buffer
    app: Application[int]
    feed: Feed | None
    _session: AgentSession | None

    @property
    def agent_running(self) -> bool: ...

    def interrupt(self) -> None: ...

    def exit(self) -> None: ...

    def say(self, text: str) -> None: ...

    def print_above(self, text: str) -> None: ...

    def _painter(self) -> Painter: ...


DOUBLE_PRESS = 2.0
CYCLE = ("ask", "accept-edits", "auto", "plan")
"""Shift-Tab's modes: every mode but yolo."""
MODE_STYLE = {"auto": "class:status.auto", "yolo": "class:status.yolo"}


class Keys:
    """The state behind the keys: when exit was armed."""

    def __init__(self) -> None:
        self.armed_at = 0.0

    def disarm(self) -> None:
        self.armed_at = 0.0

    def ctrl_c(self, tui: Tui) -> None:
        if tui.agent_running:
            self.disarm()
            tui.interrupt()
            tui.hint = "interrupted · Ctrl-C twice on an empty box exits"
        elif tui.buffer.text.strip():
            self.disarm()
            tui.buffer.append_to_history()
            tui.buffer.reset()
            tui.hint = "draft cleared (Up brings it back) · Ctrl-C twice on an empty box exits"
        elif time.monotonic() - self.armed_at < DOUBLE_PRESS:
            tui.exit()
            return
        else:
            tui.buffer.reset()
            self.armed_at = time.monotonic()
            tui.hint = "press Ctrl-C again to exit"
        tui.app.invalidate()


def next_mode(mode: str) -> str:
    """The mode Shift-Tab goes to from ``mode`` (from yolo, back to ask)."""
    if mode not in CYCLE:
        return CYCLE[0]
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)]


def restore_queued(tui: Tui) -> None:
    """After a turn: messages still queued (an interrupt, a failure) go back in the box."""
    session = tui._session
    if session is None or not tui.queued:
        return
    session.take_queued()
    texts, tui.queued = list(tui.queued), []
    draft = tui.buffer.text
    text = "\n".join([*texts, *([draft] if draft.strip() else [])])
    tui.buffer.text = text
    tui.buffer.cursor_position = len(text)
    many = "messages" if len(texts) > 1 else "message"
    tui.say(f"the queued {many} went back in the input box, unsent: edit, then Enter")


def expand_last(tui: Tui) -> None:
    """Ctrl-O: print the last collapsed block (a tool result, the reasoning) in full."""
    from earshot.tui.render import expanded_block

    feed = tui.feed
    if feed is None or feed.expandable is None:
        tui.say("nothing to expand yet: Ctrl-O shows the last tool result or reasoning whole")
        return
    title, text = feed.expandable
    tui.print_above(expanded_block(tui._painter(), title, text or "(empty)"))


def exit_summary(session: AgentSession) -> str:
    """The line printed on the way out: cost, tokens, the session and how to resume it."""
    cost = session.cost()
    usage = cost.usage
    spent = "$?" if cost.total_usd is None else f"${cost.total_usd:.4f}"
    tokens = f"{usage.input + usage.cache_read + usage.cache_write:,} in, {usage.output:,} out"
    short = session.short_id
    return f"session {session.id} · {spent} · {tokens} tokens · resume: earshot -r {short}\n"


__all__ = [
    "CYCLE",
    "DOUBLE_PRESS",
    "MODE_STYLE",
    "Keys",
    "exit_summary",
    "expand_last",
    "next_mode",
    "restore_queued",
]
