"""The interactive session: one prompt-toolkit application (not full-screen) over one agent.

::

    scrollback      completed messages, tool calls, errors: printed once (render.Feed),
                    above the live region, never redrawn
    live region     the unfinished paragraph, queued messages, the spinner and activity,
                    a permission prompt or a question, the input box, the status line
                    (``_layout.build_application``, handed in by ``main``; repainted at most
                    30 times a second)

Start-up order (``main``): the input box is drawn first, while the agent's modules load on
a worker thread; ``ready(session)`` then prints the banner and handles what was typed
meanwhile. The agent's turn runs as a task on the same event loop as the UI: typing goes on while it
works, and Enter then queues the message (``AgentSession.steer``; the agent injects it
between model calls). Esc aborts the turn (queued messages go back in the box); Ctrl-C
and Shift-Tab are ``_keys``'s; Ctrl-D on an empty box exits, and the way out prints the
session's cost and how to resume it. No terminal query is ever sent (no DA1, no DCS, and
no cursor position request).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.input import Input, create_input
from prompt_toolkit.layout import Window
from prompt_toolkit.output import Output

from earshot import __version__
from earshot.tui._attach import Attachments
from earshot.tui._grace import TypingGrace
from earshot.tui._history import project_history
from earshot.tui._keys import Keys, exit_summary, next_mode, restore_queued
from earshot.tui._output import quiet_output, write_above

if TYPE_CHECKING:
    # Imported where used: the input box is on screen before any of these is loaded.
    from earshot.core.agent_session import AgentSession
    from earshot.core.config.options import SessionOptions
    from earshot.core.loop.approvals import Approval, ApprovalRequest
    from earshot.core.loop.events import AgentEvent
    from earshot.core.loop.input import TurnInput
    from earshot.core.tools.base import Question
    from earshot.providers import types as pt
    from earshot.tui._pickers import Choice
    from earshot.tui.render import Feed, Painter


@dataclass
class PendingApproval:
    """``armed``: the prompt takes answers (``_grace``); ``drawn_at``: first on screen."""

    request: ApprovalRequest
    future: asyncio.Future[Approval]
    denying: bool = False
    drawn_at: float | None = None
    armed: bool = False


@dataclass
class PendingQuestion:
    question: Question
    future: asyncio.Future[str | None]


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def history_file(cwd: Path) -> Path:
    from earshot.core.session import cwd_key, data_dir

    return data_dir() / "history" / f"{cwd_key(cwd)}.txt"


class Tui:
    def __init__(
        self,
        options: SessionOptions,
        *,
        input: Input | None = None,
        output: Output | None = None,
        build: Callable[[Tui], Application[int]],
    ) -> None:
        """The UI, on screen before the session opens; ``ready(session)`` gives it one.
        ``build`` lays it out (``_layout.build_application``)."""
        from earshot.tui._attach import InputCompleter

        self.options = options
        self._session: AgentSession | None = None
        self.output = output or quiet_output()
        self.input = input or create_input()
        self.painter: Painter | None = None
        self.feed: Feed | None = None
        self.queued: list[str] = []
        self.held: list[str] = []
        self.turn: asyncio.Task[None] | None = None
        self.approval: PendingApproval | None = None
        self.question: PendingQuestion | None = None
        self.hint = ""
        self.busy = False
        self.started = 0.0
        self.attachments = Attachments()
        self.keys = Keys()
        history, self._history = project_history()
        self.buffer = Buffer(
            multiline=True,
            history=history,
            completer=InputCompleter(
                options.cwd, lambda: _command_list(self._session), self._argument_choices
            ),
            complete_while_typing=True,
            name="input",
        )
        self.side = Buffer(multiline=False, name="side")
        self.windows: dict[str, Window] = {}
        self.buffer.on_text_changed += self._typed
        self.grace = TypingGrace()
        self.app: Application[int] = build(self)
        self.app.after_render += self._rendered

    @property
    def session(self) -> AgentSession:
        if self._session is None:
            raise RuntimeError("the session is not open yet")
        return self._session

    @property
    def is_ready(self) -> bool:
        return self._session is not None

    def ready(self, session: AgentSession) -> None:
        """The session is open: print the banner, then send what was typed meanwhile."""
        from earshot.tui.render import Feed, notice_block

        self._session = session
        self.feed = Feed(self._painter(), cwd=session.cwd)
        try:
            path: Path | None = history_file(self.options.cwd)
        except OSError:
            path = None
        self._history.open(path)
        self.print_above(self.banner())
        for warning in session.warnings:
            self.print_above(notice_block(self._painter(), "warning", warning))
        if session.resumed:
            self.replay(session.history)
        held, self.held = self.held, []
        self.queued.clear()
        for raw in held:
            self.handle(raw)
        self.app.invalidate()

    # --- wiring for the agent ----------------------------------------------------------------

    @property
    def agent_running(self) -> bool:
        return self.busy or (self.turn is not None and not self.turn.done())

    async def approve(self, request: ApprovalRequest) -> Approval:
        """Show the prompt; it takes answers only once armed (``_grace``): until then the
        input box keeps the focus and what is typed stays in the draft."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        pending = PendingApproval(request, future)
        self.approval = pending
        self.app.invalidate()
        arming = asyncio.ensure_future(self._arm(pending))
        try:
            return await future
        finally:
            arming.cancel()
            self.approval = None
            self.side.reset()
            self.focus("input")

    async def ask(self, question: Question) -> str | None:
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.question = PendingQuestion(question, future)
        self.side.reset()
        self.focus("side")
        try:
            return await future
        finally:
            self.question = None
            self.side.reset()
            self.focus("input")

    def focus(self, name: str) -> None:
        window = self.windows.get(name)
        if window is not None and self.app.is_running:
            self.app.layout.focus(window)
        self.app.invalidate()

    # --- printing above the live region ---------------------------------------------------------

    def print_above(self, text: str) -> None:
        """Write ``text`` into the scrollback, above the live region, exactly once."""
        if not text:
            return
        app = self.app
        if not app.is_running:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        write_above(app, self.output, text)

    def say(self, text: str) -> None:
        from earshot.tui.render import info_block

        self.print_above(info_block(self._painter(), text))

    def warn(self, text: str) -> None:
        from earshot.tui.render import notice_block

        self.print_above(notice_block(self._painter(), "warning", text))

    def error(self, text: str) -> None:
        from earshot.tui.render import error_block

        self.print_above(error_block(self._painter(), text))

    def _painter(self) -> Painter:
        """The painter, at the terminal's current width."""
        from earshot.tui.render import Painter

        width = max(20, self.output.get_size().columns)
        if self.painter is None:
            self.painter = Painter(width, color=not no_color())
        self.painter.width = width
        return self.painter

    async def _arm(self, pending: PendingApproval) -> None:
        await self.grace.wait(lambda: pending.drawn_at)
        pending.armed = True
        self.focus("approval")

    def _rendered(self, _: object) -> None:
        pending = self.approval
        if pending is not None and pending.drawn_at is None:
            pending.drawn_at = time.monotonic()

    def _typed(self, _: Buffer) -> None:
        self.keys.disarm()
        self.grace.typed()
        if self.hint:
            self.hint = ""

    # --- input -----------------------------------------------------------------------------------

    def submit(self) -> None:
        """Enter in the input box: a slash command, or a message (sent or queued)."""
        raw = self.buffer.text
        if not raw.strip():
            return
        self.buffer.append_to_history()
        self.buffer.reset()
        if not self.is_ready:  # typed while starting: handled once the session is open
            self.held.append(raw)
            self.queued.append(raw)
            self.app.invalidate()
            return
        self.handle(raw)

    def handle(self, raw: str) -> None:
        from earshot.core.loop.input import InputError
        from earshot.tui import commands
        from earshot.tui._attach import build_input

        found = commands.find(raw.strip(), self._session)
        if found is not None:
            from earshot.tui.render import command_block

            handler, arg = found
            self.print_above(command_block(self._painter(), raw))
            self.app.create_background_task(self._command(handler, arg, raw.strip()))
            return
        if commands.looks_like_command(raw):
            self.error(f"unknown command {raw.split()[0]}; /help lists them")
            return
        try:
            shown, turn_input = build_input(raw, self.attachments, self.options.cwd)
        except InputError as exc:
            self.error(str(exc))
            return
        self.attachments.clear()
        self.send(shown, turn_input)

    async def _command(
        self, handler: Callable[[Tui, str], Awaitable[None]], arg: str, typed: str = ""
    ) -> None:
        try:
            await handler(self, arg)
        except Exception as exc:
            self.error(f"command failed: {type(exc).__name__}: {exc}")
        name = typed[1:].split(" ")[0] if typed.startswith("/") else ""
        if not arg and self.is_ready:
            self.open_picker(name)
        self.app.invalidate()

    def open_picker(self, name: str) -> bool:
        """``/model``, ``/resume`` or ``/rewind`` alone: ``_pickers.open_picker``."""
        from earshot.tui._pickers import open_picker

        return open_picker(self.buffer, name, self._argument_choices)

    def _argument_choices(self, name: str) -> list[Choice]:
        from earshot.tui._pickers import argument_choices

        return [] if self.agent_running else argument_choices(self._session, name)

    def paste(self, data: str) -> None:
        from earshot.tui._attach import placeholder_for

        self.buffer.insert_text(placeholder_for(data, self.attachments, self.options.cwd))

    def replay(self, history: list[pt.Message], limit: int = 20) -> None:
        """Print the last messages of a resumed session, tool calls and results too."""
        from earshot.tui._replay import replay_blocks

        self.print_above(replay_blocks(self._painter(), history, limit))

    # --- turns ---------------------------------------------------------------------------------

    def send(self, text: str, turn_input: TurnInput | None = None) -> None:
        """Start a turn, or queue the message when one is running."""
        from earshot.core.loop.input import InputError
        from earshot.tui.render import user_block

        if self.busy:
            self.error("still compacting; the message is back in the box to send after")
            self.buffer.text = text
            return
        if self.agent_running:
            try:
                self.session.steer(turn_input or text)
            except InputError as exc:
                self.error(str(exc))
                return
            self.queued.append(text)
            self.app.invalidate()
            return
        self.print_above(user_block(self._painter(), text))
        self.turn = asyncio.get_running_loop().create_task(self._drive(turn_input or text))

    async def _drive(self, turn_input: TurnInput) -> None:
        from earshot.core.loop.events import TurnEnded, UserMessageInjected
        from earshot.core.loop.input import InputError

        session = self.session
        feed = self.live_feed()
        self.started = time.monotonic()
        ticker = asyncio.get_running_loop().create_task(self._tick())
        answered = False
        try:
            async for event in session.prompt(turn_input):
                self._painter()
                blocks = feed.event(event)
                if isinstance(event, UserMessageInjected) and self.queued:
                    self.queued.pop(0)
                if isinstance(event, TurnEnded):
                    answered = event.reason == "end_turn"
                if blocks:
                    self.print_above("".join(blocks))
                self.app.invalidate()
        except InputError as exc:
            self.error(str(exc))
        except Exception as exc:  # the UI outlives a bug in one turn
            self.error(f"the turn failed: {type(exc).__name__}: {exc}")
        finally:
            ticker.cancel()
            feed.live = ""
            feed.activity = ""
            if answered and self.queued:
                self._send_queued()
            else:
                restore_queued(self)
            self.app.invalidate()

    def _send_queued(self) -> None:
        """A message queued just as the model finished (after the loop's last look at the
        queue) is not stranded: it starts the next turn, as if typed a moment later."""
        from earshot.providers.types import ImagePart, TextPart
        from earshot.tui.render import user_block

        texts, self.queued = self.queued, []
        parts = [part for message in self.session.take_queued() for part in message.parts]
        inputs = [part for part in parts if isinstance(part, TextPart | ImagePart)]
        if not inputs:
            return
        self.print_above(user_block(self._painter(), "\n".join(texts)))
        self.turn = asyncio.get_running_loop().create_task(self._drive(inputs))

    async def stream_events(self, events: AsyncIterator[AgentEvent]) -> None:
        """Print what an agent operation outside a turn (``compact``) reports."""
        self.started = time.monotonic()
        self.busy = True
        feed = self.live_feed()
        ticker = asyncio.get_running_loop().create_task(self._tick())
        try:
            async for event in events:
                self._painter()
                self.print_above("".join(feed.event(event)))
                self.app.invalidate()
        finally:
            ticker.cancel()
            self.busy = False
            feed.activity = ""
            self.app.invalidate()

    def live_feed(self) -> Feed:
        if self.feed is None:
            raise RuntimeError("the session is not open yet")
        return self.feed

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            self.app.invalidate()

    def interrupt(self) -> None:
        if self.agent_running and self._session is not None:
            self._session.abort()

    # --- status --------------------------------------------------------------------------------

    def status(self) -> str:
        session = self._session
        if session is None or self.feed is None:
            return f"starting… · {self.options.model or 'earshot'}"
        from earshot.tui.render import status_text

        return status_text(
            model=session.model,
            mode=session.mode,
            context_tokens=self.feed.context_tokens,
            context_window=session.window,
            cost_usd=session.cost().total_usd,
            session_id=session.short_id,
            effort=session.effort.label if session.effort is not None else "",
        )

    def cycle_mode(self) -> None:
        """Shift-Tab: the next mode of ``_keys.CYCLE`` (never yolo)."""
        if self.is_ready:
            self.session.set_mode(next_mode(self.session.mode))
            self.app.invalidate()

    def ctrl_c(self) -> None:
        self.keys.ctrl_c(self)

    def exit(self) -> None:
        self.interrupt()
        if not self.app.is_done:
            self.app.exit(result=0)

    # --- replacing the session (/clear, /resume, /fork) ---------------------------------------

    def adopt(self, session: AgentSession) -> None:
        """Continue in ``session`` (``/clear``, ``/resume``, ``/fork``); the old one is
        closed already."""
        from earshot.tui.render import Feed

        self._session = session
        self.options = session.options
        self.feed = Feed(self._painter(), cwd=session.cwd)
        self.queued.clear()

    # --- run ------------------------------------------------------------------------------------

    def banner(self) -> str:
        from earshot.tui.render import banner_block

        return banner_block(self._painter(), __version__, self.session)

    async def run(self, start: Callable[[], Coroutine[object, object, None]]) -> int:
        """Run until the user leaves; ``start`` runs once the UI is on screen (it opens the
        session and calls ``ready``)."""

        def pre_run() -> None:
            self.app.create_background_task(start())

        from earshot.tui._lean import sigint_to_keys

        try:
            with sigint_to_keys(self.app):
                result = await self.app.run_async(pre_run=pre_run, handle_sigint=False)
        finally:
            if self._session is not None:
                if self.turn is not None and not self.turn.done():
                    self._session.abort()
                    await asyncio.wait({self.turn}, timeout=5.0)
                await self._session.close()
        if self._session is not None and result == 0:
            sys.stdout.write(exit_summary(self._session))
            sys.stdout.flush()
        return result

    def leave(self, result: int) -> None:
        """End the UI before the session opened (onboarding, a failure): the early input
        box and status line are erased, so no ``starting…`` line stays in the scrollback."""
        self.app.erase_when_done = True
        if not self.app.is_done:
            self.app.exit(result=result)


def _command_list(session: AgentSession | None) -> dict[str, str]:
    from earshot.tui.commands import command_list

    return command_list(session)


__all__ = ["Attachments", "PendingApproval", "PendingQuestion", "Tui", "history_file", "no_color"]
