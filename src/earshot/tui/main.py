"""Start the interactive UI.

The input box is on screen first: the agent's modules (core, providers, rich) are imported
on a worker thread while the user can already type (prompt_toolkit and wcwidth, loaded
lean for the first paint, are completed there first: ``_lean``), and the session is
opened on that thread too, so what is typed meanwhile is drawn as it is typed; then
``Tui.ready`` prints the banner and sends whatever was entered, in order.
With no model named and no provider key, the UI leaves and onboarding asks for a model,
then the UI starts again with it. Other errors a person can fix (settings, an unknown
model, a broken session) propagate for the CLI to report.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from earshot.core.config.options import SessionOptions
from earshot.tui import _lean

# Types only: the agent's modules (and the tool machinery behind ``extensions``) load on
# the warm-up thread, after the input box is on screen; the UI's own (and prompt_toolkit)
# once ``run`` has loaded prompt_toolkit lean (``_lean``).
if TYPE_CHECKING:
    from earshot.core.agent_session import AgentSession
    from earshot.core.extensions import SourceFactory, ToolSource
    from earshot.core.loop.approvals import Approval, ApprovalRequest
    from earshot.core.tools.base import Question
    from earshot.tui.app import Tui

ONBOARD = 3
WARM = (
    "earshot.core.agent_session",
    "earshot.core.commands",
    "earshot.core.config.targets",
    "earshot.tui.render",
    "earshot.tui.commands",
    "rich.markdown",
    "rich.syntax",
)


@dataclass(frozen=True, kw_only=True)
class TuiOptions:
    """The session's options, and what to do first: a prompt to send, images to attach."""

    session: SessionOptions
    prompt: str | None = None
    images: tuple[str, ...] = ()
    sources: SourceFactory | None = None
    """Tools that arrive after the session opens (the MCP servers); they connect while
    the input box already takes input, and the first model call waits for them."""
    pick_resume: bool = False
    """``earshot -r`` with no id: open the resume picker first."""


class Bridge:
    """The session's approve/ask callbacks, forwarded to the UI."""

    def __init__(self, tui: Tui) -> None:
        self.tui = tui

    async def approve(self, request: ApprovalRequest) -> Approval:
        return await self.tui.approve(request)

    async def ask(self, question: Question) -> str | None:
        return await self.tui.ask(question)


def run(options: TuiOptions) -> int:
    _lean.install()
    return asyncio.run(_main(options))


def _prepare(options: TuiOptions, bridge: Bridge, sources: list[ToolSource]) -> AgentSession | None:
    """On the warm-up thread, while the event loop keeps drawing what is typed: the
    agent's modules, then the session (settings, tools, the catalog, ``git status``)."""
    _lean.complete()
    for module in WARM:
        importlib.import_module(module)
    source = options.sources(options.session.cwd) if options.sources else None
    sources.extend([source] if source is not None else [])
    return _open(options.session, bridge, sources)


async def _main(options: TuiOptions) -> int:
    from earshot.tui._layout import build_application
    from earshot.tui.app import Tui

    tui = Tui(options.session, build=build_application)
    failure: list[BaseException] = []
    sources: list[ToolSource] = []

    async def start() -> None:
        try:
            session = await asyncio.to_thread(_prepare, options, Bridge(tui), sources)
        except Exception as exc:
            failure.append(exc)
            tui.leave(2)
            return
        if session is None:
            tui.leave(ONBOARD)
            return
        tui.ready(session)
        if sources:
            tui.app.create_background_task(_announce(tui, session))
        images = _image_placeholders(tui, options)
        if options.prompt:
            tui.handle(" ".join([options.prompt, *images]))
        elif images:
            tui.buffer.insert_text(" ".join(images) + " ")
        elif options.pick_resume and not tui.open_picker("resume"):
            tui.say("no other session in this directory to resume")

    try:
        result = await tui.run(start)
    finally:
        for source in sources:
            await source.aclose()
    if failure:
        raise failure[0]
    if result != ONBOARD:
        return result
    from earshot.tui.onboarding import onboard

    model = await onboard(options.session)
    if model is None:
        return 2
    return await _main(replace(options, session=replace(options.session, model=model)))


def _image_placeholders(tui: Tui, options: TuiOptions) -> list[str]:
    """``--image`` files and URLs as ``[Image #N]`` placeholders for the first message."""
    keys: list[str] = []
    for source in options.images:
        key = f"[Image #{len(tui.attachments.images) + 1}]"
        tui.attachments.images[key] = source
        keys.append(key)
    return keys


async def _announce(tui: Tui, session: AgentSession) -> None:
    """Connect the tool sources in the background; show what failed (once)."""
    for notice in await session.ready():
        tui.warn(notice)


def _open(
    options: SessionOptions, bridge: Bridge, sources: list[ToolSource]
) -> AgentSession | None:
    """The session, or None when there is no model or key to start with (onboarding)."""
    from earshot.core.agent_session import AgentSession
    from earshot.core.config.targets import NoModelError
    from earshot.providers.errors import ProviderError

    try:
        return AgentSession.open(options, approve=bridge.approve, ask=bridge.ask, sources=sources)
    except NoModelError:
        return None
    except ProviderError as exc:
        if exc.kind == "auth" and options.model is None:
            return None
        raise


__all__ = ["Bridge", "TuiOptions", "run"]
