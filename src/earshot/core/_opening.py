"""Opening a session: everything ``AgentSession.open`` builds, in the order
``docs/sessions.md`` describes.

::

    open_session(options, ...) -> Opened
        settings, permission rules, hooks, modes  (parse errors: SessionSetupError)
        the transcript to resume or continue, the model ref, catalog, target, timeouts
        ---- nothing is opened or written before here ----
        the transcript (new, resumed or forked), the process ledger, effort, tool state
        (sandbox, todos), skills, command files, agents, memory, the system prompt,
        undo, the gate (scope replayed), the Agent and its subagents, the hooks

Resume rebuilds the history the model saw and the todo list; it never restores
permission grants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import msgspec

from earshot._base.dirs import config_dir
from earshot._base.errors import UserError
from earshot._base.json import JSONValue
from earshot.core.config.agents import load_agents
from earshot.core.config.memory import load_memory, memory_prompt
from earshot.core.config.options import SessionOptions
from earshot.core.config.prompt import GitSummary, system_prompt, take_git_summary
from earshot.core.config.settings import Settings, load_settings, project_root
from earshot.core.config.targets import default_model_ref, load_catalog, target_for
from earshot.core.effort import EffortPolicy, SessionEffort, recorded_level
from earshot.core.extend import hooks, mdcommands, skills, trust
from earshot.core.extend.hooks import HookRun
from earshot.core.extend.lifecycle import SessionHooks, notifying
from earshot.core.extend.mdcommands import MdCommand
from earshot.core.extend.skills import Skill
from earshot.core.extensions import ToolSource
from earshot.core.loop import verify
from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.approvals import ApproveFn
from earshot.core.loop.model import ProviderModel
from earshot.core.loop.subagent import Subagents
from earshot.core.permissions import PermissionGate, load_rules, parse_mode
from earshot.core.sandbox import load_sandbox_config, open_sandbox
from earshot.core.sandbox import parse_mode as parse_sandbox_mode
from earshot.core.session import Session, SessionStore
from earshot.core.session.entries import MessageEntry, ScopeEntry
from earshot.core.session.store import data_dir
from earshot.core.tools._reaper import Ledger, kill_leftovers
from earshot.core.tools.base import AnyTool, AskFn
from earshot.core.tools.ops import LocalProcessOps
from earshot.core.tools.registry import BUILTIN
from earshot.core.tools.state import ToolState
from earshot.core.undo import DEFAULT_MAX_FILE_BYTES, Undo
from earshot.core.undo.recorder import UndoRecorder
from earshot.providers import types as pt
from earshot.providers.catalog import ModelCatalog
from earshot.providers.effort import parse_effort
from earshot.providers.http import Timeouts, TimeoutSettingError, connect_early, warm_tls
from earshot.providers.retry import RetryPolicy
from earshot.providers.target import Target


class SessionSetupError(UserError):
    """The session cannot start as asked; the message names what to fix."""


class Opened(msgspec.Struct, frozen=True):
    """What ``AgentSession`` is made of."""

    agent: Agent
    transcript: Session
    gate: PermissionGate
    undo: Undo | None
    settings: Settings
    options: SessionOptions
    catalog: ModelCatalog
    lifecycle: SessionHooks
    resumed: bool
    warnings: list[str]
    memory_files: list[str]
    skills: Sequence[Skill]
    user_commands: Sequence[MdCommand]


def _process_ledger(session_id: str, *, kill_left: bool) -> Ledger:
    """The record of the session's live tool process groups; on resume, first kill what
    an earshot that was killed left running (see ``tools._reaper``)."""
    path = data_dir() / "processes" / f"{session_id}.json"
    if kill_left:
        kill_leftovers(path)
    return Ledger(path)


def entry_ids(session: Session, history: list[pt.Message]) -> list[str | None]:
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
    """The ``declare_scope`` calls of the branch and of its subagents (they share the
    contract), in the order they were made, each with whether it failed; a person's edit
    (``/scope``: a ``scope`` entry) counts as one that did not."""
    failed: set[str] = set()
    calls: list[tuple[str, JSONValue]] = []
    for entry in session.tree.with_subagents(session.leaf):
        if isinstance(entry, ScopeEntry):
            calls.append(("", entry.scope))
        if not isinstance(entry, MessageEntry):
            continue
        for part in entry.message.parts:
            if isinstance(part, pt.ToolCallPart) and part.name == "declare_scope":
                calls.append((part.id, part.input))
            elif isinstance(part, pt.ToolResultPart) and part.is_error:
                failed.add(part.call_id)
    return [(raw, call_id in failed) for call_id, raw in calls]


def open_session(
    options: SessionOptions,
    *,
    approve: ApproveFn | None,
    ask: AskFn | None,
    extra_tools: Sequence[AnyTool],
    settings: Settings | None,
    sources: Sequence[ToolSource],
) -> Opened:
    """The parts of a ready session over a new or resumed transcript. Raises a
    ``UserError`` (settings, catalog, unknown model, session) or ``ProviderError`` (a
    missing key); nothing is written before all of them have passed."""

    cwd = options.cwd.resolve()
    git = take_git_summary(cwd)  # git walks the tree while the rest of the session opens
    try:
        return _open(options, cwd, git, approve, ask, extra_tools, settings, sources)
    finally:
        git.cancel()  # when opening failed before the prompt read it


def _open(
    options: SessionOptions,
    cwd: Path,
    git: GitSummary,
    approve: ApproveFn | None,
    ask: AskFn | None,
    extra_tools: Sequence[AnyTool],
    settings: Settings | None,
    sources: Sequence[ToolSource],
) -> Opened:
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
            parse_mode(options.permission_mode) if options.permission_mode else rules.default_mode
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
    warm_tls(target.base_url)  # the CA bundle loads on another thread meanwhile
    if options.connect_early:
        connect_early(target.base_url)  # and the connection opens on another
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
        git=git.result(),
        memory=memory_prompt(memory),
        skills=skills.prompt_section(found_skills),
        append=options.append_system_prompt,
    )
    cap = settings.undo_max_file_bytes
    retries = settings.max_retries
    undo = Undo(cwd, transcript.id, max_file_bytes=DEFAULT_MAX_FILE_BYTES if cap is None else cap)
    gate = PermissionGate(rules, mode, cwd)
    gate.sandbox = confined
    if resumed:
        from earshot.core.tools.scope import replay  # the declare_scope tool: only to resume

        replay(gate.scope, _scope_calls(transcript))
    budget = options.max_budget_usd
    agent = Agent(
        AgentConfig(
            target=target,
            tools=tools,
            cwd=cwd,
            system=system,
            max_turns=options.max_turns,
            max_budget_usd=budget if budget is not None else settings.max_budget_usd,
            verify=settings.verify,
            verify_rounds=settings.verify_rounds,
            verify_suggestion=None if settings.verify else verify.suggest(cwd),
        ),
        AgentPorts(
            gate=gate,
            model=ProviderModel(
                retry=None if retries is None else RetryPolicy(max_retries=retries),
                timeouts=timeouts,
            ),
            transcript=transcript,
            undo=UndoRecorder(undo, transcript) if undo.available else None,
            approve=approve,
            ask=ask,
            procs=LocalProcessOps(ledger),
            effort=effort,
            sources=sources,
            scope=gate.scope,
        ),
        history=history,
        entry_ids=entry_ids(transcript, history) if resumed else [],
        state=state,
    )

    def resolve(ref: str) -> Target:
        return target_for(ref, settings=settings, catalog=catalog)

    if settings.subagent_depth > 0:
        children = Subagents(
            agent, agents, resolve, depth_limit=settings.subagent_depth, transcript=transcript
        )
        agent.add_tool(children.tool())
        agent.spawn = children.spawn
    if effort.choice.note and not effort.choice.defaulted:
        notices.append(effort.choice.note)
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
    lifecycle = SessionHooks(agent.hooks, agent.hook_info, cwd, record)
    if approve is not None and agent.hooks:
        agent.approve = notifying(approve, lifecycle)
    return Opened(
        agent=agent,
        transcript=transcript,
        gate=gate,
        undo=undo if undo.available else None,
        settings=settings,
        options=replace(options, cwd=cwd),
        catalog=catalog,
        lifecycle=lifecycle,
        resumed=resumed,
        warnings=[*rules.notices, *(transcript.warnings() if resumed else ()), *notices],
        memory_files=[str(f.path) for f in memory],
        skills=found_skills,
        user_commands=found_commands,
    )


__all__ = ["Opened", "SessionSetupError", "entry_ids", "open_session"]
