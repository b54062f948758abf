"""The ``bash_output`` tool: what a background shell printed since the last look.

Reading consumes: each call returns only output not returned before (with ``filter``, the
lines that did not match are consumed too). Output is capped head+tail like ``bash``'s;
what a shell printed beyond its unread buffer (the oldest first) is named by a marker.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec

from earshot.core.tools._output import cap_text, cut_marker
from earshot.core.tools._shell import BACKGROUND_BUFFER_CHARS, get_shell
from earshot.core.tools.base import ToolContext, ToolError, ToolResult, define_tool
from earshot.core.tools.bash import MAX_OUTPUT_CHARS, MAX_OUTPUT_LINES
from earshot.core.tools.display import ShellStatus

DESCRIPTION = f"""
A background shell's new output since the last call (stdout and stderr merged), then its
status: `running`, `exited with code N` or `killed`. Unread output beyond
{BACKGROUND_BUFFER_CHARS // (1024 * 1024)} MiB loses its oldest part: check long-running
shells regularly.
"""


class BashOutputInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    shell_id: Annotated[str, msgspec.Meta(description="The id bash returned (bash_1)")]
    filter: Annotated[
        str | None,
        msgspec.Meta(description="Python regex: keep only matching new lines, drop the rest"),
    ] = None


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolError(
            f"filter {pattern!r} is not a valid regular expression: {exc}; fix it or omit it",
            "invalid filter",
        ) from exc


async def _execute(args: BashOutputInput, ctx: ToolContext) -> ToolResult:
    shell = get_shell(ctx.state, args.shell_id)
    pattern = _compile(args.filter) if args.filter is not None else None
    status = shell.status()
    if status != "running":
        await shell.settle()
    text, dropped_chars, dropped_lines = shell.take_output()
    parts: list[str] = []
    if dropped_chars:
        parts.append(
            cut_marker(
                lines=dropped_lines,
                chars=dropped_chars,
                hint="the oldest unread output was dropped; call bash_output more often",
            )
        )
    if pattern is not None:
        lines = text.splitlines(keepends=True)
        kept = [line for line in lines if pattern.search(line.rstrip("\r\n"))]
        text = "".join(kept)
        parts.append(f"(filter kept {len(kept)} of {len(lines)} new lines)")
    if text:
        capped = cap_text(
            text,
            max_chars=MAX_OUTPUT_CHARS,
            max_lines=MAX_OUTPUT_LINES,
            hint="the cut part is not shown again; use filter to pick the lines you need",
        )
        parts.append(capped.replace("\r\n", "\n").rstrip("\n"))
    elif pattern is None:
        parts.append("(no new output)")
    parts.append(f"status: {status}")
    return ToolResult.text(
        "\n".join(parts),
        brief=f"{shell.id}: {status}",
        display=ShellStatus(shell_id=shell.id, status=status),
    )


TOOL = define_tool(
    name="bash_output",
    description=DESCRIPTION,
    input_type=BashOutputInput,
    execute=_execute,
    read_only=True,
    touches_files=False,
)

__all__ = ["DESCRIPTION", "TOOL", "BashOutputInput"]
