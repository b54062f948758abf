"""The state of one turn, shared by the steps of ``Agent._turn`` (see ``agent.py``).

::

    Turn.next    after each step: "go" on to the next step, "again" to another model
                 call, "stop" to the end of the turn (``stop(reason)`` sets both)
    STOP_FOR_FINISH   how a model call's finish reason ends a turn that made no tool calls
    interrupted(partial)   the "interrupted" results for the tool calls of a cut-short call
"""

from __future__ import annotations

from typing import Literal

import msgspec

from earshot.core.loop.events import PermissionDenial, StopReason, Verification
from earshot.providers import types as pt

STOP_FOR_FINISH: dict[pt.FinishReason, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "end_turn",
    "length": "length",
    "refusal": "refusal",
    "error": "error",
    "aborted": "aborted",
}


class Turn(msgspec.Struct):
    """The state of one turn, shared by its steps. ``next`` is what follows a step: "go"
    on to the next step, "again" to another model call, "stop" to the end of the turn."""

    verification: Verification
    next: Literal["go", "again", "stop"] = "go"
    reason: StopReason = "end_turn"
    calls: int = 0
    finish: pt.Finish | None = None
    error: pt.ErrorEvent | None = None
    tool_calls: list[pt.ToolCallPart] = msgspec.field(default_factory=list)
    final_text: str = ""
    denials: list[PermissionDenial] = msgspec.field(default_factory=list)
    squeezed: int = 0
    """Compactions after context overflows since the last model call that fitted."""
    changed: bool = False
    verify_round: int = 0
    feedback: pt.Message | None = None
    """Failed checks to hand back to the model (then ``next`` is "again")."""
    request: pt.ModelRequest | None = None
    """The next model call's request, built (and measured) once by the step before it."""

    @property
    def going(self) -> bool:
        return self.next == "go"

    def stop(self, reason: StopReason) -> None:
        self.reason = reason
        self.next = "stop"


def interrupted(partial: pt.Message) -> pt.Message | None:
    """One "interrupted" result for each tool call of a cut-short model call (None when it
    made none), so the next request is valid for every provider."""
    calls = [p for p in partial.parts if isinstance(p, pt.ToolCallPart)]
    if not calls:
        return None
    results: list[pt.Part] = [
        pt.ToolResultPart(
            call_id=call.id,
            name=call.name,
            content=[pt.TextPart(text="interrupted before this call ran")],
            is_error=True,
        )
        for call in calls
    ]
    return pt.Message(role="tool", parts=results)


__all__ = ["STOP_FOR_FINISH", "Turn", "interrupted"]
