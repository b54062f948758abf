"""Verification: the user's configured checks, run after a turn that changed files.

The commands run as one batch of ``bash`` calls (``ToolBatch``, the batch every tool call
goes through), exactly as if the model had asked: a deny rule refuses one, an ask decision
goes to the approver, raced against an abort (or, with nobody to ask, leaves the check
"blocked" with the gate's reason); no undo snapshot is taken for them. Failures are fed
back to the model as a user message, for up to ``rounds`` rounds; the turn's result then
says passed, failed or blocked, and never reports success over a failed check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import msgspec

from earshot.core.loop._execute import ToolBatch
from earshot.core.loop.approvals import ApproveFn
from earshot.core.loop.events import (
    PermissionDecided,
    ToolFinished,
    Verification,
    VerificationRan,
    result_text,
)
from earshot.core.loop.ports import Gate
from earshot.core.loop.turn import Turn
from earshot.core.tools.base import ToolContext
from earshot.core.tools.display import ShellExit
from earshot.providers import types as pt

OUTPUT_TAIL = 4_000


class Checks(msgspec.Struct):
    """The outcome of one round, filled in while ``run`` yields its events."""

    outcome: Verification = "passed"
    failures: list[VerificationRan] = msgspec.field(default_factory=list)


async def run(
    commands: Sequence[str],
    *,
    ctx: ToolContext,
    gate: Gate,
    approve: ApproveFn | None,
    round: int,
    checks: Checks,
) -> AsyncIterator[VerificationRan]:
    """Run every command in order (all of them, so the model sees every failure), as one
    batch of ``bash`` calls through the gate and the approval path every call takes."""
    from earshot.core.tools import bash  # the shell tool loads with the first check

    calls = [
        pt.ToolCallPart(
            id=f"verify-{round}-{number}",
            name=bash.TOOL.name,
            input={"command": command, "timeout": 600_000},
        )
        for number, command in enumerate(commands)
    ]
    batch = ToolBatch(
        tools={bash.TOOL.name: bash.TOOL},
        ctx=ctx,
        gate=gate,
        approve=approve,
        reason_prefix="verification check: ",
        unanswered=None,
    )
    command_of = {call.id: command for call, command in zip(calls, commands, strict=True)}
    decided: dict[str, PermissionDecided] = {}
    async for event in batch.run(calls):
        if isinstance(event, PermissionDecided):
            decided[event.call_id] = event
        elif isinstance(event, ToolFinished):
            call_id = event.result.call_id
            yield _checked(command_of[call_id], event, decided.get(call_id), round, checks)


def _checked(
    command: str,
    finished: ToolFinished,
    decided: PermissionDecided | None,
    round: int,
    checks: Checks,
) -> VerificationRan:
    """One check's outcome: blocked when it never ran (refused, or its arguments were),
    passed when bash exited 0."""
    result = finished.result
    text = result_text(result)
    if decided is None or decided.outcome == "deny":
        checks.outcome = "blocked"
        output = (
            text
            if decided is None
            else (f"not run: the permission gate refused it ({decided.reason})")
        )
        event = VerificationRan(
            command=command, passed=False, exit_code=None, output=output, round=round
        )
        if decided is not None:
            checks.failures.append(event)
        return event
    display = finished.display
    exit_code = display.exit_code if isinstance(display, ShellExit) else None
    passed = exit_code == 0 and not result.is_error
    event = VerificationRan(
        command=command,
        passed=passed,
        exit_code=exit_code,
        output=text[-OUTPUT_TAIL:],
        round=round,
    )
    if not passed:
        checks.failures.append(event)
        if checks.outcome == "passed":
            checks.outcome = "failed"
    return event


async def after_turn(
    turn: Turn,
    commands: Sequence[str],
    rounds: int,
    ctx: ToolContext,
    gate: Gate,
    approve: ApproveFn | None,
) -> AsyncIterator[VerificationRan]:
    """One round of checks after a turn that changed files: ``turn.verification`` says
    how it went; a failed round with rounds left sets ``turn.feedback`` and asks for
    another model call."""
    turn.verify_round += 1
    turn.changed = False
    checks = Checks()
    async for event in run(
        commands, ctx=ctx, gate=gate, approve=approve, round=turn.verify_round, checks=checks
    ):
        yield event
    turn.verification = checks.outcome
    turn.feedback = None
    if checks.outcome == "failed" and turn.verify_round < rounds:
        turn.feedback = feedback(checks.failures)
        turn.next = "again"


def suggest(cwd: Path) -> str | None:
    """A check this project probably uses, to show (never to run) when none is configured."""
    pyproject = cwd / "pyproject.toml"
    if (cwd / "pytest.ini").is_file() or (
        pyproject.is_file() and "pytest" in pyproject.read_text("utf-8", "replace")
    ):
        return "pytest -q"
    package = cwd / "package.json"
    if package.is_file():
        import json  # only for a package.json

        try:
            scripts = json.loads(package.read_text("utf-8")).get("scripts", {})
        except (ValueError, AttributeError):
            scripts = {}
        if isinstance(scripts, dict) and "test" in scripts:
            return "npm test"
    if (cwd / "Cargo.toml").is_file():
        return "cargo test"
    if (cwd / "go.mod").is_file():
        return "go test ./..."
    return None


def hint(command: str) -> str:
    return (
        f"files changed and no verification is configured; this project looks like it uses "
        f'`{command}`: add "verify": ["{command}"] to .earshot/settings.json to run it after '
        "each turn that changes files"
    )


def feedback(failures: Sequence[VerificationRan]) -> pt.Message:
    """The user message that hands failing checks back to the model."""
    blocks = [
        f"$ {f.command}\n(exit code {f.exit_code if f.exit_code is not None else 'none'})\n"
        f"{f.output}"
        for f in failures
    ]
    text = (
        "The project's verification checks failed after your changes. Fix the cause (not "
        "the checks), then stop; they will run again.\n\n" + "\n\n".join(blocks)
    )
    return pt.Message(role="user", parts=[pt.TextPart(text=text)])


__all__ = ["Checks", "after_turn", "feedback", "hint", "run", "suggest"]
