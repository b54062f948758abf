"""Verification: the user's configured checks, run after a turn that changed files.

Each command runs as a ``bash`` call through the session's permission gate, exactly as if
the model had asked: a deny rule refuses it, an ask decision goes to the approver (or, with
nobody to ask, leaves the check "blocked"). Failures are fed back to the model as a user
message, for up to ``rounds`` rounds; the turn's result then says passed, failed or blocked,
and never reports success over a failed check.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from earshot.core.approvals import Approval, ApprovalRequest, ApproveFn
from earshot.core.events import Verification, VerificationRan
from earshot.core.ports import Gate
from earshot.core.tools.base import AnyTool, ToolContext, ToolError
from earshot.core.tools.display import ShellExit
from earshot.providers import types as pt

OUTPUT_TAIL = 4_000


@dataclass
class Checks:
    """The outcome of one round, filled in while ``run`` yields its events."""

    outcome: Verification = "passed"
    failures: list[VerificationRan] = field(default_factory=list)


async def run(
    commands: Sequence[str],
    *,
    bash: AnyTool,
    ctx: ToolContext,
    gate: Gate,
    approve: ApproveFn | None,
    round: int,
    checks: Checks,
) -> AsyncIterator[VerificationRan]:
    """Run every command in order (all of them, so the model sees every failure)."""
    for number, command in enumerate(commands):
        try:
            prepared = bash.prepare({"command": command, "timeout": 600_000}, ctx)
        except ToolError as exc:
            event = VerificationRan(
                command=command, passed=False, exit_code=None, output=exc.message, round=round
            )
            checks.outcome = "blocked"
            yield event
            continue
        decision = gate.check(prepared.request, read_only=False)
        allowed = decision.outcome == "allow"
        why = decision.reason
        if decision.outcome == "ask" and approve is not None:
            call = pt.ToolCallPart(
                id=f"verify-{round}-{number}", name=bash.name, input={"command": command}
            )
            answer: Approval = await approve(
                ApprovalRequest(
                    call=call,
                    request=prepared.request,
                    reason=f"verification check: {decision.reason}",
                    title=f"verify: {command}",
                    parts=tuple(v.command for v in decision.commands),
                )
            )
            allowed = answer.decision != "deny"
            if allowed and answer.decision == "allow_session":
                gate.grant_session(prepared.request)
            why = answer.reason or "denied by the user"
        if not allowed:
            checks.outcome = "blocked"
            event = VerificationRan(
                command=command,
                passed=False,
                exit_code=None,
                output=f"not run: the permission gate refused it ({why})",
                round=round,
            )
            checks.failures.append(event)
            yield event
            continue
        result = await prepared.run()
        exit_code = result.display.exit_code if isinstance(result.display, ShellExit) else None
        text = "\n".join(p.text for p in result.content if isinstance(p, pt.TextPart))
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
        yield event


def suggest(cwd: Path) -> str | None:
    """A check this project probably uses, to show (never to run) when none is configured."""
    pyproject = cwd / "pyproject.toml"
    if (cwd / "pytest.ini").is_file() or (
        pyproject.is_file() and "pytest" in pyproject.read_text("utf-8", "replace")
    ):
        return "pytest -q"
    package = cwd / "package.json"
    if package.is_file():
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


__all__ = ["Checks", "feedback", "hint", "run", "suggest"]
