"""The events of one turn: what the TUI, the headless renderer and the ACP server consume.

One ``Agent.run_turn`` yields, in order::

    TurnStarted
    ( ModelCallStarted
      TextDelta* ReasoningDelta* ToolCallStreaming*        while the model streams
      AssistantMessage                                     the completed model call (+ usage, cost)
      ( ToolCallRequested PermissionDecided ToolFinished )* one group per tool call, results in
                                                           emission order
      ToolProgress*                                        while an allowed call runs (between
                                                           its PermissionDecided and its
                                                           ToolFinished): an MCP server's
                                                           progress, a command's last lines
        SubagentEvent*                                     while a ``task`` call runs: its
                                                           child's events, live (after the
                                                           call's PermissionDecided, before
                                                           its ToolFinished)
      UserMessageInjected*                                 steering, between model calls
    )+
    CompactionStarted CompactionEnded                      before a model call, when the
                                                           context is near the window (or
                                                           after a context_overflow error)
    VerificationRan*                                       after the model finished a turn
                                                           that changed files (then maybe
                                                           more model calls to fix failures)
    HookRan*                                               a hook command ran (before a tool
                                                           call's permission, after it, before
                                                           and after the model's rounds)
    Notice*                                                anywhere: retries, warnings
    TurnEnded                                              exactly once, last

These are earshot's internal events, free to change: the earshot.v1 records of headless
output and the ACP updates are mappings of them, and those are what is promised.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

from earshot.core.tools.display import Display
from earshot.providers.types import (
    ErrorKind,
    FinishReason,
    JSONValue,
    Message,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

StopReason = Literal[
    "end_turn",  # the model answered without calling tools
    "max_turns",  # --max-turns model calls were made
    "budget",  # the budget was spent before the next call
    "length",  # the model hit its output limit
    "refusal",  # the model refused
    "error",  # the model call failed (after retries)
    "aborted",  # the caller aborted
]
PermissionOutcome = Literal["allow", "deny"]
Verification = Literal["passed", "failed", "blocked", "not_configured", "not_needed"]
CompactionReason = Literal["auto", "manual", "overflow"]


class TurnStarted(msgspec.Struct, tag="turn_started", frozen=True, kw_only=True):
    input: Message


class ModelCallStarted(msgspec.Struct, tag="model_call_started", frozen=True, kw_only=True):
    index: int
    model: str


class TextDelta(msgspec.Struct, tag="text_delta", frozen=True, kw_only=True):
    text: str


class ReasoningDelta(msgspec.Struct, tag="reasoning_delta", frozen=True, kw_only=True):
    text: str


class ToolCallStreaming(msgspec.Struct, tag="tool_call_streaming", frozen=True, kw_only=True):
    """A tool call has begun streaming (its arguments are not complete yet)."""

    id: str
    name: str


class AssistantMessage(msgspec.Struct, tag="assistant_message", frozen=True, kw_only=True):
    """A completed model call: the message as appended to history, its usage and cost
    (``None`` when the catalog has no prices), and the session totals so far."""

    message: Message
    model: str
    finish_reason: FinishReason
    usage: Usage
    cost_usd: float | None
    total_usage: Usage
    total_cost_usd: float | None


class ToolCallRequested(msgspec.Struct, tag="tool_call_requested", frozen=True, kw_only=True):
    """A tool call about to go through the gate. ``title`` is a one-line summary for a UI;
    ``detail`` what a person approving it sees (the command, a diff)."""

    call: ToolCallPart
    read_only: bool
    title: str
    detail: str = ""


class PermissionDecided(msgspec.Struct, tag="permission_decided", frozen=True, kw_only=True):
    """The gate's decision on a call. ``asked`` is true when a person (or the headless rule
    that nobody can be asked) decided."""

    call_id: str
    tool: str
    outcome: PermissionOutcome
    reason: str
    rule: str | None = None
    asked: bool = False


class ToolFinished(msgspec.Struct, tag="tool_finished", frozen=True, kw_only=True):
    """A call's one result, as appended to history (errors, denials and interruptions
    included). ``display`` is what a front-end shows besides the text (a file change, the
    todo list, a shell's exit: ``core.tools.display``)."""

    result: ToolResultPart
    brief: str
    duration_ms: float
    display: Display = None


class ToolProgress(msgspec.Struct, tag="tool_progress", frozen=True, kw_only=True):
    """A running call's latest progress, sent between its ``PermissionDecided`` and its
    ``ToolFinished`` (never after). ``message`` is a line of status (an MCP server's
    progress message, the last lines of a running command; may be empty); ``progress`` of
    ``total`` is how far it got (``total`` None when the tool does not know it; both None
    when it only has a message). Each one replaces the call's previous one: a front-end
    shows the latest and forgets it when the call finishes. Calls report at their own pace;
    the loop drops reports when its consumer falls far behind, so none is load-bearing."""

    call_id: str
    message: str = ""
    progress: float | None = None
    total: float | None = None


class UserMessageInjected(msgspec.Struct, tag="user_message_injected", frozen=True, kw_only=True):
    """A queued (steering) message, appended between two model calls."""

    message: Message


class RetryInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A model call about to be retried: ``attempt`` (2 for the first retry) of
    ``max_attempts``, the failure's ``kind`` and a few-word ``reason``, the wait in seconds,
    and the failure in full (``error``)."""

    attempt: int
    max_attempts: int
    kind: ErrorKind
    reason: str
    delay_s: float
    error: str


class Notice(msgspec.Struct, tag="notice", frozen=True, kw_only=True):
    """Something to tell a person that does not change the outcome. ``retry`` is set when
    the notice announces a retry (sent before the wait, so a long wait never reads as a
    hang); ``message`` is then the status line: "retrying in 4 s (rate limited, attempt
    2/3)"."""

    level: Literal["info", "warning"]
    message: str
    retry: RetryInfo | None = None


class CompactionStarted(msgspec.Struct, tag="compaction_started", frozen=True, kw_only=True):
    reason: CompactionReason
    tokens_before: int


class CompactionEnded(msgspec.Struct, tag="compaction_ended", frozen=True, kw_only=True):
    """``ok`` is false when the summary call failed; the history is then unchanged."""

    reason: CompactionReason
    tokens_before: int
    tokens_after: int
    ok: bool
    message: str = ""


class VerificationRan(msgspec.Struct, tag="verification_ran", frozen=True, kw_only=True):
    """One configured check after a turn that changed files. ``exit_code`` is None when the
    command did not run (the permission gate refused it)."""

    command: str
    passed: bool
    exit_code: int | None
    output: str
    round: int


class HookRan(msgspec.Struct, tag="hook_ran", frozen=True, kw_only=True):
    """One hook command ran (``core/extend/hooks.py``): its ``event``, ``matcher`` and
    settings ``source``; ``exit_code`` (None: timed out); ``decision`` (``ok``, ``context``,
    ``ignored_allow``, ``ask``, ``block``, ``stop``, ``error``); ``output``: stdout then
    stderr, cut short."""

    event: str
    command: str
    matcher: str
    source: str
    exit_code: int | None
    duration_ms: float
    decision: str
    output: str

    @property
    def line(self) -> str:
        """One line for a person: ``hook PreToolUse `./check.sh`: block (exit 2, 12 ms)``."""
        code = "timed out" if self.exit_code is None else f"exit {self.exit_code}"
        return (
            f"hook {self.event} `{self.command}`: {self.decision} "
            f"({code}, {self.duration_ms:.0f} ms)"
        )


class PermissionDenial(msgspec.Struct, frozen=True, kw_only=True):
    """A call the gate (or the person asked) refused this turn, or one whose command the OS
    sandbox stopped and nobody allowed to run outside it, as ``TurnEnded`` lists it."""

    call_id: str
    tool: str
    input: JSONValue
    reason: str


class TurnEnded(msgspec.Struct, tag="turn_ended", frozen=True, kw_only=True):
    """The last event of a turn. ``text`` is the final assistant text; ``error`` is set when
    ``reason`` is ``error`` (the model call failed after retries)."""

    reason: StopReason
    text: str
    model_calls: int
    usage: Usage
    cost_usd: float | None
    total_usage: Usage
    total_cost_usd: float | None
    permission_denials: list[PermissionDenial] = []
    error_kind: ErrorKind | None = None
    error: str | None = None
    verification: Verification = "not_configured"


class SubagentEvent(msgspec.Struct, tag="subagent_event", frozen=True, kw_only=True):
    """One event of a subagent, as it happens: the child that the ``task`` call
    ``parent_call_id`` runs (agent ``agent``, doing ``description``) produced ``event``.

    The child's events come in their own order (``TurnStarted`` ... ``TurnEnded``, exactly
    the sequence above); children of one batch interleave, told apart by
    ``parent_call_id``. A child's own child arrives wrapped twice: the outer event names
    the parent's ``task`` call, the inner one the child's. The child's usage is already in
    the parent's totals when the ``task`` call's ``ToolFinished`` arrives; its
    ``AssistantMessage.total_usage`` and ``TurnEnded.total_*`` are the child's own."""

    parent_call_id: str
    agent: str
    description: str
    event: AgentEvent


AgentEvent: TypeAlias = (
    TurnStarted
    | ModelCallStarted
    | TextDelta
    | ReasoningDelta
    | ToolCallStreaming
    | AssistantMessage
    | ToolCallRequested
    | PermissionDecided
    | ToolFinished
    | ToolProgress
    | UserMessageInjected
    | CompactionStarted
    | CompactionEnded
    | VerificationRan
    | HookRan
    | Notice
    | TurnEnded
    | SubagentEvent
)


def result_text(result: ToolResultPart) -> str:
    """The text content of a tool result (images are left out)."""
    parts: list[str] = []
    for item in result.content:
        text = getattr(item, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


def progress_text(event: ToolProgress) -> str:
    """A running call's progress as one line: "copying (3/10)", "3/10", "uploading"."""
    done, total = event.progress, event.total
    message = " ".join(event.message.split())
    if done is None:
        return message
    amount = f"{done:g}/{total:g}" if total else f"{done:g}"
    return f"{message} ({amount})" if message else amount


def denial(call: ToolCallPart, reason: str) -> PermissionDenial:
    return PermissionDenial(call_id=call.id, tool=call.name, input=call.input, reason=reason)


__all__ = [
    "AgentEvent",
    "AssistantMessage",
    "CompactionEnded",
    "CompactionReason",
    "CompactionStarted",
    "HookRan",
    "ModelCallStarted",
    "Notice",
    "PermissionDecided",
    "PermissionDenial",
    "PermissionOutcome",
    "ReasoningDelta",
    "RetryInfo",
    "StopReason",
    "SubagentEvent",
    "TextDelta",
    "ToolCallRequested",
    "ToolCallStreaming",
    "ToolFinished",
    "ToolProgress",
    "TurnEnded",
    "TurnStarted",
    "UserMessageInjected",
    "Verification",
    "VerificationRan",
    "denial",
    "progress_text",
    "result_text",
]
