"""The agent loop: one flat, append-only history, one event stream for every front-end.

::

    run_turn(input)
      check input (vision) -> append user message
      loop:
        inject queued user messages            (steering: only here, between model calls)
        stop if aborted / --max-turns / budget spent
        compact if the context is near the window  (context.py: cap, prune, summarise)
        stream the model                       (providers.stream: retries, abort; a
                                                context_overflow compacts and retries once)
        append the assistant message
        no tool calls -> verify if files changed (verify.py; failures go back to the model)
                         -> done
        gate + execute the calls               (_execute.ToolBatch: read-only concurrently,
                                                mutating one at a time, emission order)
        append one tool message with one result per call

Contracts: every tool call gets exactly one result, in emission order (unknown tools,
invalid arguments, denials and interruptions included); a tool failure is an error result,
never the end of a turn; only a failed model call ends a turn early (``TurnEnded(reason=
"error")``); an abort stops the stream and running tools and still leaves a history every
provider accepts; ``TurnEnded`` is always the last event. Core knows nothing of terminals,
editors or MCP: extra tools arrive through ``create_session(extra_tools=...)``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import anyio
import httpx

from earshot.core import verify
from earshot.core._execute import ToolBatch
from earshot.core.approvals import ApproveFn, sandbox_escalation
from earshot.core.context import (
    ContextPolicy,
    TokenGauge,
    estimate,
    plan_compaction,
    preamble,
    shape,
    summarise,
)
from earshot.core.effort import SessionEffort
from earshot.core.events import (
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
    Verification,
)
from earshot.core.input import TurnInput, user_message
from earshot.core.ports import Gate, Snapshotter, Transcript
from earshot.core.tools.base import AnyTool, AskFn, ToolContext
from earshot.core.tools.ops import FileOps, LocalFileOps, LocalProcessOps, ProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers import types as pt
from earshot.providers.pricing import cost_usd
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import stream
from earshot.providers.target import Target

_STOP_FOR_FINISH: dict[pt.FinishReason, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "end_turn",
    "length": "length",
    "refusal": "refusal",
    "error": "error",
    "aborted": "aborted",
}


class Agent:
    def __init__(
        self,
        *,
        target: Target,
        tools: Sequence[AnyTool],
        cwd: Path,
        gate: Gate,
        system: str = "",
        transcript: Transcript | None = None,
        undo: Snapshotter | None = None,
        approve: ApproveFn | None = None,
        ask: AskFn | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        reasoning_effort: pt.ReasoningEffort | None = None,
        effort: SessionEffort | None = None,
        max_output_tokens: int | None = None,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        files: FileOps | None = None,
        procs: ProcessOps | None = None,
        history: Sequence[pt.Message] = (),
        entry_ids: Sequence[str | None] | None = None,
        state: ToolState | None = None,
        policy: ContextPolicy | None = None,
        verify: Sequence[str] = (),
        verify_rounds: int = 3,
        verify_suggestion: str | None = None,
    ) -> None:
        self.target = target
        self.tools: dict[str, AnyTool] = {tool.name: tool for tool in tools}
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
        self.retry = retry
        self.client = client
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

    async def switch_model(self, target: Target) -> None:
        """Use ``target`` from the next model call on. History keeps every provider's
        metadata; adapters send only what their provider can read."""
        self.target = target
        if self.transcript is not None:
            await self.transcript.append_model_switch(target.ref)
        if self.effort is not None:
            self.effort.retarget(target)

    def tool_names(self) -> list[str]:
        return list(self.tools)

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
            )
        self.history.append(message)
        self._entry_ids.append(entry)

    def _specs(self) -> list[pt.ToolSpec]:
        return [tool.spec() for tool in self.tools.values()]

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

    async def _compact(
        self, reason: CompactionReason, focus: str = ""
    ) -> AsyncIterator[AgentEvent]:
        before = self.context_tokens()
        yield CompactionStarted(reason=reason, tokens_before=before)
        plan = plan_compaction(self.history, self.policy, self.window())
        if plan is None:
            yield CompactionEnded(
                reason=reason,
                tokens_before=before,
                tokens_after=before,
                ok=False,
                message="nothing old enough to summarise: only the current turns are here",
            )
            return
        summary, usage, failure = await summarise(
            plan,
            target=self.target,
            tools=self._specs(),
            policy=self.policy,
            window=self.window(),
            focus=focus,
            abort=self._abort,
            client=self.client,
            retry=self.retry,
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
        first_kept = self._entry_ids[plan.kept_from]
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
        )

    async def _save_todos(self) -> None:
        if self.transcript is not None:
            await self.transcript.append_todos(list(self.state.todos))

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
        calls = 0
        denials: list[pt.JSONObject] = []
        final_text = ""
        reason: StopReason = "end_turn"
        error: pt.ErrorEvent | None = None
        overflow_retried = False
        changed = False
        verification: Verification = "not_configured" if not self.verify else "not_needed"
        verify_round = 0
        while True:
            while self._queue:
                injected = self._queue.popleft()
                await self._append(injected)
                yield UserMessageInjected(message=injected)
            if self._abort.is_set():
                reason = "aborted"
                break
            if self.max_turns is not None and calls >= self.max_turns:
                reason = "max_turns"
                break
            if (
                self.max_budget_usd is not None
                and self.total_cost_usd is not None
                and self.total_cost_usd >= self.max_budget_usd
            ):
                reason = "budget"
                break
            if self.context_tokens() >= self.policy.compact_at * self.window():
                async for compacting in self._compact("auto"):
                    yield compacting
            calls += 1
            yield ModelCallStarted(index=calls, model=self.target.ref)
            finish: pt.Finish | None = None
            error = None
            async for event in stream(
                self._request(), self.target, client=self.client, retry=self.retry
            ):
                if isinstance(event, pt.TextDelta):
                    yield TextDelta(text=event.text)
                elif isinstance(event, pt.ReasoningDelta):
                    yield ReasoningDelta(text=event.text)
                elif isinstance(event, pt.ToolCallStart):
                    yield ToolCallStreaming(id=event.id, name=event.name)
                elif isinstance(event, pt.Finish):
                    finish = event
                elif isinstance(event, pt.ErrorEvent):
                    error = event
            if finish is None:
                nothing_shown = error is None or error.partial is None or not error.partial.parts
                if (
                    error is not None
                    and error.kind == "context_overflow"
                    and not overflow_retried
                    and nothing_shown
                ):
                    overflow_retried = True
                    async for compacting in self._compact("overflow"):
                        yield compacting
                    continue
                reason = "error"
                if error is not None and error.partial is not None:
                    await self._close_partial(error.partial)
                break
            self.gauge.observe(finish.usage)
            call_cost = self._account(finish.usage)
            if finish.reason == "aborted":
                await self._close_partial(finish.message)
                reason = "aborted"
                break
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
            calls_made = [p for p in reply.parts if isinstance(p, pt.ToolCallPart)]
            if not calls_made:
                final_text = pt.text_of(reply)
                reason = _STOP_FOR_FINISH[finish.reason]
                if reason == "end_turn" and self._queue:
                    continue
                if reason == "end_turn" and changed and not self.verify and self.verify_suggestion:
                    yield Notice(level="info", message=verify.hint(self.verify_suggestion))
                    self.verify_suggestion = None  # once a session
                if reason == "end_turn" and changed and self.verify and "bash" in self.tools:
                    verify_round += 1
                    checks = verify.Checks()
                    async for check in verify.run(
                        self.verify,
                        bash=self.tools["bash"],
                        ctx=self._context(),
                        gate=self.gate,
                        approve=self.approve,
                        round=verify_round,
                        checks=checks,
                    ):
                        yield check
                    verification = checks.outcome
                    changed = False
                    if checks.outcome == "failed" and verify_round < self.verify_rounds:
                        self._queue.append(verify.feedback(checks.failures))
                        continue
                break
            batch = ToolBatch(
                tools=self.tools,
                ctx=self._context(),
                gate=self.gate,
                approve=self.approve,
                undo=self.undo,
                on_todos=self._save_todos,
            )
            async for tool_event in batch.run(calls_made):
                yield tool_event
            denials.extend(batch.denials)
            changed = changed or batch.mutated
            await self._append(pt.Message(role="tool", parts=list(batch.results)))
            if self._abort.is_set():
                reason = "aborted"
                break
        if self.transcript is not None:
            await self.transcript.end_turn()
        yield TurnEnded(
            reason=reason,
            text=final_text,
            model_calls=calls,
            usage=self._turn_usage,
            cost_usd=self._turn_cost,
            total_usage=self.total_usage,
            total_cost_usd=self.total_cost_usd,
            permission_denials=denials,
            error_kind=error.kind if error is not None and reason == "error" else None,
            error=error.message if error is not None and reason == "error" else None,
            verification=verification,
        )

    async def _close_partial(self, partial: pt.Message) -> None:
        """Keep what a cut-short model call produced, and give each of its tool calls an
        "interrupted" result, so the next request is valid for every provider."""
        if not partial.parts:
            return
        await self._append(partial)
        calls = [p for p in partial.parts if isinstance(p, pt.ToolCallPart)]
        if calls:
            results: list[pt.Part] = [
                pt.ToolResultPart(
                    call_id=call.id,
                    name=call.name,
                    content=[pt.TextPart(text="interrupted before this call ran")],
                    is_error=True,
                )
                for call in calls
            ]
            await self._append(pt.Message(role="tool", parts=results))


__all__ = ["Agent"]
