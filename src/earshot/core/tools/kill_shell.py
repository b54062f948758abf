"""The ``kill_shell`` tool: stop a background shell and every process it started.

The shell stays known after it is killed: ``bash_output`` still returns its unread
output and reports it as killed.
"""

from __future__ import annotations

import anyio
import msgspec

from earshot.core.tools._shell import get_shell
from earshot.core.tools.base import PermissionRequest, ToolContext, ToolResult, define_tool
from earshot.core.tools.display import ShellStatus

KILL_WAIT_S = 5.0

DESCRIPTION = """
Stop a background shell and all it started; its unread output stays readable.
"""


class KillShellInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    shell_id: str


async def _execute(args: KillShellInput, ctx: ToolContext) -> ToolResult:
    shell = get_shell(ctx.state, args.shell_id)
    if not shell.running:
        status = shell.status()
        return ToolResult.text(
            f"{shell.id} was not running ({status}); nothing to kill",
            brief=f"{shell.id}: {status}",
        )
    shell.kill()
    with anyio.move_on_after(KILL_WAIT_S):
        await shell.wait()
    status = shell.status()
    return ToolResult.text(
        f"killed {shell.id} and the processes it started (status: {status}); its unread "
        "output can still be read with bash_output",
        brief=f"killed {shell.id}",
        display=ShellStatus(shell_id=shell.id, status=status),
    )


def _permission(args: KillShellInput, ctx: ToolContext) -> PermissionRequest:
    shell = ctx.state.shells.get(args.shell_id)
    what = f": {shell.command}" if shell is not None else " (no such shell)"
    return PermissionRequest(
        tool="kill_shell", kind="execute", detail=f"kill background shell {args.shell_id}{what}"
    )


TOOL = define_tool(
    name="kill_shell",
    description=DESCRIPTION,
    input_type=KillShellInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = ["DESCRIPTION", "TOOL", "KillShellInput"]
