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

It opens the session the way ``docs/sessions.md`` describes: the model from the flag, the
transcript, ``EARSHOT_MODEL``, settings, else a default for a provider with a key; the
permission rules of the three scopes plus the flags; the built-in tools plus
``extra_tools``; the system prompt. Nothing is written before everything that can fail has
passed. Resume rebuilds the history the model saw and the todo list; it never restores
permission grants. The slash commands over this object are ``core.commands.COMMANDS``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from earshot._base.dirs import config_dir
from earshot._base.errors import UserError
from earshot._base.json import JSONValue
from earshot.core.config.agents import load_agents
from earshot.core.config.memory import load_memory, memory_prompt
from earshot.core.config.options import SessionOptions
from earshot.core.config.prompt import git_summary, system_prompt
from earshot.core.config.settings import Settings, SettingsError, load_settings, project_root
from earshot.core.config.targets import (
    NoModelError,
    default_model_ref,
    load_catalog,
    model_choices,
    target_for,
)
from earshot.core.effort import EffortPolicy, SessionEffort, recorded_level
from earshot.core.extend import hooks, mdcommands, skills, trust
from earshot.core.extend.hooks import HookRun
from earshot.core.extend.lifecycle import SessionHooks, notifying
from earshot.core.extend.mdcommands import MdCommand
from earshot.core.extend.overrides import TurnOverrides, applied
from earshot.core.extend.skills import Skill
from earshot.core.extensions import ExtraCommand, ToolSource
from earshot.core.loop import verify
from earshot.core.loop.agent import Agent
from earshot.core.loop.approvals import ApproveFn
from earshot.core.loop.events import AgentEvent, AssistantMessage
from earshot.core.loop.input import TurnInput
from earshot.core.loop.subagent import Subagents
from earshot.core.permissions import Mode, PermissionGate, load_rules, parse_mode
from earshot.core.sandbox import load_sandbox_config, open_sandbox
from earshot.core.sandbox import parse_mode as parse_sandbox_mode
from earshot.core.session import Session, SessionInfo, SessionStore
from earshot.core.session.entries import MessageEntry
from earshot.core.session.store import data_dir
from earshot.core.tools import task as task_tool
from earshot.core.tools._reaper import Ledger, kill_leftovers
from earshot.core.tools.base import AnyTool, AskFn
from earshot.core.tools.ops import LocalProcessOps
from earshot.core.tools.registry import BUILTIN
from earshot.core.tools.scope import replay
from earshot.core.tools.state import Todo, ToolState
from earshot.core.undo import DEFAULT_MAX_FILE_BYTES, Undo, UndoResult
from earshot.core.undo.recorder import UndoRecorder
from earshot.providers import types as pt
from earshot.providers.catalog import CatalogError, ModelCatalog
from earshot.providers.effort import EffortChoice, parse_effort
from earshot.providers.errors import ProviderError
from earshot.providers.http import Timeouts, TimeoutSettingError
from earshot.providers.retry import RetryPolicy
from earshot.providers.target import Target


class SessionSetupError(UserError):
    """The session cannot start as asked; the message names what to fix."""


class CommandError(UserError):
    """A session operation refused (an unknown mode or model, a turn still running)."""


@dataclass(frozen=True)
class SessionCost:
    """``total_usd``: the whole session (earlier runs from the transcript plus this run),
    None when a model used in this run has no prices; ``usage``: this run's tokens."""

    total_usd: float | None
    run_usd: float | None
    earlier_usd: float
    usage: pt.Usage


def _process_ledger(session_id: str, *, kill_left: bool) -> Ledger:
    """The record of the session's live tool process groups; on resume, first kill what
    an earshot that was killed left running (see ``tools._reaper``)."""
    path = data_dir() / "processes" / f"{session_id}.json"
    if kill_left:
        kill_leftovers(path)
    return Ledger(path)


def _entry_ids(session: Session, history: list[pt.Message]) -> list[str | None]:
    """The transcript entry of each message of a resumed history (None for preamble and
    "interrupted" stand-ins), matched by identity: ``history()`` returns the stored
    message objects themselves."""
    ids = {
        id(entry.message): entry.id
        for entry in session.tree.path(session.leaf)
        if isinstance(entry, MessageEntry)
    }
    return [ids.get(id(message)) for message in history]


def _scope_calls(session: Session) -> list[tuple[JSONValue, bool]]:
    """The ``declare_scope`` calls of the branch, in order, each with whether it failed."""
    failed: set[str] = set()
    calls: list[tuple[str, JSONValue]] = []
    for entry in session.tree.path(session.leaf):
        if not isinstance(entry, MessageEntry):
            continue
        for part in entry.message.parts:
            if isinstance(part, pt.ToolCallPart) and part.name == "declare_scope":
                calls.append((part.id, part.input))
            elif isinstance(part, pt.ToolResultPart) and part.is_error:
                failed.add(part.call_id)
    return [(raw, call_id in failed) for call_id, raw in calls]


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
        *,
        agent: Agent,
        transcript: Session,
        gate: PermissionGate,
        undo: Undo | None,
        settings: Settings,
        options: SessionOptions,
        approve: ApproveFn | None,
        ask: AskFn | None,
        extra_tools: Sequence[AnyTool],
        sources: Sequence[ToolSource] = (),
        resumed: bool,
        warnings: list[str],
        memory_files: list[str],
        skills: Sequence[Skill] = (),
        user_commands: Sequence[MdCommand] = (),
    ) -> None:
        self.agent = agent
        self.transcript = transcript
        self.gate = gate
        self.undo_store = undo
        self.settings = settings
        self.options = options
        self.resumed = resumed
        self.warnings = warnings
        self.memory_files = memory_files
        self.skills: tuple[Skill, ...] = tuple(skills)
        self.user_commands: dict[str, MdCommand] = {c.name: c for c in user_commands}
        self.context_tokens = 0
        self._next_turn = TurnOverrides()
        self.lifecycle = SessionHooks(None, {}, options.cwd, None)
        """The hooks around turns (``core/extend/lifecycle.py``)."""
        self._ended = False
        """Tokens in the context after the last model call (prompt + reply), as reported."""
        self._approve = approve
        self._ask = ask
        self._extra_tools = tuple(extra_tools)
        self.sources = tuple(sources)
        self._earlier_usd = transcript.cost_usd()
        self._catalog: ModelCatalog | None = None
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
        """A ready session over a new or resumed transcript. Raises a ``UserError``
        (settings, catalog, unknown model, session) or ``ProviderError`` (a missing key);
        nothing is written before all of them have passed."""
        cwd = options.cwd.resolve()
        settings = settings if settings is not None else load_settings(cwd)
        rules = load_rules(settings, allow=options.allow, ask=options.ask, deny=options.deny)
        session_hooks, hook_notices = hooks.load(
            settings.files,
            trusted_project=trust.quietly_trusted(project_root(cwd)),
            root=project_root(cwd),
            pass_env=settings.pass_env,
        )
        try:
            mode = (
                parse_mode(options.permission_mode)
                if options.permission_mode
                else rules.default_mode
            )
            sandbox_mode = parse_sandbox_mode(options.sandbox) if options.sandbox else None
            chosen = parse_effort(options.effort, where="--effort") if options.effort else None
        except ValueError as exc:
            raise SessionSetupError(str(exc)) from exc
        sandbox_config = load_sandbox_config(settings.files, project_root(cwd), mode=sandbox_mode)
        store = SessionStore(cwd)
        source: str | None = options.resume
        if source is None and options.continue_latest:
            source = store.latest_id()
            if source is None:
                raise SessionSetupError(f"no earlier session in {cwd} to continue")
        earlier = store.load(source) if source is not None else None
        ref = options.model or ((earlier.tree.model() or earlier.header.model) if earlier else None)
        ref = ref or default_model_ref(settings)
        catalog = load_catalog(settings)
        target = target_for(ref, settings=settings, catalog=catalog)
        try:
            timeouts = Timeouts.resolve(settings.idle_timeout_ms)
        except TimeoutSettingError as exc:
            raise SessionSetupError(str(exc)) from exc
        # Everything that can fail has passed: only now is anything opened or written. A
        # fork reads the earlier session without its lock, so another process may still be
        # writing.
        if earlier is not None and options.fork:
            transcript = store.fork(earlier)
        elif source is not None:
            transcript = store.open(source)
        else:
            transcript = store.create(model=ref)
        resumed = source is not None
        ledger = _process_ledger(transcript.id, kill_left=resumed)
        recorded = transcript.tree.effort() if resumed else None
        policy = EffortPolicy(
            chosen=chosen or recorded_level(recorded),
            per_model=settings.model_efforts,
            setting=settings.reasoning_effort,
        )
        effort = SessionEffort(policy, target, recorded=recorded)
        history: list[pt.Message] = transcript.history() if resumed else []
        state = ToolState(pass_env=frozenset(settings.pass_env))
        state.sandbox = confined = open_sandbox(
            cwd,
            sandbox_config,
            additional=rules.additional_directories,
            protected=rules.protected_directories,
        )
        notices = [*sandbox_config.ignored, *([confined.notice] if confined.notice else [])]
        if resumed:
            state.todos = list(transcript.todos())
        found_skills, skill_problems = skills.discover(cwd)
        found_commands, command_problems = mdcommands.discover(cwd)
        notices += [*hook_notices, *skill_problems, *command_problems]
        tools = [*BUILTIN, *extra_tools]
        agents, agent_warnings = load_agents(cwd)
        notices.extend(agent_warnings)
        if found_skills:
            tools.append(skills.skill_tool(found_skills))
        memory = load_memory(cwd, config_dir=config_dir())
        system = system_prompt(
            cwd=cwd,
            tools=[*(tool.name for tool in tools), task_tool.NAME],
            git=git_summary(cwd),
            memory=memory_prompt(memory),
            skills=skills.prompt_section(found_skills),
            append=options.append_system_prompt,
        )
        cap = settings.undo_max_file_bytes
        retries = settings.max_retries
        undo = Undo(
            cwd, transcript.id, max_file_bytes=DEFAULT_MAX_FILE_BYTES if cap is None else cap
        )
        gate = PermissionGate(rules, mode, cwd)
        gate.sandbox = confined
        if resumed:
            replay(gate.scope, _scope_calls(transcript))
        budget = options.max_budget_usd
        agent = Agent(
            target=target,
            tools=tools,
            cwd=cwd,
            gate=gate,
            system=system,
            transcript=transcript,
            undo=UndoRecorder(undo, transcript) if undo.available else None,
            approve=approve,
            ask=ask,
            max_turns=options.max_turns,
            max_budget_usd=budget if budget is not None else settings.max_budget_usd,
            timeouts=timeouts,
            procs=LocalProcessOps(ledger),
            effort=effort,
            history=history,
            entry_ids=_entry_ids(transcript, history) if resumed else [],
            state=state,
            verify=settings.verify,
            verify_rounds=settings.verify_rounds,
            verify_suggestion=None if settings.verify else verify.suggest(cwd),
            retry=None if retries is None else RetryPolicy(max_retries=retries),
            sources=sources,
            scope=gate.scope,
        )

        def resolve(ref: str) -> Target:
            return target_for(ref, settings=settings, catalog=catalog)

        children = Subagents(agent, agents, resolve)
        agent.tools[task_tool.NAME] = children.tool()
        agent.spawn = children.spawn
        if effort.choice.note and not effort.choice.defaulted:
            notices.append(effort.choice.note)
        session = cls(
            agent=agent,
            transcript=transcript,
            gate=gate,
            undo=undo if undo.available else None,
            settings=settings,
            options=replace(options, cwd=cwd),
            approve=approve,
            ask=ask,
            extra_tools=extra_tools,
            sources=sources,
            resumed=resumed,
            warnings=[*rules.notices, *(transcript.warnings() if resumed else ()), *notices],
            memory_files=[str(f.path) for f in memory],
            skills=found_skills,
            user_commands=found_commands,
        )
        session._catalog = catalog
        agent.hooks = session_hooks if session_hooks else None
        agent.hook_info = {
            "session_id": transcript.id,
            "transcript_path": str(store.path_for(transcript.id)),
            "cwd": str(cwd),
        }

        async def record(run: HookRun) -> None:
            await transcript.append_hook(
                run.event,
                run.command,
                run.exit_code,
                run.duration_ms,
                matcher=run.matcher,
                source=run.source,
                decision=run.decision,
                output=run.output,
            )

        agent.record_hook = record
        session.lifecycle = SessionHooks(agent.hooks, agent.hook_info, cwd, record)
        if approve is not None and agent.hooks:
            agent.approve = notifying(approve, session.lifecycle)
        return session

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
        source = "resume" if self.resumed else "startup"
        async with applied(overrides, self.agent, self.switch_model):
            async for event in self.lifecycle.turn(turn_input, self.agent.run_turn, source=source):
                if isinstance(event, AssistantMessage):
                    self.context_tokens = event.usage.prompt_total + event.usage.output
                yield event

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
        self.agent.restore(history, _entry_ids(self.transcript, history))
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
