"""What the TUI was started with, and how it opens (or replaces) the session it works in.

``/clear``, ``/resume`` and ``/fork`` replace the session: the old agent is closed (its
background shells killed) and its transcript lock released before the new one is used.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the UI is on screen before core is imported (see ``main``)
    from earshot.core.approvals import ApproveFn
    from earshot.core.factory import SessionSetup
    from earshot.core.tools.base import AskFn


@dataclass(frozen=True, kw_only=True)
class TuiOptions:
    cwd: Path
    model: str | None = None
    permission_mode: str | None = None
    sandbox: str | None = None
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    resume: str | None = None
    continue_latest: bool = False
    fork: bool = False
    prompt: str | None = None
    images: tuple[str, ...] = ()
    append_system_prompt: str = ""
    max_budget_usd: float | None = None
    effort: str | None = None


def open_setup(
    options: TuiOptions,
    *,
    approve: ApproveFn,
    ask: AskFn,
    model: str | None = None,
    mode: str | None = None,
) -> SessionSetup:
    """A session as ``options`` say (``model``/``mode`` override them, for a session that
    replaces another mid-run)."""
    from earshot.core.factory import create_session
    from earshot.providers.effort import parse_effort

    return create_session(
        effort=parse_effort(options.effort, where="--effort") if options.effort else None,
        cwd=options.cwd,
        model=model or options.model,
        permission_mode=mode or options.permission_mode,
        sandbox=options.sandbox,
        allow=options.allow,
        ask_rules=options.ask,
        deny=options.deny,
        resume=options.resume,
        continue_latest=options.continue_latest,
        fork=options.fork,
        approve=approve,
        ask=ask,
        max_budget_usd=options.max_budget_usd,
        append_system_prompt=options.append_system_prompt,
    )


def fresh(options: TuiOptions) -> TuiOptions:
    """The options for a new, empty session (``/clear``)."""
    return replace(options, resume=None, continue_latest=False, fork=False, prompt=None)


def resuming(options: TuiOptions, session_id: str, *, fork: bool = False) -> TuiOptions:
    return replace(options, resume=session_id, continue_latest=False, fork=fork, prompt=None)


async def close_setup(setup: SessionSetup) -> None:
    await setup.agent.close()
    setup.session.close()


__all__ = ["TuiOptions", "close_setup", "fresh", "open_setup", "resuming"]
