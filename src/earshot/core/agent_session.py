"""``AgentSession``: the one object every front-end (headless, TUI, ACP) holds.

It owns the agent loop, the transcript, the permission gate, undo, the model catalog and
the cost, and it is all a front-end talks to::

    AgentSession.open(SessionOptions, approve=, ask=, extra_tools=, sources=)   new,
                                    --continue, --resume ID, optionally forked; UserError
                                    if it cannot (``sources``: tools that arrive later,
                                    such as MCP servers'; see core/extensions.py)
    ready() -> notices              wait for the sources (the first model call does too)
    prompt(input) -> events         one turn (TurnEnded last); steer(input) mid-turn
    abort()                         the stream, running tools, a pending approval
    mode / set_mode(name)           the gate's permission mode
    model / switch_model(ref)       through the catalog; recorded in the transcript
    compact(focus) -> events        between turns
    undo() / redo()                 the files of the last tool batch
    rewind(entry) / reopen(...)     move within this transcript / to another one
    cost()                          the session's USD (earlier runs too) and this run's tokens
    close()                         background shells killed, the transcript lock released

``open`` builds it with ``_opening.open_session`` (docs/sessions.md: the model from the
flag, the transcript, ``EARSHOT_MODEL``, settings, else a default for a provider with a
key; the permission rules of the three scopes plus the flags; the built-in tools plus
``extra_tools``; the system prompt); nothing is written before everything that can fail
has passed. The slash commands over this object are ``core.commands.COMMANDS``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path

import msgspec

from earshot._base.errors import UserError
from earshot.core._opening import Opened, SessionSetupError, entry_ids, open_session
from earshot.core.config.options import SessionOptions
from earshot.core.config.settings import Settings, SettingsError
from earshot.core.config.targets import NoModelError, load_catalog, model_choices, target_for
from earshot.core.extend.mdcommands import MdCommand
from earshot.core.extend.overrides import TurnOverrides, applied
from earshot.core.extend.skills import Skill
from earshot.core.extensions import ExtraCommand, ToolSource
from earshot.core.loop.approvals import ApproveFn
from earshot.core.loop.events import AgentEvent, AssistantMessage
from earshot.core.loop.input import TurnInput, with_notes
from earshot.core.permissions import Mode, parse_mode
from earshot.core.session import SessionInfo, SessionStore
from earshot.core.session.entries import MessageEntry
from earshot.core.tools.base import AnyTool, AskFn
from earshot.core.tools.state import Todo
from earshot.core.undo import UndoResult
from earshot.providers import types as pt
from earshot.providers.catalog import CatalogError, ModelCatalog
from earshot.providers.effort import EffortChoice, parse_effort
from earshot.providers.errors import ProviderError


class CommandError(UserError):
    """A session operation refused (an unknown mode or model, a turn still running)."""


class SessionCost(msgspec.Struct, frozen=True):
    """``total_usd``: the whole session (earlier runs from the transcript plus this run),
    None when a model used in this run has no prices; ``usage``: this run's tokens."""

    total_usd: float | None
    run_usd: float | None
    earlier_usd: float
    usage: pt.Usage


def error_text(exc: Exception) -> str:
    """What a person reads for a failure (a provider's message never carries a key)."""
    return exc.message if isinstance(exc, ProviderError) else str(exc)


def list_sessions(cwd: Path | None) -> list[SessionInfo]:
    """The sessions of ``cwd`` (or of every directory, for None), newest first."""
    if cwd is not None:
        return SessionStore(cwd).list()
    return SessionStore(Path.cwd()).list_all()


def session_exists(cwd: Path, session_id: str) -> bool:
    """Whether ``session_id`` (a whole id) is a session of ``cwd``."""
    return session_id in SessionStore(cwd).ids()


class AgentSession:
    """One open session. Build it with ``AgentSession.open``."""

    def __init__(
        self,
        opened: Opened,
        *,
        approve: ApproveFn | None,
        ask: AskFn | None,
        extra_tools: Sequence[AnyTool],
        sources: Sequence[ToolSource] = (),
    ) -> None:
        self.agent = opened.agent
        self.transcript = transcript = opened.transcript
        self.gate = opened.gate
        self.undo_store = opened.undo
        self.settings = opened.settings
        self.options = opened.options
        self.resumed = opened.resumed
        self.warnings = opened.warnings
        self.memory_files = opened.memory_files
        self.skills: tuple[Skill, ...] = tuple(opened.skills)
        self.user_commands: dict[str, MdCommand] = {c.name: c for c in opened.user_commands}
        self.context_tokens = 0
        """Tokens in the context after the last model call (prompt + reply), as reported."""
        self._next_turn = TurnOverrides()
        self._notes: list[str] = []
        self.lifecycle = opened.lifecycle
        """The hooks around turns (``core/extend/lifecycle.py``)."""
        self._ended = False
        self._approve = approve
        self._ask = ask
        self._extra_tools = tuple(extra_tools)
        self.sources = tuple(sources)
        self._earlier_usd = transcript.cost_usd()
        self._catalog: ModelCatalog | None = opened.catalog
        self._compacting = False
        self._short_id: str | None = None

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        options: SessionOptions,
        *,
        approve: ApproveFn | None = None,
        ask: AskFn | None = None,
        extra_tools: Sequence[AnyTool] = (),
        settings: Settings | None = None,
        sources: Sequence[ToolSource] = (),
    ) -> AgentSession:
        """A ready session over a new or resumed transcript (``_opening.open_session``).
        Raises a ``UserError`` (settings, catalog, unknown model, session) or
        ``ProviderError`` (a missing key); nothing is written before all of them have
        passed."""
        opened = open_session(
            options,
            approve=approve,
            ask=ask,
            extra_tools=extra_tools,
            settings=settings,
            sources=sources,
        )
        return cls(opened, approve=approve, ask=ask, extra_tools=extra_tools, sources=sources)

    # --- what it is --------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.transcript.id

    @property
    def cwd(self) -> Path:
        return self.options.cwd

    @property
    def model(self) -> str:
        """The model the next call uses (``provider/model``)."""
        return self.agent.target.ref

    @property
    def window(self) -> int:
        """The model's context window in tokens (0 when the catalog does not know it)."""
        info = self.agent.target.info
        return info.context if info is not None and info.context > 0 else 0

    @property
    def mode(self) -> Mode:
        return self.gate.mode

    @property
    def tool_names(self) -> list[str]:
        return self.agent.tool_names()

    @property
    def history(self) -> list[pt.Message]:
        return self.agent.history

    @property
    def todos(self) -> list[Todo]:
        return self.agent.state.todos

    @property
    def running(self) -> bool:
        """A turn or a compaction is in progress."""
        return self.agent.running or self._compacting

    @property
    def catalog(self) -> ModelCatalog:
        if self._catalog is None:
            self._catalog = load_catalog(self.settings)
        return self._catalog

    async def ready(self) -> list[str]:
        """Wait for the tool sources (bounded by their timeouts); their new notices.
        The first model call waits the same way; this lets a front-end list the tools
        (headless ``init``) or show the notices before it."""
        return await self.agent.sources_ready()

    def extra_commands(self) -> list[ExtraCommand]:
        """The slash commands the sources add (``/mcp``, MCP server prompts)."""
        return [command for source in self.sources for command in source.commands()]

    def sessions(self) -> list[SessionInfo]:
        """This directory's sessions, newest first."""
        return list_sessions(self.cwd)

    def short_ids(self) -> dict[str, str]:
        """Each of this directory's session ids by its shortest unique prefix (the one
        rule for an id shown to a person: ``session.store.short_ids``)."""
        return SessionStore(self.cwd).short_ids()

    @property
    def short_id(self) -> str:
        """This session's id as shown: unique among this directory's sessions when it
        was first asked for."""
        if self._short_id is None:
            self._short_id = self.short_ids().get(self.id, self.id)
        return self._short_id

    # --- turns -------------------------------------------------------------------------------

    async def prompt(self, turn_input: TurnInput) -> AsyncIterator[AgentEvent]:
        """Run one turn. ``InputError`` (raised before any event) means nothing was
        appended or sent. ``TurnEnded`` is always the last event. A command file's or
        skill's ``model``, ``effort`` and ``allowed-tools`` (``for_next_turn``) hold for
        this turn only."""
        overrides, self._next_turn = self._next_turn, TurnOverrides()
        notes, self._notes = self._notes, []
        turn_input = with_notes(turn_input, notes)
        source = "resume" if self.resumed else "startup"
        async with applied(overrides, self.agent, self.switch_model):
            async for event in self.lifecycle.turn(turn_input, self.agent.run_turn, source=source):
                if isinstance(event, AssistantMessage):
                    self.context_tokens = event.usage.prompt_total + event.usage.output
                yield event

    def tell_model(self, note: str) -> None:
        """Send ``note`` to the model with the next message (``/scope``'s edit)."""
        self._notes.append(note)

    def for_next_turn(self, overrides: TurnOverrides) -> None:
        """The next turn (only) runs with a command file's or skill's ``overrides``: its
        model, its effort, and only the tools and uses its ``allowed-tools`` covers (they
        narrow, never grant). An unknown model is a ``CommandError`` now, before anything
        is sent."""
        if overrides.model:
            try:
                target_for(overrides.model, settings=self.settings, catalog=self.catalog)
            except (CatalogError, ProviderError, SettingsError, NoModelError) as exc:
                raise CommandError(error_text(exc)) from exc
        self._next_turn = overrides

    def steer(self, turn_input: TurnInput) -> None:
        """Queue a message typed mid-turn; it is sent between two model calls."""
        self.agent.queue_user_message(turn_input)

    @property
    def queued(self) -> int:
        return self.agent.queued

    def take_queued(self) -> list[pt.Message]:
        """Withdraw the queued messages unsent."""
        return self.agent.take_queued()

    def abort(self) -> None:
        """Stop the current turn: the model stream, running tools, pending approvals."""
        self.agent.abort()

    def compact(self, focus: str = "") -> AsyncIterator[AgentEvent]:
        """Summarise the older turns now (between turns only: ``CommandError`` at once
        while a turn runs)."""
        self._idle("/compact")
        return self._compact(focus)

    async def _compact(self, focus: str) -> AsyncIterator[AgentEvent]:
        self._compacting = True
        try:
            _, notices = await self.lifecycle.fire(
                "PreCompact", {"trigger": "manual", "custom_instructions": focus}
            )
            for notice in notices:
                yield notice
            async for event in self.agent.compact(focus):
                yield event
        finally:
            self._compacting = False

    def _idle(self, what: str) -> None:
        if self.running:
            raise CommandError(f"wait for the turn to finish (or interrupt it) before {what}")

    # --- settings of the session ---------------------------------------------------------------

    def set_mode(self, name: str) -> Mode:
        """Switch the permission mode; ``CommandError`` names the modes for an unknown one."""
        try:
            mode = parse_mode(name.strip())
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.gate.mode = mode
        return mode

    async def switch_model(self, ref: str) -> str:
        """Use ``ref`` from the next model call on; returns the resolved ref."""
        try:
            target = target_for(ref.strip(), settings=self.settings, catalog=self.catalog)
        except (CatalogError, ProviderError, SettingsError, NoModelError) as exc:
            raise CommandError(error_text(exc)) from exc
        await self.agent.switch_model(target)
        return target.ref

    def model_choices(self) -> list[str]:
        """Models to offer (``config.targets.model_choices``)."""
        return model_choices(self.model, self.settings, self.catalog)

    @property
    def effort(self) -> EffortChoice | None:
        """The reasoning effort the next model call sends (None: the loop has none)."""
        return self.agent.effort.choice if self.agent.effort is not None else None

    async def set_effort(self, value: str) -> EffortChoice:
        """Use effort ``value`` from the next call on; a session that replaces this one
        (``reopen``) keeps it."""
        if self.agent.effort is None:
            raise CommandError("this session has no reasoning effort to set")
        try:
            level = parse_effort(value.strip(), where="/effort")
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        choice = await self.agent.effort.set(level, self.agent.target, self.agent.transcript)
        self.options = replace(self.options, effort=level)
        return choice

    def cost(self) -> SessionCost:
        run = self.agent.total_cost_usd
        return SessionCost(
            total_usd=None if run is None else self._earlier_usd + run,
            run_usd=run,
            earlier_usd=self._earlier_usd,
            usage=self.agent.total_usage,
        )

    # --- files and branches ----------------------------------------------------------------------

    async def undo(self) -> UndoResult:
        """Restore the files from before the last tool batch (``CommandError`` when undo is
        off or a turn runs)."""
        return await self._undo_step("undo")

    async def redo(self) -> UndoResult:
        return await self._undo_step("redo")

    async def _undo_step(self, kind: str) -> UndoResult:
        self._idle(f"/{kind}")
        if self.undo_store is None:
            raise CommandError("undo is off in this session (git was not found on PATH)")
        if kind == "redo":
            return await self.undo_store.redo()
        return await self.undo_store.undo()

    def user_turns(self) -> list[MessageEntry]:
        """The user messages of the current branch (with text), oldest first."""
        return [
            entry
            for entry in self.transcript.tree.path()
            if isinstance(entry, MessageEntry)
            and entry.message.role == "user"
            and pt.text_of(entry.message).strip()
        ]

    async def rewind(self, entry: MessageEntry) -> None:
        """Continue from before ``entry`` (one of ``user_turns()``): the transcript gets a
        branch head, the history the model sees and the todo list follow it."""
        self._idle("/rewind")
        await self.transcript.rewind_to(entry.parent_id)
        history = self.transcript.history()
        self.agent.restore(history, entry_ids(self.transcript, history))
        self.agent.state.todos = list(self.transcript.todos())

    async def reopen(
        self, *, resume: str | None = None, fork: bool = False
    ) -> tuple[AgentSession, str | None]:
        """Close this session and open another: a new one (``resume`` None), a stored one,
        or a fork of one. The mode carries over, and the model too for a new session.
        An id that names no session, or more than one, changes nothing: this session
        comes back, still open, with the error. When opening fails after that, a new
        session with the same model is opened instead and the error comes back with it."""
        self._idle("that")
        if resume is not None and resume != self.id:
            try:
                SessionStore(self.cwd).resolve(resume)
            except UserError as exc:
                return self, error_text(exc)
        mode, model = self.mode, self.model
        await self.close()
        options = replace(
            self.options,
            resume=resume,
            continue_latest=False,
            fork=fork,
            model=model if resume is None else None,
            permission_mode=mode,
        )
        try:
            return self._open_like(options), None
        except (UserError, ProviderError) as exc:
            fresh = replace(self.options, resume=None, continue_latest=False, fork=False)
            fresh = replace(fresh, model=model, permission_mode=mode)
            return self._open_like(fresh), error_text(exc)

    def _open_like(self, options: SessionOptions) -> AgentSession:
        return AgentSession.open(
            options,
            approve=self._approve,
            ask=self._ask,
            extra_tools=self._extra_tools,
            sources=self.sources,
        )

    async def fork(self) -> tuple[AgentSession, str | None]:
        """Continue in a new session branched from this one (this one is closed)."""
        return await self.reopen(resume=self.id, fork=True)

    # --- the end -------------------------------------------------------------------------

    async def close(self) -> None:
        """Kill background shells and release the transcript (idempotent)."""
        if not self._ended:
            self._ended = True
            await self.lifecycle.fire("SessionEnd", {"reason": "other"})
        await self.agent.close()
        self.transcript.close()


__all__ = [
    "AgentSession",
    "CommandError",
    "SessionCost",
    "SessionOptions",
    "SessionSetupError",
    "error_text",
    "list_sessions",
    "session_exists",
]
