"""The agent loop: one flat, append-only history, one event stream for every front-end.

::

    run_turn(input)   check input (vision) -> append the user message -> the steps, over
                      one ``Turn`` (turn.py), until one says stop:
      _before_call    inject queued messages (steering: only here, between model calls);
                      stop if aborted / --max-turns / budget spent; compact near the window
      _call_model     stream the ModelClient (ProviderModel: retries, abort); a
                      context_overflow compacts and retries once
      _after_call     append the reply; no tool calls -> verify if files changed
                      (verify.after_turn: the checks as a tool batch; failures go back)
      _run_tools      ToolBatch: read-only concurrently, mutating one at a time; one tool
                      message with one result per call

Contracts: every tool call gets exactly one result, in emission order (unknown tools,
invalid arguments, denials and interruptions included); a tool failure is an error result,
never the end of a turn; only a failed model call ends a turn early (``TurnEnded(reason=
"error")``); an abort stops the stream and running tools and still leaves a history every
provider accepts; ``TurnEnded`` is always the last event. Core knows nothing of terminals,
editors or MCP: extra tools arrive through ``AgentSession.open(extra_tools=...)``, and
tools that arrive later through its ``sources`` (``core.extensions.ToolSource``): before
each model call the loop awaits their ``ready()`` (raced against an abort; their notices
become ``Notice`` events) and offers their current ``tools()``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from earshot._base.aio import race
from earshot._base.json import JSONObject
from earshot.core.effort import SessionEffort
from earshot.core.extend.allowed import AllowedTools
from earshot.core.extend.hooks import HookRun, Hooks
from earshot.core.extensions import ToolSource
from earshot.core.loop import verify
from earshot.core.loop._execute import ToolBatch
from earshot.core.loop._faults import SQUEEZE_KEEP, retry_notice, squeeze_window, unfit_error
from earshot.core.loop.approvals import ApproveFn, sandbox_escalation
from earshot.core.loop.context import (
    ContextPolicy,
    TokenGauge,
    estimate,
    plan_compaction,
    preamble,
    shape,
    summarise,
)
from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    CompactionEnded,
    CompactionReason,
    CompactionStarted,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    StopReason,
    TextDelta,
    ToolCallStreaming,
    TurnEnded,
    TurnStarted,
    UserMessageInjected,
)
from earshot.core.loop.input import TurnInput, user_message
from earshot.core.loop.model import ProviderModel
from earshot.core.loop.ports import Gate, ModelClient, Recorder, Snapshotter
from earshot.core.loop.turn import STOP_FOR_FINISH, Turn, interrupted
from earshot.core.tools.base import AnyTool, AskFn, SpawnFn, ToolContext, ToolResult
from earshot.core.tools.contract import ScopeContract
from earshot.core.tools.display import TodoList
from earshot.core.tools.ops import FileOps, LocalFileOps, LocalProcessOps, ProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers import types as pt
from earshot.providers.http import Timeouts
from earshot.providers.pricing import cost_usd
from earshot.providers.retry import RetryPolicy
from earshot.providers.target import Target

if TYPE_CHECKING:
    import httpx


class Agent:
    def __init__(
        self,
        *,
        target: Target,
        tools: Sequence[AnyTool],
        cwd: Path,
        gate: Gate,
        system: str = "",
        transcript: Recorder | None = None,
        undo: Snapshotter | None = None,
        approve: ApproveFn | None = None,
        ask: AskFn | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        reasoning_effort: pt.ReasoningEffort | None = None,
        effort: SessionEffort | None = None,
        max_output_tokens: int | None = None,
        retry: RetryPolicy | None = None,
        timeouts: Timeouts | None = None,
        client: httpx.AsyncClient | None = None,
        model: ModelClient | None = None,
        files: FileOps | None = None,
        procs: ProcessOps | None = None,
        history: Sequence[pt.Message] = (),
        entry_ids: Sequence[str | None] | None = None,
        state: ToolState | None = None,
        policy: ContextPolicy | None = None,
        verify: Sequence[str] = (),
        verify_rounds: int = 3,
        verify_suggestion: str | None = None,
        sources: Sequence[ToolSource] = (),
        scope: ScopeContract | None = None,
        spawn: SpawnFn | None = None,
    ) -> None:
        self.target = target
        self.tools: dict[str, AnyTool] = {tool.name: tool for tool in tools}
        self.hooks: Hooks | None = None
        """The session's hooks (set by ``AgentSession.open``)."""
        self.hook_info: JSONObject = {"cwd": str(cwd)}
        """What every hook's stdin carries about the session (session id, transcript)."""
        self.record_hook: Callable[[HookRun], Awaitable[None]] | None = None
        self._fixed_tools = dict(self.tools)
        self.sources = tuple(sources)
        self.allowed: AllowedTools | None = None
        """When set (a command file's ``allowed-tools``, one turn), only the tools it names
        are offered, and only the uses it covers get past it to the gate; it never adds."""
        self.cwd = cwd
        self.gate = gate
        self.system = system
        self.transcript = transcript
        self.undo = undo
        self.approve = approve
        self.ask = ask
        self.max_turns = max_turns
        self.max_budget_usd = max_budget_usd
        self.reasoning_effort = reasoning_effort
        self.effort = effort  # when set, its choice overrides ``reasoning_effort``
        self.max_output_tokens = max_output_tokens
        self.model: ModelClient = model or ProviderModel(
            client=client, retry=retry, timeouts=timeouts
        )
        self.files = files or LocalFileOps()
        self.procs = procs or LocalProcessOps()
        self.history: list[pt.Message] = list(history)
        # The transcript entry of each history message (None: not recorded, or a preamble),
        # so a compaction cut can name the first message it keeps.
        self._entry_ids: list[str | None] = (
            list(entry_ids) if entry_ids is not None else [None] * len(self.history)
        )
        self.state = state or ToolState()
        self.policy = policy or ContextPolicy()
        self.gauge = TokenGauge()
        self.verify = list(verify)
        self.verify_rounds = verify_rounds
        self.verify_suggestion = verify_suggestion
        self.scope = scope
        self.spawn = spawn
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

    def add_child_usage(self, ended: TurnEnded) -> None:
        """Count a subagent's turn in this agent's turn and session totals."""
        self._turn_usage = self._turn_usage + ended.usage
        self.total_usage = self.total_usage + ended.usage
        cost = ended.cost_usd
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

    # --- the turn ------------------------------------------------------------------------------

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
            messages=shape(self.history, self.policy),
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
        request = self._request()
        return self.gauge.measure(
            estimate(request.messages, system=self.system, tools=request.tools)
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
        ``window`` make the cut deeper after the provider refused a request as too long."""
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

    async def run_turn(self, turn_input: TurnInput) -> AsyncIterator[AgentEvent]:
        """Run one turn. ``InputError`` (raised before any event) means nothing was
        appended or sent."""
        message = user_message(turn_input, self.target.info)
        if self.running:
            raise RuntimeError("a turn is already running; queue the message instead")
        self.running = True
        self._abort = anyio.Event()
        try:
            async for event in self._turn(message):
                yield event
        finally:
            self.running = False

    async def _turn(self, message: pt.Message) -> AsyncIterator[AgentEvent]:
        await self._append(message)
        yield TurnStarted(input=message)
        self._turn_usage = pt.Usage()
        self._turn_cost = 0.0
        turn = Turn(verification="not_configured" if not self.verify else "not_needed")
        steps = (self._before_call, self._call_model, self._after_call, self._run_tools)
        while turn.next != "stop":
            turn.next = "go"
            for step in steps:
                async for event in step(turn):
                    yield event
                if not turn.going:
                    break
        if self.transcript is not None:
            await self.transcript.end_turn()
        failed = turn.error if turn.reason == "error" else None
        yield TurnEnded(
            reason=turn.reason,
            text=turn.final_text,
            model_calls=turn.calls,
            usage=self._turn_usage,
            cost_usd=self._turn_cost,
            total_usage=self.total_usage,
            total_cost_usd=self.total_cost_usd,
            permission_denials=turn.denials,
            error_kind=failed.kind if failed is not None else None,
            error=failed.message if failed is not None else None,
            verification=turn.verification,
        )

    # --- the steps of a turn: each reads and writes ``Turn``; ``turn.next`` says what follows

    async def _before_call(self, turn: Turn) -> AsyncIterator[AgentEvent]:
        """Inject queued messages; stop on an abort or a spent limit; compact when the
        context is near the window."""
        while self._queue:
            injected = self._queue.popleft()
            await self._append(injected)
            yield UserMessageInjected(message=injected)
        if self.sources:
            for notice in await self.sources_ready():
                yield Notice(level="warning", message=notice)
        stop = self._limit(turn)
        if stop is not None:
            turn.stop(stop)
            return
        if self.context_tokens() >= self.policy.compact_at * self.window():
            async for compacting in self._compact("auto"):
                yield compacting

    def _limit(self, turn: Turn) -> StopReason | None:
        if self._abort.is_set():
            return "aborted"
        if self.max_turns is not None and turn.calls >= self.max_turns:
            return "max_turns"
        if (
            self.max_budget_usd is not None
            and self.total_cost_usd is not None
            and self.total_cost_usd >= self.max_budget_usd
        ):
            return "budget"
        return None

    async def _call_model(self, turn: Turn) -> AsyncIterator[AgentEvent]:
        """Stream one model call; a failed call compacts and retries once after a context
        overflow, else ends the turn (keeping what was said)."""
        turn.calls += 1
        yield ModelCallStarted(index=turn.calls, model=self.target.ref)
        turn.finish, turn.error = None, None
        async for event in self.model.stream(self._request(), self.target):
            if isinstance(event, pt.Retrying):
                yield retry_notice(event)
            elif isinstance(event, pt.TextDelta):
                yield TextDelta(text=event.text)
            elif isinstance(event, pt.ReasoningDelta):
                yield ReasoningDelta(text=event.text)
            elif isinstance(event, pt.ToolCallStart):
                yield ToolCallStreaming(id=event.id, name=event.name)
            elif isinstance(event, pt.Finish):
                turn.finish = event
            elif isinstance(event, pt.ErrorEvent):
                turn.error = event
        if turn.finish is not None:
            turn.squeezed = 0
            return
        error = turn.error
        if error is not None and error.usage is not None:
            self._account(error.usage)  # a cut call was still paid for
        nothing_shown = error is None or error.partial is None or not error.partial.parts
        if error is not None and error.kind == "context_overflow" and nothing_shown:
            fitted = False
            if turn.squeezed < len(SQUEEZE_KEEP):
                window = squeeze_window(self.window(), self.context_tokens())
                deeper = self._compact(
                    "overflow", keep_batches=SQUEEZE_KEEP[turn.squeezed], window=window
                )
                async for compacting in deeper:
                    if isinstance(compacting, CompactionEnded):
                        fitted = compacting.ok
                    yield compacting
            turn.squeezed += 1
            if fitted:
                turn.next = "again"
                return
            turn.error = unfit_error(
                error, window=self.window(), overhead=self._overhead(), tokens=self.context_tokens()
            )
        if turn.error is not None and turn.error.partial is not None:
            await self._close_partial(turn.error.partial)
        turn.stop("error")

    async def _after_call(self, turn: Turn) -> AsyncIterator[AgentEvent]:
        """Account for the reply and append it; without tool calls the model has finished:
        verify the changes, or end the turn."""
        finish = turn.finish
        assert finish is not None  # _call_model stopped the turn otherwise
        self.gauge.observe(finish.usage)
        call_cost = self._account(finish.usage)
        if finish.reason == "aborted":
            await self._close_partial(finish.message)
            turn.stop("aborted")
            return
        reply = finish.message
        if reply.parts:
            await self._append(reply, usage=finish.usage, cost_usd=call_cost)
        yield AssistantMessage(
            message=reply,
            model=self.target.ref,
            finish_reason=finish.reason,
            usage=finish.usage,
            cost_usd=call_cost,
            total_usage=self.total_usage,
            total_cost_usd=self.total_cost_usd,
        )
        turn.tool_calls = [p for p in reply.parts if isinstance(p, pt.ToolCallPart)]
        if turn.tool_calls:
            return
        turn.final_text = pt.text_of(reply)
        turn.stop(STOP_FOR_FINISH[finish.reason])
        if turn.reason != "end_turn":
            return
        if self._queue:
            turn.next = "again"
            return
        if not turn.changed:
            return
        if not self.verify and self.verify_suggestion:
            yield Notice(level="info", message=verify.hint(self.verify_suggestion))
            self.verify_suggestion = None  # once a session
        elif self.verify:
            rounds, ctx = self.verify_rounds, self._context()
            checks = verify.after_turn(turn, self.verify, rounds, ctx, self.gate, self.approve)
            async for event in checks:
                yield event
            if turn.feedback is not None:
                self._queue.append(turn.feedback)

    async def _run_tools(self, turn: Turn) -> AsyncIterator[AgentEvent]:
        """Gate and run the reply's tool calls; one tool message with one result each."""
        batch = ToolBatch(
            tools=self.offered(),
            ctx=self._context(),
            gate=self.gate if self.allowed is None else self.allowed.gate(self.gate, self.cwd),
            approve=self.approve,
            undo=self.undo,
            observe=self._observe,
            hooks=self.hooks,
            hook_base=dict(self.hook_info),
        )
        async for tool_event in batch.run(turn.tool_calls):
            yield tool_event
        if self.record_hook is not None:
            for run in batch.hook_runs:
                await self.record_hook(run)
        turn.denials.extend(batch.denials)
        turn.changed = turn.changed or batch.mutated
        await self._append(pt.Message(role="tool", parts=list(batch.results)))
        if self._abort.is_set():
            turn.stop("aborted")

    async def _close_partial(self, partial: pt.Message) -> None:
        """Keep what a cut-short model call produced (marked incomplete in the transcript,
        so a later turn continues from it), and give each of its tool calls an
        "interrupted" result, so the next request is valid for every provider."""
        if not partial.parts:
            return
        await self._append(partial, incomplete=True)
        answered = interrupted(partial)
        if answered is not None:
            await self._append(answered)


__all__ = ["Agent"]
