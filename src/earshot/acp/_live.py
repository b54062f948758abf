"""One open ACP session: an ``AgentSession`` and the editor it reports to.

::

    prompt(parts)      AgentSession.prompt; each event's updates sent as it comes (the
                       prompt's response leaves only after the last of them); a
                       subagent's events update its task call (``_children``)
    command(typed)     a slash command of the session's table (the ``everywhere`` ones);
                       its reply as agent text, plus current_mode_update or
                       config_option_update when it changed the mode or the model
    set_mode(id)       session/set_mode and /mode: the gate's mode + current_mode_update
    switch_model(ref)  set_config_option "model" and /model: + config_option_update
    set_effort(level)  set_config_option "effort" and /effort: + config_option_update
    close()            abort, wait for the running prompt (bounded), close the session

``InputError`` (an empty prompt, images for a model without vision) arrives before
anything is appended or sent and is an invalid-params error; a model call that failed
after retries is an internal error whose message is the provider's, with the transcript
left valid for the next prompt.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import anyio
from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    ConfigOptionUpdate,
    CurrentModeUpdate,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
)

from earshot.acp._children import Children
from earshot.acp._interact import Prompter
from earshot.acp._options import effort_option, model_option
from earshot.acp._updates import STOP_REASONS, AcpStopReason, Turn, Update, said
from earshot.core import commands
from earshot.core.agent_session import AgentSession, CommandError
from earshot.core.loop.events import (
    AgentEvent,
    PermissionDecided,
    SubagentEvent,
    ToolFinished,
    TurnEnded,
)
from earshot.core.loop.input import InputError
from earshot.providers.types import ImagePart, TextPart

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SHUTDOWN_GRACE_S = 10.0


def _follow_questions(prompter: Prompter, event: AgentEvent) -> None:
    """Keep ``prompter.asking``: the ask_user calls running now, each as the tool call the
    editor knows (a subagent's question belongs to the main agent's ``task`` call)."""
    shown: str | None = None
    while isinstance(event, SubagentEvent):
        shown = shown or event.parent_call_id
        event = event.event
    if isinstance(event, PermissionDecided):
        if event.tool == "ask_user" and event.outcome == "allow":
            prompter.asking.append(shown or event.call_id)
    elif isinstance(event, ToolFinished) and event.result.name == "ask_user":
        key = shown or event.result.call_id
        if key in prompter.asking:
            prompter.asking.remove(key)


def fail(code: int, message: str) -> NoReturn:
    raise RequestError(code, message, None)


@dataclass
class Live:
    """One open session, and whether a prompt is running in it."""

    session: AgentSession
    prompter: Prompter
    client: Client | None
    idle: anyio.Event = field(default_factory=anyio.Event)
    running: bool = False

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def cwd(self) -> Path:
        return self.session.cwd

    async def send(self, update: Update) -> None:
        """One ``session/update``; a client that has gone is not an error for the turn."""
        if self.client is None:
            return
        with contextlib.suppress(ConnectionError):
            await self.client.session_update(session_id=self.id, update=update)

    def options(self) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        """The model, and beside it the reasoning effort."""
        options: list[SessionConfigOptionSelect | SessionConfigOptionBoolean]
        options = [model_option(self.session.model, self.session.model_choices())]
        if self.session.effort is not None:
            options.append(effort_option(self.session.effort))
        return options

    # --- turns -----------------------------------------------------------------------------

    async def prompt(self, parts: Sequence[TextPart | ImagePart]) -> AcpStopReason:
        session = self.session
        turn = Turn(self.cwd, session.window, lambda: session.cost().total_usd)
        children = Children()
        prompter = self.prompter
        prompter.turn = turn
        ended: TurnEnded | None = None
        try:
            async for event in session.prompt(list(parts)):
                _follow_questions(prompter, event)
                if isinstance(event, TurnEnded):
                    ended = event
                elif isinstance(event, ToolFinished):
                    children.finished(event.result.call_id)
                updates = children.on(event) if isinstance(event, SubagentEvent) else turn.on(event)
                for update in updates:
                    await self.send(update)
        except InputError as exc:
            raise RequestError(INVALID_PARAMS, str(exc), None) from exc
        finally:
            prompter.turn = None
            prompter.asking.clear()
        if ended is None:  # pragma: no cover - prompt always ends with TurnEnded
            raise RequestError(INTERNAL_ERROR, "the turn ended without a result", None)
        reason = STOP_REASONS[ended.reason]
        if reason is None:
            raise RequestError(
                INTERNAL_ERROR,
                f"the model call failed: {ended.error or 'unknown error'}",
                {"errorKind": ended.error_kind},
            )
        return reason

    async def command(self, typed: str) -> bool | str:
        """Answer ``typed`` when it is a command offered to editors (True); False sends it
        to the model as it is; a string is the prompt a command file or skill sends."""
        mode, model, effort = self.session.mode, self.session.model, self.session.effort
        reply = await commands.run(self.session, typed, everywhere=True)
        if reply is None:
            return False
        if reply.send is not None and not reply.error:
            return reply.send
        if self.session.mode != mode:
            await self._mode_changed()
        if self.session.model != model or self.session.effort != effort:
            await self._options_changed()
        await self.send(said(reply.text))
        return True

    # --- settings ----------------------------------------------------------------------------

    async def set_mode(self, mode_id: str) -> None:
        try:
            self.session.set_mode(mode_id)
        except CommandError as exc:
            fail(INVALID_PARAMS, str(exc))
        await self._mode_changed()

    async def switch_model(self, ref: str) -> None:
        try:
            await self.session.switch_model(ref)
        except CommandError as exc:
            fail(INVALID_PARAMS, str(exc))
        await self._options_changed()

    async def set_effort(self, level: str) -> None:
        try:
            await self.session.set_effort(level)
        except CommandError as exc:
            fail(INVALID_PARAMS, str(exc))
        await self._options_changed()

    async def _mode_changed(self) -> None:
        mode = self.session.mode
        await self.send(
            CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
        )

    async def _options_changed(self) -> None:
        update = ConfigOptionUpdate(
            session_update="config_option_update", config_options=self.options()
        )
        await self.send(update)

    async def close(self) -> None:
        self.session.abort()
        with anyio.move_on_after(SHUTDOWN_GRACE_S):
            await self.idle.wait()
        with anyio.CancelScope(shield=True):
            await self.session.close()
            for source in self.session.sources:
                await source.aclose()


__all__ = ["INTERNAL_ERROR", "INVALID_PARAMS", "SHUTDOWN_GRACE_S", "Live", "fail"]
