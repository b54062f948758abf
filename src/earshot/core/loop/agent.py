"""The agent loop: one flat, append-only history, one event stream for every front-end.

::

    run_turn(input)   check input (vision) -> append the user message -> the steps, over
                      one ``Turn`` (turn.py), until one says stop:
      _before_call    inject queued messages (steering: only here, between model calls);
                      stop if aborted / --max-turns / budget spent; build the request
                      once, measure it, and compact (then rebuild) near the window
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

from collections.abc import AsyncIterator

import anyio

from earshot.core.loop import verify
from earshot.core.loop._core import AgentConfig, AgentCore, AgentPorts
from earshot.core.loop._execute import SHELL_TOOLS, ToolBatch
from earshot.core.loop._faults import SQUEEZE_KEEP, retry_notice, squeeze_window, unfit_error
from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    CompactionEnded,
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
from earshot.core.loop.turn import STOP_FOR_FINISH, Turn, interrupted
from earshot.providers import types as pt


class Agent(AgentCore):
    """An agent (``Agent(AgentConfig(...), AgentPorts(...))``) and its turn; the state,
    the controls and compaction are ``AgentCore``'s (``_core.py``)."""

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
        request = self._request()
        if self._measure(request) >= self.policy.compact_at * self.window():
            async for compacting in self._compact("auto"):
                yield compacting
            request = self._request()  # the history is shorter now
        turn.request = request

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
        request, turn.request = turn.request or self._request(), None
        if self.undo is not None:
            self.undo.discard()  # a capture is only ever for the batch of this call
        async for event in self.model.stream(request, self.target):
            if isinstance(event, pt.Retrying):
                yield retry_notice(event)
            elif isinstance(event, pt.TextDelta):
                yield TextDelta(text=event.text)
            elif isinstance(event, pt.ReasoningDelta):
                yield ReasoningDelta(text=event.text)
            elif isinstance(event, pt.ToolCallStart):
                self._prefetch_snapshot(event.name)
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
            live=self.live,
        )
        async for tool_event in batch.run(turn.tool_calls):
            yield tool_event
        if self.record_hook is not None:
            for run in batch.hook_runs:
                await self.record_hook(run)
        turn.denials.extend(batch.denials)
        turn.changed = turn.changed or batch.mutated
        if batch.mutated and self.undo is not None:
            # Files changed: a capture another agent sharing this undo (a parallel
            # subagent) started meanwhile is stale.
            self.undo.discard()
        await self._append(pt.Message(role="tool", parts=list(batch.results)))
        if self._abort.is_set():
            turn.stop("aborted")

    def _prefetch_snapshot(self, name: str) -> None:
        """A mutating call begins: its batch's undo snapshot starts capturing now, while
        the model still streams its arguments (an edit's text can take seconds). Not for a
        shell line: its arguments are short, and most lines change nothing, so the capture
        would only compete with the step for the CPU."""
        if name in SHELL_TOOLS:
            return
        tool = self.offered().get(name)
        if self.undo is not None and tool is not None and not tool.read_only:
            self.undo.prefetch()

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


__all__ = ["Agent", "AgentConfig", "AgentPorts"]
