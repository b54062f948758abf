"""The session's hooks around a turn: ``SessionStart`` (once, before the first prompt),
``UserPromptSubmit`` (may reject the prompt or add context), ``Stop`` (may send the model
back to work, at most ``MAX_STOP_CONTINUES`` times), ``PreCompact`` and ``SessionEnd``.
``PreToolUse`` and ``PostToolUse`` run in the tool batch (``core/loop/_execute.py``).

Every run is a ``hook`` entry in the transcript and a notice to the front-end (a
``notice`` record in stream-json). A hook can refuse or add context; it never allows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import msgspec

from earshot._base.json import JSONObject
from earshot.core.extend.hooks import HookOutcome, HookRun, Hooks
from earshot.core.loop._execute import hook_events
from earshot.core.loop.approvals import Approval, ApprovalRequest, ApproveFn
from earshot.core.loop.events import AgentEvent, Notice, TurnEnded
from earshot.core.loop.input import TurnInput
from earshot.providers import types as pt

MAX_STOP_CONTINUES = 3

RecordFn = Callable[[HookRun], Awaitable[None]]
RunTurn = Callable[[TurnInput], AsyncIterator[AgentEvent]]


def prompt_text(turn_input: TurnInput) -> str:
    if isinstance(turn_input, str):
        return turn_input
    return "\n".join(p.text for p in turn_input if isinstance(p, pt.TextPart))


def with_context(turn_input: TurnInput, context: list[str]) -> TurnInput:
    """The prompt with what hooks added, after it."""
    if not context:
        return turn_input
    added = "\n\n".join(context)
    if isinstance(turn_input, str):
        return f"{turn_input}\n\n<hook-context>\n{added}\n</hook-context>"
    return [*turn_input, pt.TextPart(text=f"<hook-context>\n{added}\n</hook-context>")]


class SessionHooks:
    def __init__(
        self, hooks: Hooks | None, info: JSONObject, cwd: Path, record: RecordFn | None
    ) -> None:
        self.hooks = hooks
        self.info = info
        self.cwd = cwd
        self.record = record
        self.started = False

    async def fire(
        self,
        event: str,
        payload: JSONObject,
        *,
        tool: str | None = None,
        subject: str | None = None,
    ) -> tuple[HookOutcome, list[AgentEvent]]:
        """Run ``event``'s hooks (matched against ``tool`` or ``subject``), record each run;
        what they decided, and the events a front-end sees of them."""
        if not self.hooks or not self.hooks.matching(event, tool if tool is not None else subject):
            return HookOutcome(), []
        judged = await self.hooks.run(
            event, {**self.info, **payload}, self.cwd, tool=tool, subject=subject
        )
        if self.record is not None:
            for run in judged.runs:
                await self.record(run)
        return judged, hook_events(judged)

    async def turn(
        self, turn_input: TurnInput, run: RunTurn, *, source: str
    ) -> AsyncIterator[AgentEvent]:
        """One turn with its hooks; ``TurnEnded`` last, once."""
        context: list[str] = []
        if not self.started:
            self.started = True
            started, events = await self.fire("SessionStart", {"source": source})
            for event in events:
                yield event
            context += started.context
        submitted, events = await self.fire("UserPromptSubmit", {"prompt": prompt_text(turn_input)})
        for event in events:
            yield event
        if submitted.blocked or submitted.stop:
            yield Notice(level="warning", message=f"prompt blocked by a hook: {submitted.reason}")
            yield _refused(f"prompt blocked by a UserPromptSubmit hook: {submitted.reason}")
            return
        current = with_context(turn_input, [*context, *submitted.context])
        ended: TurnEnded | None = None
        rounds = self.until_stopped(
            run, current, "Stop", lambda _, again: {"stop_hook_active": again}
        )
        async for event in rounds:
            if isinstance(event, TurnEnded):
                ended = event if ended is None else merged(ended, event)
            else:
                yield event
        if ended is not None:
            yield ended

    async def until_stopped(
        self,
        run: RunTurn,
        first: TurnInput,
        event: str,
        payload: Callable[[TurnEnded, bool], JSONObject],
        *,
        subject: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """``run`` on ``first``, then again while ``event``'s hooks (``Stop``,
        ``SubagentStop``) block the stop, each time with their reason as the input: at most
        ``MAX_STOP_CONTINUES`` more rounds. Every round's events, its ``TurnEnded`` included;
        ``payload(ended, again)`` is what the hooks get besides the session's facts
        (``again``: an earlier round was sent back already)."""
        current = first
        for round_ in range(MAX_STOP_CONTINUES + 1):
            last: TurnEnded | None = None
            async for item in run(current):
                if isinstance(item, TurnEnded):
                    last = item
                yield item
            if last is None or last.reason != "end_turn" or round_ == MAX_STOP_CONTINUES:
                return
            stopping, events = await self.fire(event, payload(last, round_ > 0), subject=subject)
            for item in events:
                yield item
            if not stopping.blocked:
                return
            current = f"A {event} hook asks you to go on before finishing: {stopping.reason}"


def merged(earlier: TurnEnded, later: TurnEnded) -> TurnEnded:
    """One turn's end over two rounds of it (a Stop hook sent the model back): usage, cost,
    model calls and denials of both; the rest (text, reason, totals) of the later."""
    cost = (
        None
        if earlier.cost_usd is None or later.cost_usd is None
        else earlier.cost_usd + later.cost_usd
    )
    return msgspec.structs.replace(
        later,
        model_calls=earlier.model_calls + later.model_calls,
        usage=earlier.usage + later.usage,
        cost_usd=cost,
        permission_denials=[*earlier.permission_denials, *later.permission_denials],
    )


def notifying(approve: ApproveFn, lifecycle: SessionHooks) -> ApproveFn:
    """``approve``, after the ``Notification`` hooks hear that a person is asked."""

    async def asking(request: ApprovalRequest) -> Approval:
        await lifecycle.fire(
            "Notification", {"message": f"earshot needs your permission: {request.title}"}
        )
        return await approve(request)

    return asking


def _refused(reason: str) -> TurnEnded:
    return TurnEnded(
        reason="error",
        text="",
        model_calls=0,
        usage=pt.Usage(),
        cost_usd=0.0,
        total_usage=pt.Usage(),
        total_cost_usd=None,
        error_kind="invalid_request",
        error=reason,
    )


__all__ = [
    "MAX_STOP_CONTINUES",
    "SessionHooks",
    "merged",
    "notifying",
    "prompt_text",
    "with_context",
]
