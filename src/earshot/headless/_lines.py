"""The text mode's lines for a person (``earshot -p`` without ``--output-format``): why a
turn did not succeed and which calls were refused, each with the way out. ``render`` writes
them on stderr; the ``result`` record's ``error`` object comes from here too."""

from __future__ import annotations

from typing import assert_never

from earshot.core.loop.events import TurnEnded
from earshot.core.tools.base import SANDBOX_REFUSAL
from earshot.providers.types import JSONValue


def error_detail(ended: TurnEnded) -> dict[str, JSONValue] | None:
    """The ``error`` object of a ``result`` record: the kind and message of a failed turn."""
    if ended.reason != "error" and ended.error is None:
        return None
    return {
        "kind": ended.error_kind or "unknown",
        "message": ended.error or "the model call failed",
    }


def failure_line(ended: TurnEnded) -> str:
    """One line for a person, saying why a turn did not succeed."""
    match ended.reason:
        case "end_turn":
            return ""
        case "error":
            detail = error_detail(ended) or {}
            line = f"the model call failed ({detail.get('kind')}): {detail.get('message')}"
            if ended.error_kind == "stream_incomplete":
                line += '; the partial answer is kept: earshot -p "continue" -c picks up from it'
            return line
        case "max_turns":
            return f"stopped after {ended.model_calls} model calls: the --max-turns limit"
        case "budget":
            return "stopped: the --max-budget-usd budget is spent"
        case "length":
            return "stopped: the model reached its output token limit"
        case "refusal":
            return "stopped: the model refused"
        case "aborted":
            return "interrupted"
        case unreachable:
            assert_never(unreachable)


def denied_line(ended: TurnEnded) -> str:
    """One line naming the calls that were refused, so a text run that changed nothing
    does not look like a success (``earshot: 3 tool calls were denied (bash ×2, edit)``),
    and the way out: a looser permission mode for the gate's refusals, ``--sandbox off``
    for commands the OS sandbox stopped."""
    denials = ended.permission_denials
    if not denials:
        return ""
    counts: dict[str, int] = {}
    for denial in denials:
        counts[denial.tool] = counts.get(denial.tool, 0) + 1
    tools = ", ".join(f"{tool} ×{n}" if n > 1 else tool for tool, n in counts.items())
    calls = "1 tool call was" if len(denials) == 1 else f"{len(denials)} tool calls were"
    boxed = sum(d.reason.startswith(SANDBOX_REFUSAL) for d in denials)
    ways = []
    if boxed < len(denials):
        ways.append("--permission-mode accept-edits or auto, or --allow RULE")
    if boxed:
        commands = "1 command" if boxed == 1 else f"{boxed} commands"
        ways.append(f"--sandbox off (the OS sandbox stopped {commands})")
    return f"{calls} denied ({tools}); rerun with " + "; or ".join(ways)


__all__ = ["denied_line", "error_detail", "failure_line"]
