"""``task``: delegate a job to a subagent that works in a fresh context and reports back.

The tool itself never prompts (delegating changes nothing): everything the child does goes
through the parent's gate, rules, session grants, mode and scope contract. It is built per
session (``make_tool``) because its description lists the agents available. The work is
done by the ``spawn`` the loop puts in the tool context (``core/loop/subagent.py``); where
no more nesting is allowed there is no ``spawn`` and no ``task`` tool.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from earshot.core.tools.base import (
    AnyTool,
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)

NAME = "task"


class TaskArgs(msgspec.Struct, kw_only=True):
    description: str
    """A short (3-5 word) description of the task."""
    prompt: str
    """The whole task for the agent: it sees nothing of this conversation but this."""
    agent: str | None = None
    """Which agent runs it (default: general-purpose)."""


def _permission(args: TaskArgs, ctx: ToolContext) -> PermissionRequest:
    return PermissionRequest(tool=NAME, kind="other", detail=args.description)


async def _execute(args: TaskArgs, ctx: ToolContext) -> ToolResult:
    if ctx.spawn is None:
        raise ToolError("subagents cannot start further subagents here; do the work yourself")
    return await ctx.spawn(ctx.call_id, args.description, args.prompt, args.agent)


def make_tool(agents: Sequence[tuple[str, str]], default: str) -> AnyTool:
    """The task tool, its description listing ``agents`` (name, description) and naming the
    ``default`` one, which runs a task that names none."""
    listed = "\n".join(f"- {name}: {description}" for name, description in agents)
    return define_tool(
        name=NAME,
        description=f"""
Delegate a self-contained task to a subagent. It sees none of this conversation (put all it
needs in `prompt`), works under your permissions, and returns its report and what it
changed. Use it to keep long searches and side jobs out of your context. Several task calls
in one reply run in parallel when their agents are read-only.
`agent` (default {default}):
{listed}
""",
        input_type=TaskArgs,
        execute=_execute,
        read_only=True,
        permission=_permission,
    )


__all__ = ["NAME", "TaskArgs", "make_tool"]
