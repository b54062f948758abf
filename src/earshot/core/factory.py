"""``create_session``: everything a front-end needs to start (or resume) working, in one call.

It resolves the model (flag, ``EARSHOT_MODEL``, settings, else a default for a provider with
a key) and its reasoning effort (``core/effort.py``), loads the permission rules of the
three scopes plus the flags, opens the session transcript (new, ``--continue``, ``--resume
ID``, optionally forked), builds the built-in tools plus ``extra_tools`` (MCP arrives this
way; core never imports it), and writes the system prompt. Resume rebuilds the history the
model saw, the todo list and the effort last chosen; it never restores permission grants.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from earshot.core import verify
from earshot.core.agent import Agent
from earshot.core.approvals import ApproveFn
from earshot.core.effort import EffortPolicy, SessionEffort
from earshot.core.memory import load_memory, memory_prompt
from earshot.core.permissions import Mode, PermissionGate, load_rules, parse_mode
from earshot.core.prompt import git_summary, system_prompt
from earshot.core.sandbox import load_sandbox_config, open_sandbox
from earshot.core.sandbox import parse_mode as parse_sandbox_mode
from earshot.core.session import Session, SessionStore
from earshot.core.session.entries import MessageEntry
from earshot.core.session.store import data_dir
from earshot.core.settings import Settings, load_settings, project_root
from earshot.core.targets import default_model_ref, load_catalog, target_for
from earshot.core.tools._reaper import Ledger, kill_leftovers
from earshot.core.tools.base import AnyTool, AskFn
from earshot.core.tools.ops import LocalProcessOps
from earshot.core.tools.state import ToolState
from earshot.core.undo import DEFAULT_MAX_FILE_BYTES, Undo
from earshot.providers import types as pt
from earshot.providers.auth import config_dir
from earshot.providers.effort import EffortLevel, parse_effort
from earshot.providers.http import Timeouts, TimeoutSettingError
from earshot.providers.retry import RetryPolicy

BUILTIN_TOOLS = (
    "read",
    "write",
    "edit",
    "multi_edit",
    "ls",
    "glob",
    "grep",
    "bash",
    "bash_output",
    "kill_shell",
    "web_fetch",
    "todo_write",
    "ask_user",
)


class UndoRecorder:
    """Takes a snapshot before a mutating batch and records its ref in the transcript, so
    the session that took it is the one that can restore it."""

    def __init__(self, undo: Undo, session: Session) -> None:
        self.undo = undo
        self.session = session

    async def snapshot(self, label: str = "") -> str | None:
        ref = await self.undo.snapshot(label)
        if ref is not None:
            await self.session.append_snapshot_ref(ref)
        return ref


class SessionSetupError(Exception):
    """The session cannot start as asked; the message names what to fix."""


def builtin_tools(names: Sequence[str] = BUILTIN_TOOLS) -> list[AnyTool]:
    tools: list[AnyTool] = []
    for name in names:
        module = importlib.import_module(f"earshot.core.tools.{name}")
        tool: AnyTool = module.TOOL
        tools.append(tool)
    return tools


@dataclass
class SessionSetup:
    agent: Agent
    session: Session
    settings: Settings
    mode: Mode
    model_ref: str
    resumed: bool
    warnings: list[str]
    memory_files: list[str]


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


def _process_ledger(session_id: str, *, kill_left: bool) -> Ledger:
    """The record of the session's live tool process groups; on resume, first kill what
    an earshot that was killed left running (see ``tools._reaper``)."""
    path = data_dir() / "processes" / f"{session_id}.json"
    if kill_left:
        kill_leftovers(path)
    return Ledger(path)


def _recorded_level(recorded: str | None) -> EffortLevel | None:
    """A resumed session's last effort (None when none was recorded, or it is not a level
    this build knows)."""
    if recorded is None:
        return None
    try:
        return parse_effort(recorded)
    except ValueError:
        return None


def create_session(
    *,
    cwd: Path,
    model: str | None = None,
    permission_mode: str | None = None,
    allow: Sequence[str] = (),
    ask_rules: Sequence[str] = (),
    deny: Sequence[str] = (),
    resume: str | None = None,
    continue_latest: bool = False,
    fork: bool = False,
    extra_tools: Sequence[AnyTool] = (),
    approve: ApproveFn | None = None,
    ask: AskFn | None = None,
    max_turns: int | None = None,
    max_budget_usd: float | None = None,
    append_system_prompt: str = "",
    settings: Settings | None = None,
    effort: EffortLevel | None = None,
    sandbox: str | None = None,
) -> SessionSetup:
    """Build a ready ``Agent`` over a new or resumed session. Raises ``SettingsError``,
    ``CatalogError``/``UnknownModelError``, ``ProviderError`` (a missing key) or
    ``SessionSetupError``; nothing is written before all of them have passed."""
    cwd = cwd.resolve()
    settings = settings if settings is not None else load_settings(cwd)
    rules = load_rules(settings, allow=allow, ask=ask_rules, deny=deny)
    try:
        mode = parse_mode(permission_mode) if permission_mode else rules.default_mode
        sandbox_mode = parse_sandbox_mode(sandbox) if sandbox else None
    except ValueError as exc:
        raise SessionSetupError(str(exc)) from exc
    sandbox_config = load_sandbox_config(settings.files, project_root(cwd), mode=sandbox_mode)
    store = SessionStore(cwd)
    source: str | None = resume
    if source is None and continue_latest:
        source = store.latest_id()
        if source is None:
            raise SessionSetupError(f"no earlier session in {cwd} to continue")
    earlier = store.load(source) if source is not None else None
    ref = model or ((earlier.tree.model() or earlier.header.model) if earlier else None)
    ref = ref or default_model_ref(settings)
    catalog = load_catalog(settings)
    target = target_for(ref, settings=settings, catalog=catalog)
    try:
        timeouts = Timeouts.resolve(settings.idle_timeout_ms)
    except TimeoutSettingError as exc:
        raise SessionSetupError(str(exc)) from exc
    # Everything that can fail has passed: only now is anything opened or written. A fork
    # reads the earlier session without its lock, so another process may still be writing.
    if earlier is not None and fork:
        session = store.fork(earlier)
    elif source is not None:
        session = store.open(source)
    else:
        session = store.create(model=ref)
    resumed = source is not None
    ledger = _process_ledger(session.id, kill_left=resumed)
    recorded = session.tree.effort() if resumed else None
    policy = EffortPolicy(
        chosen=effort or _recorded_level(recorded),
        per_model=settings.model_efforts,
        setting=settings.reasoning_effort,
    )
    session_effort = SessionEffort(policy, target, recorded=recorded)
    history: list[pt.Message] = session.history() if resumed else []
    entry_ids = _entry_ids(session, history) if resumed else []
    state = ToolState(pass_env=frozenset(settings.pass_env))
    state.sandbox = confined = open_sandbox(
        cwd,
        sandbox_config,
        additional=rules.additional_directories,
        protected=rules.protected_directories,
    )
    gate = PermissionGate(rules, mode, cwd)
    gate.sandbox = confined
    warnings = [*sandbox_config.ignored, *([confined.notice] if confined.notice else [])]
    if resumed:
        state.todos = list(session.todos())
    tools = [*builtin_tools(), *extra_tools]
    names = [tool.name for tool in tools]
    memory = load_memory(cwd, config_dir=config_dir())
    system = system_prompt(
        cwd=cwd,
        tools=names,
        git=git_summary(cwd),
        memory=memory_prompt(memory),
        append=append_system_prompt,
    )
    cap = settings.undo_max_file_bytes
    retries = settings.max_retries
    undo = Undo(cwd, session.id, max_file_bytes=DEFAULT_MAX_FILE_BYTES if cap is None else cap)
    agent = Agent(
        target=target,
        tools=tools,
        cwd=cwd,
        gate=gate,
        system=system,
        transcript=session,
        undo=UndoRecorder(undo, session) if undo.available else None,
        approve=approve,
        ask=ask,
        max_turns=max_turns,
        max_budget_usd=max_budget_usd if max_budget_usd is not None else settings.max_budget_usd,
        timeouts=timeouts,
        procs=LocalProcessOps(ledger),
        effort=session_effort,
        history=history,
        entry_ids=entry_ids,
        state=state,
        verify=settings.verify,
        verify_rounds=settings.verify_rounds,
        verify_suggestion=None if settings.verify else verify.suggest(cwd),
        retry=None if retries is None else RetryPolicy(max_retries=retries),
    )
    if session_effort.choice.note and not session_effort.choice.defaulted:
        warnings.append(session_effort.choice.note)
    return SessionSetup(
        agent=agent,
        session=session,
        settings=settings,
        mode=mode,
        model_ref=ref,
        resumed=resumed,
        warnings=[*rules.notices, *(session.warnings() if resumed else ()), *warnings],
        memory_files=[str(f.path) for f in memory],
    )


__all__ = [
    "BUILTIN_TOOLS",
    "SessionSetup",
    "SessionSetupError",
    "UndoRecorder",
    "builtin_tools",
    "create_session",
]
