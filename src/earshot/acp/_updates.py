"""earshot's AgentEvents as ACP ``session/update`` notifications: the one mapping.

One turn, in the order ``core/loop/events.py`` documents::

    TextDelta                 agent_message_chunk
    ReasoningDelta            agent_thought_chunk
    ToolCallStreaming         tool_call (pending; kind and title from the tool name)
    AssistantMessage          usage_update (tokens in context, window, session USD)
    ToolCallRequested         tool_call_update (title, rawInput, locations; a new
                              tool_call when the call was never announced)
    PermissionDecided allow   tool_call_update in_progress (a denial ends as failed below)
    ToolProgress              tool_call_update in_progress, content: the progress as one
                              line ("step 2 of 5 (2/5)"), or a running command's last
                              lines (the result's content replaces it), _meta.earshot:
                              {progress, total} when the tool gave them
    ToolFinished              tool_call_update completed | failed, content: the result
                              text, and for a file change (the result's FileChange) the
                              whole old and new text; a TodoList also sends the plan
    UserMessageInjected       user_message_chunk
    TurnEnded                 tool_call_update failed for any call left open (an abort
                              mid-stream); the stop reason comes from STOP_REASONS
    TurnStarted, ModelCallStarted, Notice     nothing (notices go to the log); a retry
                                              notice is also a thought "[retrying in ...]"
    SubagentEvent             nothing here: ``_children`` makes them updates of the task
                              call's content

``replay`` turns a stored history into the same updates, tool calls completed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal, TypeAlias, assert_never

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    ContentToolCallContent,
    Cost,
    CurrentModeUpdate,
    FileEditToolCallContent,
    ImageContentBlock,
    PlanEntry,
    SessionInfoUpdate,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
)

from earshot.acp._tools import EDIT_TOOLS, kind_of, locations, title_of
from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    CompactionEnded,
    CompactionStarted,
    ModelCallStarted,
    Notice,
    PermissionDecided,
    ReasoningDelta,
    StopReason,
    SubagentEvent,
    TextDelta,
    ToolCallRequested,
    ToolCallStreaming,
    ToolFinished,
    ToolProgress,
    TurnEnded,
    TurnStarted,
    UserMessageInjected,
    VerificationRan,
    progress_text,
    result_text,
)
from earshot.core.tools.display import FileChange, ScopeView, TodoList
from earshot.core.tools.state import Todo
from earshot.providers.types import (
    ImagePart,
    JSONObject,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

log = logging.getLogger("earshot.acp")

Update: TypeAlias = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)
ToolContent: TypeAlias = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
AcpStopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]

STOP_REASONS: dict[StopReason, AcpStopReason | None] = {
    "end_turn": "end_turn",
    "length": "max_tokens",
    "max_turns": "max_turn_requests",
    # A spent budget stopped the agent before it finished, like a turn limit: saying
    # end_turn would tell the editor the work was done.
    "budget": "max_turn_requests",
    "refusal": "refusal",
    "aborted": "cancelled",
    "error": None,  # the prompt is answered with a JSON-RPC error instead
}
MAX_RESULT_CHARS = 64 * 1024
_PLAN_STATUS: dict[str, Literal["pending", "in_progress", "completed"]] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}


def text(value: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=value)


def said(value: str) -> AgentMessageChunk:
    return AgentMessageChunk(session_update="agent_message_chunk", content=text(value))


def thought(value: str) -> AgentThoughtChunk:
    return AgentThoughtChunk(session_update="agent_thought_chunk", content=text(value))


def result_content(body: str) -> list[ToolContent]:
    return [ContentToolCallContent(type="content", content=text(_capped(body)))] if body else []


def _capped(value: str) -> str:
    if len(value) <= MAX_RESULT_CHARS:
        return value
    cut = len(value) - MAX_RESULT_CHARS
    return value[:MAX_RESULT_CHARS] + f"\n[... {cut} more characters not shown ...]"


def _locations(call: ToolCallPart, cwd: Path) -> list[ToolCallLocation] | None:
    found = [ToolCallLocation(path=p, line=line) for p, line in locations(call, cwd)]
    return found or None


def raw_input(call: ToolCallPart, detail: str = "") -> JSONObject:
    """The call's arguments, plus ``detail`` (the real command or diff) when there is one."""
    args: JSONObject = dict(call.input) if isinstance(call.input, dict) else {"input": call.input}
    if detail:
        args["detail"] = detail
    return args


def diff_content(change: FileChange) -> FileEditToolCallContent | None:
    """The change as an ACP diff; None when it does not carry the whole texts."""
    if change.new is None:
        return None
    return FileEditToolCallContent(
        type="diff", path=change.path, old_text=change.old, new_text=change.new
    )


def usage_update(usage: Usage, window: int, cost_usd: float | None) -> UsageUpdate | None:
    """Tokens in context after a call (prompt + reply), the window, the session's USD."""
    if window <= 0:
        return None
    used = usage.prompt_total + usage.output
    cost = Cost(amount=round(cost_usd, 6), currency="USD") if cost_usd is not None else None
    return UsageUpdate(session_update="usage_update", used=used, size=window, cost=cost)


def scope_plan(scope: ScopeView) -> AgentPlanUpdate:
    """The declared scope as the session's plan: its steps, all pending (ACP has one plan:
    a later todo list replaces it in the editor, as a new declaration replaces the list)."""
    entries = [PlanEntry(content=step, priority="high", status="pending") for step in scope.steps]
    return AgentPlanUpdate(session_update="plan", entries=entries)


def plan_update(todos: list[Todo]) -> AgentPlanUpdate:
    entries = [
        PlanEntry(content=todo.content, priority="medium", status=_PLAN_STATUS[todo.status])
        for todo in todos
        if todo.status in _PLAN_STATUS
    ]
    return AgentPlanUpdate(session_update="plan", entries=entries)


class Turn:
    """The updates of one turn. ``cost`` gives the session's USD total so far (the
    transcript's, so a loaded session counts its earlier calls)."""

    def __init__(self, cwd: Path, window: int, cost: Callable[[], float | None]) -> None:
        self.cwd = cwd
        self.window = window
        self.cost = cost
        self.open: dict[str, ToolCallPart | str] = {}  # call id -> the call, or its name
        self.checks = 0

    def on(self, event: AgentEvent) -> list[Update]:
        match event:
            case TextDelta():
                return [
                    AgentMessageChunk(
                        session_update="agent_message_chunk", content=text(event.text)
                    )
                ]
            case ReasoningDelta():
                return [
                    AgentThoughtChunk(
                        session_update="agent_thought_chunk", content=text(event.text)
                    )
                ]
            case ToolCallStreaming():
                self.open[event.id] = event.name
                return [
                    ToolCallStart(
                        session_update="tool_call",
                        tool_call_id=event.id,
                        title=event.name,
                        kind=kind_of(event.name),
                        status="pending",
                    )
                ]
            case AssistantMessage():
                update = usage_update(event.usage, self.window, self.cost())
                return [update] if update is not None else []
            case ToolCallRequested():
                return [self._requested(event)]
            case PermissionDecided():
                if event.outcome != "allow":
                    return []
                return [
                    ToolCallProgress(
                        session_update="tool_call_update",
                        tool_call_id=event.call_id,
                        status="in_progress",
                    )
                ]
            case ToolFinished():
                return self._finished(event)
            case UserMessageInjected():
                return user_chunks(event.message)
            case Notice():
                level = logging.WARNING if event.level == "warning" else logging.INFO
                log.log(level, "%s", event.message)
                if event.retry is not None:  # ACP has no status line: a thought says it
                    return [thought(f"[{event.message}]\n")]
                return []
            case CompactionStarted():
                return [thought(f"[compacting the conversation: {event.tokens_before:,} tokens]\n")]
            case CompactionEnded():
                if event.ok:
                    return [thought(f"[compacted to {event.tokens_after:,} tokens]\n")]
                return [thought(f"[compaction failed: {event.message}]\n")]
            case VerificationRan():
                return self._verified(event)
            case TurnEnded():
                return self._close_open()
            case ToolProgress():
                return self._progress(event)
            case TurnStarted() | ModelCallStarted() | SubagentEvent():
                return []
            case _:
                assert_never(event)

    def _requested(self, event: ToolCallRequested) -> Update:
        call = event.call
        announced = call.id in self.open
        self.open[call.id] = call
        kind = kind_of(call.name)
        raw = raw_input(call, event.detail)
        where = _locations(call, self.cwd)
        if announced:
            return ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=call.id,
                title=event.title,
                kind=kind,
                status="pending",
                raw_input=raw,
                locations=where,
            )
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=call.id,
            title=event.title,
            kind=kind,
            status="pending",
            raw_input=raw,
            locations=where,
        )

    def _verified(self, event: VerificationRan) -> list[Update]:
        self.checks += 1
        verdict = "passed" if event.passed else "failed"
        body = event.output or f"{event.command}: {verdict}"
        return [
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=f"verify-{event.round}-{self.checks}",
                title=f"verify: {event.command}",
                kind="execute",
                status="completed" if event.passed else "failed",
                raw_input={"command": event.command, "round": event.round},
                raw_output={"exit_code": event.exit_code, "passed": event.passed},
                content=result_content(body),
            )
        ]

    def permission_call(
        self, call: ToolCallPart, title: str, detail: str, change: FileChange | None
    ) -> ToolCallUpdate:
        """The tool call as a ``session/request_permission`` shows it: ``rawInput.detail``
        is the real command or unified diff, and a file change comes as a diff too."""
        content: list[ToolContent] = []
        diff = diff_content(change) if change is not None else None
        if diff is not None:
            content.append(diff)
        elif detail:
            fence = "```diff" if call.name in EDIT_TOOLS else "```"
            content.append(
                ContentToolCallContent(type="content", content=text(f"{fence}\n{detail}\n```"))
            )
        return ToolCallUpdate(
            tool_call_id=call.id,
            title=title,
            kind=kind_of(call.name),
            status="pending",
            raw_input=raw_input(call, detail),
            content=content or None,
            locations=_locations(call, self.cwd),
        )

    def _finished(self, event: ToolFinished) -> list[Update]:
        result = event.result
        self.open.pop(result.call_id, None)
        content: list[ToolContent] = []
        display = event.display
        diff = diff_content(display) if isinstance(display, FileChange) else None
        if diff is not None and not result.is_error:
            content.append(diff)
        content += result_content(result_text(result))
        raw_output: JSONObject = {"brief": event.brief, "is_error": result.is_error}
        updates: list[Update] = [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=result.call_id,
                status="failed" if result.is_error else "completed",
                content=content,
                raw_output=raw_output,
            )
        ]
        if isinstance(display, TodoList) and not result.is_error:
            updates.append(plan_update(display.todos))
        if isinstance(display, ScopeView) and not result.is_error:
            updates.append(scope_plan(display))
        return updates

    def _progress(self, event: ToolProgress) -> list[Update]:
        if event.call_id not in self.open:
            return []
        # output (a message with no count: a command's last lines) keeps its lines
        line = event.message.strip("\n") if event.progress is None else progress_text(event)
        meta: dict[str, object] | None = None
        if event.progress is not None:
            meta = {"earshot": {"progress": event.progress, "total": event.total}}
        return [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=event.call_id,
                status="in_progress",
                content=result_content(line) or None,
                field_meta=meta,
            )
        ]

    def _close_open(self) -> list[Update]:
        updates: list[Update] = [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=call_id,
                status="failed",
                content=[
                    ContentToolCallContent(
                        type="content", content=text("interrupted before this call ran")
                    )
                ],
            )
            for call_id in self.open
        ]
        self.open.clear()
        return updates


def user_chunks(message: Message) -> list[Update]:
    updates: list[Update] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            updates.append(
                UserMessageChunk(session_update="user_message_chunk", content=text(part.text))
            )
        elif isinstance(part, ImagePart) and part.data:
            image = ImageContentBlock(type="image", data=part.data, mime_type=part.media_type)
            updates.append(UserMessageChunk(session_update="user_message_chunk", content=image))
    return updates


def replay(history: list[Message], cwd: Path) -> list[Update]:
    """A stored conversation as updates: user and assistant text, reasoning, and each tool
    call as one completed (or failed) ``tool_call`` with its result."""
    results: dict[str, ToolResultPart] = {
        part.call_id: part
        for message in history
        if message.role == "tool"
        for part in message.parts
        if isinstance(part, ToolResultPart)
    }
    updates: list[Update] = []
    for message in history:
        if message.role == "user":
            updates += user_chunks(message)
        elif message.role == "assistant":
            for part in message.parts:
                if isinstance(part, TextPart) and part.text:
                    updates.append(
                        AgentMessageChunk(
                            session_update="agent_message_chunk", content=text(part.text)
                        )
                    )
                elif isinstance(part, ReasoningPart) and part.text:
                    updates.append(
                        AgentThoughtChunk(
                            session_update="agent_thought_chunk", content=text(part.text)
                        )
                    )
                elif isinstance(part, ToolCallPart):
                    updates.append(_replayed_call(part, results.get(part.id), cwd))
    return updates


def _replayed_call(call: ToolCallPart, result: ToolResultPart | None, cwd: Path) -> ToolCallStart:
    body = result_text(result) if result is not None else "interrupted before this call ran"
    failed = result is None or result.is_error
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=call.id,
        title=title_of(call),
        kind=kind_of(call.name),
        status="failed" if failed else "completed",
        raw_input=raw_input(call),
        locations=_locations(call, cwd),
        content=[ContentToolCallContent(type="content", content=text(_capped(body)))]
        if body
        else None,
    )


__all__ = [
    "MAX_RESULT_CHARS",
    "STOP_REASONS",
    "AcpStopReason",
    "ToolContent",
    "Turn",
    "Update",
    "diff_content",
    "plan_update",
    "raw_input",
    "replay",
    "result_content",
    "said",
    "text",
    "thought",
    "usage_update",
    "user_chunks",
]
