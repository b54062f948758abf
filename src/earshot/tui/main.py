"""Start the interactive UI: open the session (or onboard a first-time user), then run.

``run(options)`` returns the exit status. Errors a person can fix (settings, an unknown
model, a broken session) propagate for the CLI to report.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from earshot.core._execute import Approval, ApprovalRequest
from earshot.core.factory import SessionSetup
from earshot.core.targets import NoModelError
from earshot.core.tools.base import Question
from earshot.providers.errors import ProviderError
from earshot.tui._session import TuiOptions, open_setup
from earshot.tui.app import Tui


class Bridge:
    """The session's approve/ask callbacks, forwarded to the UI once it exists."""

    def __init__(self) -> None:
        self.tui: Tui | None = None

    async def approve(self, request: ApprovalRequest) -> Approval:
        if self.tui is None:
            return Approval(decision="deny", reason="the terminal UI is not running")
        return await self.tui.approve(request)

    async def ask(self, question: Question) -> str | None:
        return None if self.tui is None else await self.tui.ask(question)


def run(options: TuiOptions) -> int:
    return asyncio.run(_main(options))


async def _main(options: TuiOptions) -> int:
    bridge = Bridge()
    setup = _open(options, bridge)
    if setup is None:
        from earshot.tui.onboarding import onboard

        model = await onboard(options)
        if model is None:
            return 2
        options = replace(options, model=model)
        setup = _open(options, bridge)
        if setup is None:
            return 2
    tui = Tui(options, setup)
    bridge.tui = tui
    first = options.prompt

    async def start() -> None:
        if first:
            from earshot.tui._attach import build_input

            shown, turn_input = build_input(first, tui.attachments, options.cwd)
            tui.send(shown, turn_input)

    return await tui.run(start)


def _open(options: TuiOptions, bridge: Bridge) -> SessionSetup | None:
    """The session, or None when there is no model or key to start with (onboarding)."""
    try:
        return open_setup(options, approve=bridge.approve, ask=bridge.ask)
    except NoModelError:
        return None
    except ProviderError as exc:
        if exc.kind == "auth" and options.model is None:
            return None
        raise


__all__ = ["Bridge", "run"]
