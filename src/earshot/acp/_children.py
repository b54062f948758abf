"""A running subagent as the content of its ``task`` tool call.

ACP has no nested tool calls, so a child (and its own children) shows inside the one tool
call the editor knows, the main agent's ``task`` call::

    SubagentEvent(t1, ToolCallRequested)   tool_call_update t1, content: the progress log
    SubagentEvent(t1, PermissionDecided)   (a denial marks the line)
    SubagentEvent(t1, ToolFinished)        the line gets the call's brief
    SubagentEvent(t1, AssistantMessage)    the text of the child's model call, clipped
    SubagentEvent(t1, Notice warning)      a line
    the task call's own ToolFinished       replaces the log with the child's report

Each update carries the whole log (``content`` replaces the collection in ACP), the last
``MAX_LINES`` lines of it. A child's call that a person was asked about in the editor
(``session/request_permission`` names the child's call) also gets its own
``tool_call_update`` when it ends, so the editor does not keep it pending. A child that
declares the scope updates the session's plan, as the main agent's declaration does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from acp.schema import ContentToolCallContent, ToolCallProgress

from earshot.acp._updates import Update, result_content, scope_plan, text
from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    PermissionDecided,
    SubagentEvent,
    ToolCallRequested,
    ToolFinished,
    result_text,
)
from earshot.core.tools.display import ScopeView
from earshot.providers.types import text_of

MAX_LINES = 40
MAX_TEXT = 400


def _clip(value: str, size: int = MAX_TEXT) -> str:
    value = value.strip()
    return value if len(value) <= size else value[: size - 1] + "…"


@dataclass
class _Log:
    """The progress of one top-level ``task`` call."""

    header: str
    lines: list[str] = field(default_factory=list)
    at: dict[str, int] = field(default_factory=dict)  # a child's call id -> its line

    def add(self, key: str | None, line: str) -> None:
        if key is not None:
            self.at[key] = len(self.lines)
        self.lines.append(line)

    def mark(self, key: str, line: str) -> None:
        index = self.at.get(key)
        if index is None:
            self.add(None, line)
        else:
            self.lines[index] = line

    def render(self) -> str:
        shown = self.lines[-MAX_LINES:]
        cut = len(self.lines) - len(shown)
        more = [f"… {cut} earlier lines"] if cut else []
        return "\n".join([self.header, *more, *shown])


class Children:
    """The subagents of one turn, by the main agent's ``task`` call id."""

    def __init__(self) -> None:
        self.logs: dict[str, _Log] = {}
        self.titles: dict[str, str] = {}
        self.asked: set[str] = set()

    def on(self, wrapped: SubagentEvent) -> list[Update]:
        top = wrapped.parent_call_id
        log = self.logs.setdefault(top, _Log(f"{wrapped.agent}: {wrapped.description}"))
        depth = 0
        event: AgentEvent = wrapped.event
        while isinstance(event, SubagentEvent):
            depth += 1
            event = event.event
        indent = "  " * depth
        updates: list[Update] = []
        changed = True
        match event:
            case ToolCallRequested(call=call, title=title):
                self.titles[call.id] = title or call.name
                log.add(call.id, f"{indent}→ {self.titles[call.id]}")
            case PermissionDecided(call_id=call_id, outcome=outcome, reason=reason, asked=asked):
                if asked:
                    self.asked.add(call_id)
                changed = outcome == "deny"
                if changed:
                    title = self.titles.get(call_id, event.tool)
                    log.mark(call_id, f"{indent}✗ {title} (denied: {reason})")
            case ToolFinished(result=result, brief=brief, display=display):
                title = self.titles.get(result.call_id, result.name)
                if not (result.is_error and brief == "denied"):
                    mark = "✗" if result.is_error else "✓"
                    log.mark(result.call_id, f"{indent}{mark} {title}: {brief}".rstrip(": "))
                if result.call_id in self.asked:
                    self.asked.discard(result.call_id)
                    updates.append(
                        ToolCallProgress(
                            session_update="tool_call_update",
                            tool_call_id=result.call_id,
                            status="failed" if result.is_error else "completed",
                            content=result_content(result_text(result)),
                        )
                    )
                if isinstance(display, ScopeView) and not result.is_error:
                    updates.append(scope_plan(display))
            case AssistantMessage(message=message):
                said = text_of(message)
                changed = bool(said.strip())
                if changed:
                    log.add(None, indent + _clip(said).replace("\n", "\n" + indent))
            case Notice(level="warning", message=message):
                log.add(None, f"{indent}! {_clip(message, 200)}")
            case _:
                changed = False
        if changed:
            block = ContentToolCallContent(type="content", content=text(log.render()))
            updates.insert(
                0,
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=top, content=[block]
                ),
            )
        return updates

    def finished(self, call_id: str) -> None:
        """The ``task`` call ended: its log is done (its result is the content now)."""
        self.logs.pop(call_id, None)


__all__ = ["MAX_LINES", "Children"]
