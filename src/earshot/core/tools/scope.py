"""The scope contract and ``declare_scope``: what the model says it is doing, the path globs
it means to change, and the steps of its plan.

One ``ScopeContract`` per session, held by the permission gate and shared (the same object,
never a copy) by every subagent. The first declaration never prompts: it only narrows. From
then on the gate asks before any change outside the declared paths, in every mode but yolo
(an allow rule or auto mode cannot allow it), and a new declaration that widens the paths
asks with the difference. The declarations are ``declare_scope`` calls in the transcript;
resume replays them (``replay``).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.contract import ScopeContract
from earshot.core.tools.display import ScopeView
from earshot.providers.types import JSONValue


class DeclareScopeArgs(msgspec.Struct, kw_only=True):
    goal: str
    """What you are doing, in one sentence."""
    paths: list[str]
    """The path globs (relative to the working directory) you mean to change, e.g. src/**."""
    steps: list[str] = []
    """The steps of your plan, in order."""


def _permission(args: DeclareScopeArgs, ctx: ToolContext) -> PermissionRequest:
    scope = ctx.scope
    wider = scope.widening(args.paths) if scope is not None else []
    detail = f"widens the declared scope by: {', '.join(wider)}" if wider else ""
    return PermissionRequest(
        tool="declare_scope", kind="other", detail=detail, scope_paths=tuple(wider)
    )


async def _execute(args: DeclareScopeArgs, ctx: ToolContext) -> ToolResult:
    if ctx.scope is None:
        raise ToolError("this session has no scope contract", "no scope contract")
    if not args.goal.strip() or not args.paths:
        raise ToolError("declare_scope needs a goal and at least one path glob")
    ctx.scope.declare(args.goal, args.paths, args.steps)
    return ToolResult.text(
        "Scope declared. Changes outside these paths will need the user's approval.\n"
        + ctx.scope.text(),
        brief=f"scope: {', '.join(args.paths)}",
        display=ScopeView(goal=args.goal, paths=list(args.paths), steps=list(args.steps)),
    )


TOOL = define_tool(
    name="declare_scope",
    description="""
Declare once, before changing files: the goal, the path globs you will change (relative to
the working directory; `src/**` is all under src) and your plan's steps. Then a change
outside those paths needs the user's approval, and so do the paths a later declaration
adds.
""",
    input_type=DeclareScopeArgs,
    execute=_execute,
    read_only=True,
    permission=_permission,
)


def replay(scope: ScopeContract, calls: Iterable[tuple[JSONValue, bool]]) -> None:
    """Restore ``scope`` from the ``declare_scope`` calls of a transcript (their arguments,
    and whether the call failed), in order: what resume does."""
    for raw, failed in calls:
        if failed:
            continue
        try:
            args = msgspec.convert(raw, DeclareScopeArgs)
        except msgspec.ValidationError:
            continue
        scope.declare(args.goal, args.paths, args.steps)


__all__ = ["TOOL", "DeclareScopeArgs", "ScopeContract", "replay"]
