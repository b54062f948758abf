"""What a front-end answers when the permission gate asks a person.

A front-end passes ``approve`` (an ``ApproveFn``) to ``AgentSession.open``; the loop calls it
with an ``ApprovalRequest`` for each call the gate decided to ask about, and acts on the
``Approval``. Nothing a front-end returns can widen a permission beyond "allow this call" or
"allow exactly these parts for the session"; deny rules are decided before anyone is asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

import anyio
import msgspec

from earshot._base.aio import race
from earshot.core.tools.base import EscalateFn, PermissionRequest
from earshot.providers.types import ToolCallPart

if TYPE_CHECKING:
    from earshot.core.loop.ports import Gate


class ApprovalRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A call the gate wants a person to approve. ``request.detail`` is the real command or
    diff; ``parts`` lists each command or file change the gate judged, which is exactly what
    "allow for this session" grants (a prompt should show them)."""

    call: ToolCallPart
    request: PermissionRequest
    reason: str
    title: str
    parts: tuple[str, ...] = ()


class Approval(msgspec.Struct, frozen=True, kw_only=True):
    decision: Literal["allow_once", "allow_session", "deny"]
    reason: str = ""


ApproveFn = Callable[[ApprovalRequest], Awaitable[Approval]]


def sandbox_escalation(
    approve: ApproveFn | None, gate: Gate, abort: anyio.Event
) -> EscalateFn | None:
    """How a tool asks to run a command again outside the OS sandbox: through the same
    approver as every prompt, raced against ``abort``. None where nobody can be asked
    (headless). In yolo mode nobody is asked and the answer is no: yolo skips prompts, it
    does not lift the sandbox. "Allow for the session" counts as once: the sandbox is never
    lifted for later commands."""
    if approve is None:
        return None

    async def escalate(request: PermissionRequest, why: str) -> bool:
        if gate.mode == "yolo":
            return False
        call = ToolCallPart(
            id="sandbox-escalation", name=request.tool, input={"command": request.command or ""}
        )
        ask = ApprovalRequest(
            call=call,
            request=request,
            reason=f"the OS sandbox seems to have stopped it: {why}",
            title="Run this command again outside the sandbox?",
        )
        answer, aborted = await race(lambda: approve(ask), abort)
        return not aborted and answer is not None and answer.decision != "deny"

    return escalate


__all__ = ["Approval", "ApprovalRequest", "ApproveFn", "sandbox_escalation"]
