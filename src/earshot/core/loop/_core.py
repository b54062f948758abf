"""What an agent is and keeps between model calls; the turn itself is ``agent.py``.

::

    AgentConfig   what the agent is: model target, tools, directory, system prompt, the
                  limits of a turn (--max-turns, budget, output tokens), context policy,
                  verification checks. Frozen: passed once.
    AgentPorts    what it talks to: the gate, the model client, the transcript, undo,
                  approval and question callbacks, file and process operations, reasoning
                  effort, tool sources, scope contract, subagent spawn. Frozen: passed once.
    AgentCore     the state: history (with each message's transcript entry), tools,
                  usage and cost, the queue of steered messages, the abort; the controls
                  a front-end may call while a turn runs; requests, measuring, compaction.

``Agent`` (agent.py) is ``AgentCore`` plus ``run_turn`` and its steps.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

import anyio
import msgspec

from earshot._base.aio import race
from earshot._base.json import JSONObject
from earshot.core.effort import SessionEffort
from earshot.core.extend.allowed import AllowedTools
from earshot.core.extend.hooks import HookRun, Hooks
from earshot.core.extend.lifecycle import SessionHooks
from earshot.core.extensions import ToolSource
from earshot.core.loop.approvals import ApproveFn, sandbox_escalation
from earshot.core.loop.context import (
    ContextPolicy,
    Kept,
    TokenGauge,
    estimate,
    plan_compaction,
    preamble,
    shape,
    summarise,
)
from earshot.core.loop.events import (
    AgentEvent,
    CompactionEnded,
    CompactionReason,
    CompactionStarted,
)
from earshot.core.loop.input import TurnInput, user_message
from earshot.core.loop.live import LiveEvents
from earshot.core.loop.model import ProviderModel
from earshot.core.loop.ports import Gate, ModelClient, Recorder, Snapshotter
from earshot.core.tools.base import AnyTool, AskFn, SpawnFn, ToolContext, ToolResult
from earshot.core.tools.contract import ScopeContract
from earshot.core.tools.display import TodoList
from earshot.core.tools.ops import FileOps, LocalFileOps, LocalProcessOps, ProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers import types as pt
from earshot.providers.pricing import cost_usd
from earshot.providers.target import Target


class AgentConfig(msgspec.Struct, frozen=True):
    """What an agent is. ``reasoning_effort`` is used only without ``AgentPorts.effort``
    (whose choice overrides it); ``verify_suggestion`` is shown once when files changed
    and no checks are configured."""

    target: Target
    tools: Sequence[AnyTool]
    cwd: Path
    system: str = ""
    max_turns: int | None = None
    max_budget_usd: float | None = None
    reasoning_effort: pt.ReasoningEffort | None = None
    max_output_tokens: int | None = None
    policy: ContextPolicy = msgspec.field(default_factory=ContextPolicy)
    verify: Sequence[str] = ()
    verify_rounds: int = 3
    verify_suggestion: str | None = None


class AgentPorts(msgspec.Struct, frozen=True):
    """What an agent talks to. Without ``model`` it streams from the providers
    (``ProviderModel()``: no retry policy or timeouts of the session's)."""

    gate: Gate
    model: ModelClient | None = None
    transcript: Recorder | None = None
    undo: Snapshotter | None = None
    approve: ApproveFn | None = None
    ask: AskFn | None = None
    files: FileOps | None = None
    procs: ProcessOps | None = None
    effort: SessionEffort | None = None
    sources: Sequence[ToolSource] = ()
    scope: ScopeContract | None = None
    spawn: SpawnFn | None = None


class AgentCore:
    """The agent's state and everything but the turn. ``history``, ``entry_ids`` and
    ``state`` start a resumed session where it was."""

    def __init__(
        self,
        config: AgentConfig,
        ports: AgentPorts,
        *,
        history: Sequence[pt.Message] = (),
        entry_ids: Sequence[str | None] | None = None,
        state: ToolState | None = None,
    ) -> None:
        self.config = config
        self.target = config.target
        self.tools: dict[str, AnyTool] = {tool.name: tool for tool in config.tools}
        self.hooks: Hooks | None = None
        """The session's hooks (set by ``AgentSession.open``)."""
        self.hook_info: JSONObject = {"cwd": str(config.cwd)}
        """What every hook's stdin carries about the session (session id, transcript)."""
        self.record_hook: Callable[[HookRun], Awaitable[None]] | None = None
        self._fixed_tools = dict(self.tools)
        self.sources = tuple(ports.sources)
        self.allowed: AllowedTools | None = None
        """When set (a command file's ``allowed-tools``, one turn), only the tools it names
        are offered, and only the uses it covers get past it to the gate; it never adds."""
        self.cwd = config.cwd
        self.gate = ports.gate
        self.system = config.system
        self.transcript = ports.transcript
        self.undo = ports.undo
        self.approve = ports.approve
        self.ask = ports.ask
        self.max_turns = config.max_turns
        self.max_budget_usd = config.max_budget_usd
        self.reasoning_effort = config.reasoning_effort
        self.effort = ports.effort  # when set, its choice overrides ``reasoning_effort``
        self.max_output_tokens = config.max_output_tokens
        self.model: ModelClient = ports.model or ProviderModel()
        self.files = ports.files or LocalFileOps()
        self.procs = ports.procs or LocalProcessOps()
        self.history: list[pt.Message] = list(history)
        # The transcript entry of each history message (None: not recorded, or a preamble),
        # so a compaction cut can name the first message it keeps.
        self._entry_ids: list[str | None] = (
            list(entry_ids) if entry_ids is not None else [None] * len(self.history)
        )
        self.state = state or ToolState()
        self.policy = config.policy
        self.gauge = TokenGauge()
        self._kept = Kept()
        """The shaped and measured form of each message, between requests."""
        self.verify = list(config.verify)
        self.verify_rounds = config.verify_rounds
        self.verify_suggestion = config.verify_suggestion
        self.scope = ports.scope
        self.spawn = ports.spawn
        self.live = LiveEvents()
        """Where this agent's subagents put their events during a tool batch."""
        self.total_usage = pt.Usage()
        self.total_cost_usd: float | None = 0.0
        self._turn_usage = pt.Usage()
        self._turn_cost: float | None = 0.0
        self._queue: deque[pt.Message] = deque()
        self._abort = anyio.Event()
        self.running = False

    # --- controls (safe to call while a turn runs) ---------------------------------------------

    def queue_user_message(self, turn_input: TurnInput) -> None:
        """Queue a message typed mid-turn; it is appended between two model calls, never
        inside a tool batch (or starts the next model call if the model had finished)."""
        self._queue.append(user_message(turn_input, None))

    @property
    def queued(self) -> int:
        return len(self._queue)

    def take_queued(self) -> list[pt.Message]:
        """Withdraw the queued messages (a front-end putting them back in the input box
        after an interrupted turn); they will not be sent."""
        taken = list(self._queue)
        self._queue.clear()
        return taken

    def abort(self) -> None:
        """Stop the current turn: the model stream, running tools, pending approvals."""
        self._abort.set()

    @property
    def abort_event(self) -> anyio.Event:
        """The current turn's abort (a subagent's turn follows it)."""
        return self._abort

    def add_child_usage(self, usage: pt.Usage, cost: float | None) -> None:
        """Count a subagent's usage and cost in this agent's turn and session totals."""
        self._turn_usage = self._turn_usage + usage
        self.total_usage = self.total_usage + usage
        if self._turn_cost is not None:
            self._turn_cost = None if cost is None else self._turn_cost + cost
        if self.total_cost_usd is not None:
            self.total_cost_usd = None if cost is None else self.total_cost_usd + cost

    async def switch_model(self, target: Target) -> None:
        """Use ``target`` from the next model call on. History keeps every provider's
        metadata; adapters send only what their provider can read."""
        self.target = target
        if self.transcript is not None:
            await self.transcript.append_model_switch(target.ref)
        if self.effort is not None:
            self.effort.retarget(target)

    def restore(self, history: Sequence[pt.Message], entry_ids: Sequence[str | None]) -> None:
        """Continue from another branch of the transcript (a rewind): its history, and the
        transcript entry of each message."""
        if self.running:
            raise RuntimeError("cannot change the history while a turn runs")
        self.history = list(history)
        self._entry_ids = list(entry_ids)

    def add_tool(self, tool: AnyTool) -> None:
        """Add a fixed tool after construction (the ``task`` tool, which needs the agent);
        it stays when the sources' tools are refreshed."""
        self._fixed_tools[tool.name] = tool
        self.tools[tool.name] = tool

    def tool_names(self) -> list[str]:
        return list(self.tools)

    async def sources_ready(self) -> list[str]:
        """Wait for the tool sources (each bounded by its own timeout, and by an abort);
        their new notices. The tools they offer now are in ``tools`` afterwards."""
        notices: list[str] = []
        for source in self.sources:
            said, _aborted = await race(source.ready, self._abort)
            notices += said or ()
        self.refresh_tools()
        return notices

    def refresh_tools(self) -> None:
        """The fixed tools, then what each source offers now (a fixed tool keeps its name)."""
        if not self.sources:
            return
        tools = dict(self._fixed_tools)
        window = self.window()
        for source in self.sources:
            for tool in source.tools(window):
                tools.setdefault(tool.name, tool)
        self.tools = tools

    async def close(self) -> None:
        """End the session's side effects: kill background shells (idempotent)."""
        from earshot.core.tools._shell import close_all

        await close_all(self.state)

    # --- history, requests, accounting, compaction ---------------------------------------------

    async def _append(
        self,
        message: pt.Message,
        *,
        usage: pt.Usage | None = None,
        cost_usd: float | None = None,
        incomplete: bool = False,
    ) -> None:
        entry: str | None = None
        if self.effort is not None:
            await self.effort.record(self.transcript)
        if self.transcript is not None:
            entry = await self.transcript.append_message(
                message,
                usage=usage,
                cost_usd=cost_usd,
                model=self.target.ref if message.role == "assistant" else None,
                incomplete=incomplete,
            )
        self.history.append(message)
        self._entry_ids.append(entry)

    def offered(self) -> dict[str, AnyTool]:
        """The tools this turn may use: all of them, or those ``allowed`` names."""
        return self.allowed.offer(self.tools) if self.allowed is not None else self.tools

    def _specs(self) -> list[pt.ToolSpec]:
        return [tool.spec() for tool in self.offered().values()]

    def _request(self) -> pt.ModelRequest:
        return pt.ModelRequest(
            model=self.target.model,
            system=self.system,
            messages=shape(self.history, self.policy, self._kept),
            tools=self._specs(),
            reasoning_effort=self.effort.choice.request if self.effort else self.reasoning_effort,
            max_output_tokens=self.max_output_tokens,
            abort=self._abort,
        )

    def window(self) -> int:
        """The model's context window (a settings override is applied by the catalog)."""
        info = self.target.info
        return info.context if info is not None and info.context > 0 else self.policy.default_window

    def context_tokens(self) -> int:
        """Estimated tokens of the next request, corrected by the provider's last report."""
        return self._measure(self._request())

    def _measure(self, request: pt.ModelRequest) -> int:
        """Estimated tokens of ``request``, corrected by the provider's last report."""
        return self.gauge.measure(
            estimate(request.messages, system=self.system, tools=request.tools, kept=self._kept)
        )

    def _account(self, usage: pt.Usage) -> float | None:
        """Add a model call's usage to the turn and session totals; its cost."""
        call_cost = cost_usd(usage, self.target.info) if self.target.info else None
        self._turn_usage = self._turn_usage + usage
        self.total_usage = self.total_usage + usage
        if self._turn_cost is not None:
            self._turn_cost = None if call_cost is None else self._turn_cost + call_cost
        if self.total_cost_usd is not None:
            self.total_cost_usd = None if call_cost is None else self.total_cost_usd + call_cost
        return call_cost

    async def compact(self, focus: str = "") -> AsyncIterator[AgentEvent]:
        """Compact now (``/compact [focus]``): between turns only."""
        if self.running:
            raise RuntimeError("cannot compact while a turn runs")
        self._abort = anyio.Event()
        async for event in self._compact("manual", focus):
            yield event

    def _overhead(self) -> int:
        """Tokens every request carries besides the messages: system prompt and tools."""
        return self.gauge.measure(estimate([], system=self.system, tools=self._specs()))

    async def _compact(
        self,
        reason: CompactionReason,
        focus: str = "",
        *,
        keep_batches: int | None = None,
        window: int | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Summarise and cut (``context.plan_compaction``); ``keep_batches`` and a smaller
        ``window`` make the cut deeper after the provider refused a request as too long.
        An automatic one runs the ``PreCompact`` hooks first (``trigger: "auto"``; the
        session runs them for ``/compact``)."""
        if reason != "manual" and self.hooks:
            hooks = SessionHooks(self.hooks, self.hook_info, self.cwd, self.record_hook)
            payload: JSONObject = {"trigger": "auto", "custom_instructions": ""}
            for event in (await hooks.fire("PreCompact", payload))[1]:
                yield event
        before = self.context_tokens()
        yield CompactionStarted(reason=reason, tokens_before=before)
        window = window or self.window()
        plan = plan_compaction(
            self.history,
            self.policy,
            window,
            keep_batches=keep_batches,
            overhead=self._overhead(),
        )
        if plan is None:
            yield CompactionEnded(
                reason=reason,
                tokens_before=before,
                tokens_after=before,
                ok=False,
                message="nothing left to summarise: only the current prompt is here",
            )
            return
        summary, usage, failure = await summarise(
            plan,
            target=self.target,
            tools=self._specs(),
            policy=self.policy,
            window=window,
            focus=focus,
            abort=self._abort,
            model=self.model,
        )
        if usage is not None:
            self._account(usage)
        if not summary:
            yield CompactionEnded(
                reason=reason, tokens_before=before, tokens_after=before, ok=False, message=failure
            )
            return
        todos = [t.content for t in self.state.todos if t.status != "completed"]
        pre = preamble(summary, plan, todos)
        first_kept = (
            self._entry_ids[plan.kept_from] if plan.kept_from < len(self._entry_ids) else None
        )
        if self.transcript is not None:
            await self.transcript.append_compaction(
                pre, first_kept=first_kept, tokens_before=before
            )
        self.history = [*pre, *self.history[plan.kept_from :]]
        kept: list[str | None] = [None] * len(pre)
        self._entry_ids = kept + self._entry_ids[plan.kept_from :]
        yield CompactionEnded(
            reason=reason, tokens_before=before, tokens_after=self.context_tokens(), ok=True
        )

    def _context(self) -> ToolContext:
        vision = self.target.info.vision if self.target.info is not None else False
        return ToolContext(
            cwd=self.cwd,
            state=self.state,
            files=self.files,
            procs=self.procs,
            abort=self._abort,
            ask=self.ask,
            escalate=sandbox_escalation(self.approve, self.gate, self._abort),
            vision=vision,
            guard=self.gate,
            scope=self.scope,
            spawn=self.spawn,
        )

    async def _observe(self, result: ToolResult) -> None:
        """Keep what tool results change beyond the files: the todo list."""
        if isinstance(result.display, TodoList) and self.transcript is not None:
            await self.transcript.append_todos(list(result.display.todos))


__all__ = ["AgentConfig", "AgentCore", "AgentPorts"]
