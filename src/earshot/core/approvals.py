"""What a front-end answers when the permission gate asks a person.

A front-end passes ``approve`` (an ``ApproveFn``) to ``create_session``; the loop calls it
with an ``ApprovalRequest`` for each call the gate decided to ask about, and acts on the
``Approval``. Nothing a front-end returns can widen a permission beyond "allow this call" or
"allow exactly these parts for the session"; deny rules are decided before anyone is asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from earshot.core.tools.base import PermissionRequest
from earshot.providers.types import ToolCallPart


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest:
    """A call the gate wants a person to approve. ``request.detail`` is the real command or
    diff; ``parts`` lists each command or file change the gate judged, which is exactly what
    "allow for this session" grants (a prompt should show them)."""

    call: ToolCallPart
    request: PermissionRequest
    reason: str
    title: str
    parts: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Approval:
    decision: Literal["allow_once", "allow_session", "deny"]
    reason: str = ""


ApproveFn = Callable[[ApprovalRequest], Awaitable[Approval]]


__all__ = ["Approval", "ApprovalRequest", "ApproveFn"]
