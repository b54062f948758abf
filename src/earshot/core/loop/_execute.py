"""One batch of tool calls: the gate, then execution, results in emission order.

For each call, in the order the model emitted them: an unknown tool, invalid arguments or a
denial gives an error result at once; an allowed read-only call joins the pending group;
an allowed mutating call first runs the pending group (concurrently), then takes an undo
snapshot (once per batch; none for a shell line of read-only programs), then runs alone.
``ToolFinished`` events leave in emission order as soon as a call and every call before it
have results. An abort cancels what runs
and gives every call without a result an "interrupted" one: every call gets exactly one.

Each call gets a context of its own whose ``progress`` reports become ``ToolProgress``
events, and a ``task`` call's child puts its events in ``live`` (``SubagentEvent``): while a
group runs (in a task of its own, ``core/loop/live.py``), the batch yields both as they come
- of each running call only its latest report (one overtaken before it is yielded is
dropped; one made after its call finished is never sent). An abort is not raced against a
``task`` call: the child follows the abort itself and returns what it did and what it cost
(``core/loop/subagent.py``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TypeVar

import anyio
import msgspec

from earshot._base.aio import race
from earshot._base.json import JSONObject
from earshot.core.extend.hooks import HookOutcome, HookRun, Hooks
from earshot.core.loop.approvals import ApprovalRequest, ApproveFn
from earshot.core.loop.events import (
    AgentEvent,
    HookRan,
    Notice,
    PermissionDecided,
    PermissionDenial,
    ToolCallRequested,
    ToolFinished,
    ToolProgress,
    denial,
)
from earshot.core.loop.live import LiveEvents
from earshot.core.loop.ports import Gate, Snapshotter
from earshot.core.tools.base import (
    AnyTool,
    PermissionRequest,
    PreparedCall,
    ProgressFn,
    ToolContext,
    ToolError,
    ToolResult,
)
from earshot.core.tools.display import Display
from earshot.providers.types import TextPart, ToolCallPart, ToolResultPart

T = TypeVar("T")

SUBAGENT_TOOLS = frozenset({"task"})
"""Tools whose calls run a subagent: live progress, and they follow an abort themselves."""

SHELL_TOOLS = frozenset({"bash"})
"""Tools whose call may change nothing (a shell line of read-only programs takes no undo
snapshot, and most lines are): their snapshot is not captured early, while the call
streams, but only once the batch knows it needs one."""


HEADLESS_DENIAL = (
    "it needs approval and nobody can approve in this mode; to permit it, rerun with "
    "--permission-mode or an --allow rule"
)


def _title(call: ToolCallPart, request: PermissionRequest | None) -> str:
    if request is not None:
        if request.command:
            return f"{call.name}: {request.command.splitlines()[0][:120]}"
        if request.paths:
            return f"{call.name}: {', '.join(str(p) for p in request.paths)[:120]}"
        if request.domain:
            return f"{call.name}: {request.domain}"
    return call.name


def _error_part(call: ToolCallPart, text: str) -> ToolResultPart:
    return ToolResultPart(
        call_id=call.id, name=call.name, content=[TextPart(text=text)], is_error=True
    )


class _Slot(msgspec.Struct):
    call: ToolCallPart
    result: ToolResultPart | None = None
    brief: str = ""
    display: Display = None
    duration_ms: float = 0.0
    sent: bool = False


class ToolBatch(msgspec.Struct):
    tools: dict[str, AnyTool]
    ctx: ToolContext
    gate: Gate
    approve: ApproveFn | None
    undo: Snapshotter | None = None
    denials: list[PermissionDenial] = msgspec.field(default_factory=list)
    results: list[ToolResultPart] = msgspec.field(default_factory=list)
    snapshot_taken: bool = False
    mutated: bool = False
    observe: Callable[[ToolResult], Awaitable[None]] | None = None
    """Sees every result a tool returned (not errors made here), as it arrives."""
    reason_prefix: str = ""
    """Put before the gate's reason when a person is asked ("verification check: ")."""
    unanswered: str | None = HEADLESS_DENIAL
    """Why a call that needs approval is denied when nobody can approve (None: the gate's
    own reason)."""
    hooks: Hooks | None = None
    """PreToolUse hooks run before the gate: they may refuse a call or make it ask,
    never allow it."""
    hook_base: JSONObject = msgspec.field(default_factory=dict)
    hook_runs: list[HookRun] = msgspec.field(default_factory=list)
    """Every hook run of the batch, for the transcript."""
    _hook_events: list[AgentEvent] = msgspec.field(default_factory=list)
    live: LiveEvents | None = None
    """Where a running subagent's events arrive (yielded while its group runs)."""
    _running_ids: set[str] = msgspec.field(default_factory=set)
    """The calls of the group now running (only their progress reports are sent)."""
    _live: LiveEvents | None = None
    """Where the running group's progress reports go (``live``, or the batch's own)."""

    async def run(self, calls: Sequence[ToolCallPart]) -> AsyncIterator[AgentEvent]:
        slots = [_Slot(call) for call in calls]
        pending: list[tuple[_Slot, PreparedCall]] = []
        abort = self.ctx.abort
        for slot in slots:
            if abort.is_set():
                break
            call = slot.call
            tool = self.tools.get(call.name)
            if tool is None:
                known = ", ".join(sorted(self.tools))
                slot.result = _error_part(
                    call, f"unknown tool {call.name!r}; the available tools are: {known}"
                )
                slot.brief = "unknown tool"
                yield ToolCallRequested(call=call, read_only=True, title=call.name)
                continue
            try:
                prepared = tool.prepare(call.input, self._context_for(call.id))
            except ToolError as exc:
                slot.result = _error_part(call, exc.message)
                slot.brief = exc.brief
                yield ToolCallRequested(call=call, read_only=tool.read_only, title=call.name)
                continue
            request = prepared.request
            title = _title(call, request)
            decision = self.gate.check(request, read_only=tool.read_only)
            # a refused call shows no detail: an edit's diff of a file a Read rule denies
            # would put the file's lines on screen
            detail = "" if decision.outcome == "deny" else request.detail
            yield ToolCallRequested(call=call, read_only=tool.read_only, title=title, detail=detail)
            judged: HookOutcome | None = None
            if self.hooks:
                judged = await self.hooks.run(
                    "PreToolUse",
                    {**self.hook_base, "tool_input": call.input},
                    self.ctx.cwd,
                    tool=call.name,
                )
                self.hook_runs += judged.runs
                for event in hook_events(judged):
                    yield event
            outcome, reason, asked = decision.outcome, decision.reason, False
            if judged is not None and (judged.blocked or judged.stop):
                outcome, reason = "deny", f"blocked by a PreToolUse hook: {judged.reason}"
            elif judged is not None and judged.ask and outcome == "allow":
                outcome, reason = "ask", f"a PreToolUse hook asks: {judged.reason}"
            if outcome == "ask":
                asked = True
                parts = tuple(verdict.command for verdict in decision.commands)
                outcome, reason = await self._ask(call, request, reason, title, parts)
            if outcome != "allow":
                outcome = "deny"
            yield PermissionDecided(
                call_id=call.id,
                tool=call.name,
                outcome="allow" if outcome == "allow" else "deny",
                reason=reason,
                rule=decision.rule,
                asked=asked,
            )
            if outcome != "allow":
                slot.result = _error_part(
                    call,
                    f"permission denied: {reason}. Do not retry the same call; choose "
                    "another way or ask the user.",
                )
                slot.brief = "denied"
                self.denials.append(denial(call, reason))
                continue
            if tool.read_only:
                pending.append((slot, prepared))
                continue
            async for event in self._running(pending):
                yield event
            pending = []
            for event in self._flush(slots):
                yield event
            if not self.snapshot_taken and self.undo is not None and not decision.changes_nothing:
                self.snapshot_taken = True
                label = _title(call, request)
                try:
                    await self.undo.snapshot(label[:200])
                except Exception as exc:  # undo must never cost the user their turn
                    yield Notice(level="warning", message=f"undo snapshot failed: {exc}")
            async for event in self._running([(slot, prepared)]):
                yield event
            self.mutated = True
            for event in self._flush(slots):
                yield event
        async for event in self._running(pending):
            yield event
        for slot in slots:
            if slot.result is None:
                slot.result = _error_part(
                    slot.call, "interrupted by the user before this call finished"
                )
                slot.brief = "interrupted"
        for event in self._flush(slots):
            yield event
        self.results = [slot.result for slot in slots if slot.result is not None]

    async def _ask(
        self,
        call: ToolCallPart,
        request: PermissionRequest,
        reason: str,
        title: str,
        parts: tuple[str, ...],
    ) -> tuple[str, str]:
        if self.approve is None:
            return "deny", self.unanswered or reason
        approve = self.approve
        ask = ApprovalRequest(
            call=call, request=request, reason=self.reason_prefix + reason, title=title, parts=parts
        )
        answer, aborted = await race(lambda: approve(ask), self.ctx.abort)
        if aborted or answer is None:
            return "deny", "the turn was interrupted while waiting for approval"
        if answer.decision == "allow_session":
            self.gate.grant_session(request)
            return "allow", "allowed by the user for this session"
        if answer.decision == "allow_once":
            return "allow", "allowed by the user"
        why = f": {answer.reason}" if answer.reason else ""
        return "deny", f"the user denied this call{why}"

    def _context_for(self, call_id: str) -> ToolContext:
        return msgspec.structs.replace(self.ctx, call_id=call_id, progress=self._reporter(call_id))

    def _reporter(self, call_id: str) -> ProgressFn:
        def report(
            message: str = "", progress: float | None = None, total: float | None = None
        ) -> None:
            live = self._live
            if live is None or call_id not in self._running_ids:
                return
            live.put_latest(
                call_id,
                ToolProgress(call_id=call_id, message=message, progress=progress, total=total),
            )

        return report

    async def _running(self, group: list[tuple[_Slot, PreparedCall]]) -> AsyncIterator[AgentEvent]:
        """Run ``group``; while it runs, yield its calls' progress reports and a running
        subagent's events as they come."""
        if not group:
            return
        ids = {slot.call.id for slot, _ in group}
        self._running_ids.update(ids)
        live = self._live = self.live if self.live is not None else LiveEvents()
        try:
            async for event in live.during(lambda: self._run_group(group)):
                if isinstance(event, ToolProgress) and event.call_id not in self._running_ids:
                    continue
                yield event
        finally:
            self._live = None
            self._running_ids.difference_update(ids)
            for call_id in ids:
                live.drop(call_id)

    async def _run_group(self, group: list[tuple[_Slot, PreparedCall]]) -> None:
        if not group:
            return
        if len(group) == 1:
            await self._run_one(*group[0])
            return
        async with anyio.create_task_group() as tg:
            for slot, prepared in group:
                tg.start_soon(self._run_one, slot, prepared)

    async def _run_one(self, slot: _Slot, prepared: PreparedCall) -> None:
        start = time.perf_counter()
        call = slot.call
        follows_abort = call.name in SUBAGENT_TOOLS
        try:
            result, aborted = await race(prepared.run, None if follows_abort else self.ctx.abort)
        except ToolError as exc:
            result, aborted = ToolResult.error(exc.message, brief=exc.brief), False
        except Exception as exc:
            text = f"{call.name} failed: {type(exc).__name__}: {exc}"
            result, aborted = ToolResult.error(text, brief="tool failed"), False
        slot.duration_ms = (time.perf_counter() - start) * 1000.0
        self._running_ids.discard(call.id)
        if self._live is not None:
            self._live.drop(call.id)
        if aborted or result is None:
            slot.result = _error_part(call, "interrupted by the user while running")
            slot.brief = "interrupted"
            return
        slot.result = ToolResultPart(
            call_id=call.id, name=call.name, content=list(result.content), is_error=result.is_error
        )
        slot.brief = result.brief
        slot.display = result.display
        if result.denied is not None:
            self.denials.append(denial(call, result.denied))
        if self.observe is not None:
            await self.observe(result)
        if self.hooks and self.hooks.matching("PostToolUse", call.name):
            await self._after(slot, result)

    async def _after(self, slot: _Slot, result: ToolResult) -> None:
        """PostToolUse: the call has run; a hook may tell the model something about it
        (exit 2's stderr, a block's reason, additionalContext)."""
        call = slot.call
        assert self.hooks is not None and slot.result is not None
        response = "\n".join(p.text for p in result.content if isinstance(p, TextPart))
        judged = await self.hooks.run(
            "PostToolUse",
            {**self.hook_base, "tool_input": call.input, "tool_response": response},
            self.ctx.cwd,
            tool=call.name,
        )
        self.hook_runs += judged.runs
        self._hook_events += hook_events(judged)
        said = [f"PostToolUse hook: {judged.reason}"] if judged.blocked else []
        said += judged.context
        if said:
            slot.result = ToolResultPart(
                call_id=call.id,
                name=call.name,
                content=[*slot.result.content, TextPart(text="\n".join(said))],
                is_error=slot.result.is_error,
            )

    def _flush(self, slots: list[_Slot]) -> list[AgentEvent]:
        out: list[AgentEvent] = list(self._hook_events)
        self._hook_events.clear()
        for slot in slots:
            if slot.result is None:
                break
            if not slot.sent:
                slot.sent = True
                out.append(
                    ToolFinished(
                        result=slot.result,
                        brief=slot.brief,
                        duration_ms=slot.duration_ms,
                        display=slot.display,
                    )
                )
        return out


def hook_events(judged: HookOutcome) -> list[AgentEvent]:
    """What a front-end sees of hook runs: one ``HookRan`` per run, a notice per warning."""
    out: list[AgentEvent] = [hook_ran(run) for run in judged.runs]
    out += [Notice(level="warning", message=w) for w in judged.warnings]
    return out


def hook_ran(run: HookRun) -> HookRan:
    return HookRan(
        event=run.event,
        command=run.command,
        matcher=run.matcher,
        source=run.source,
        exit_code=run.exit_code,
        duration_ms=run.duration_ms,
        decision=run.decision,
        output=run.output,
    )


__all__ = [
    "HEADLESS_DENIAL",
    "SHELL_TOOLS",
    "ToolBatch",
    "hook_events",
    "hook_ran",
]
