"""``earshot -p PROMPT``: one turn over an ``AgentSession``, rendered as text or earshot.v1
JSON (``cli/print_cmd.py`` turns the command line into ``HeadlessOptions``). A prompt that
is a slash command offered outside a terminal (``/cost``) is answered without a model call.

Exit status: 0 success, 1 the turn failed (model error after retries, turn or budget
limit, refusal), 2 a usage or configuration error (stdout stays empty in text mode; JSON
formats get a failed ``result``: ``headless.usage``), 130 interrupted.
Nobody can approve a prompt here: a call that would ask is denied with a ``permission``
record, and the flags (``--permission-mode``, ``--allow``) are how a script widens that.
"""

from __future__ import annotations

import gc
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from earshot import __version__
from earshot._base.errors import UserError
from earshot.core.config.options import SessionOptions
from earshot.core.config.prompt import start_git_summary
from earshot.core.extensions import SourceFactory, ToolSource
from earshot.core.loop.events import Notice, TurnEnded
from earshot.headless.render import (
    EXIT_INTERRUPTED,
    HeadlessRenderer,
    InitInfo,
    OutputFormat,
    exit_status,
    parse_output_format,
)
from earshot.headless.usage import report_failure
from earshot.providers import types as pt

if TYPE_CHECKING:
    from earshot.core.agent_session import AgentSession

USAGE = 2


class HeadlessUsageError(UserError):
    """A mistake in the command line; printed to stderr with exit status 2."""


class HeadlessOptions(msgspec.Struct, frozen=True, kw_only=True):
    session: SessionOptions
    prompt: str
    output_format: str = "text"
    images: Sequence[str] = ()
    verbose: bool = False
    sources: SourceFactory | None = None
    """Tools that arrive after the session opens (the command line passes the MCP
    servers'); the run waits for them (bounded) before the ``init`` record."""


def run_headless(options: HeadlessOptions) -> int:
    try:
        fmt = parse_output_format(options.output_format)
    except ValueError as exc:
        raise HeadlessUsageError(str(exc)) from exc
    import anyio

    return anyio.run(_run, options, fmt)


async def _run(options: HeadlessOptions, fmt: OutputFormat) -> int:
    import anyio

    from earshot.core.loop.input import image_part

    cwd = options.session.cwd.resolve()
    try:
        if not cwd.is_dir():
            raise HeadlessUsageError(f"--cwd {cwd}: no such directory")
        start_git_summary(cwd)  # git runs while the session's modules load
        images = [image_part(source, cwd) for source in options.images]
    except Exception as exc:
        report_failure(fmt, sys.stdout, exc)
        raise
    source = options.sources(cwd) if options.sources is not None else None
    sources: list[ToolSource] = [source] if source is not None else []
    try:
        return await _run_session(options, fmt, cwd, images, sources)
    finally:
        with anyio.CancelScope(shield=True):
            for opened in sources:
                await opened.aclose()


async def _run_session(
    options: HeadlessOptions,
    fmt: OutputFormat,
    cwd: Path,
    images: list[pt.ImagePart],
    sources: list[ToolSource],
) -> int:
    import anyio

    from earshot.core.agent_session import AgentSession

    try:
        # The first request goes out as soon as the session is open: connect meanwhile.
        session_options = replace(options.session, cwd=cwd, connect_early=True)
        session = AgentSession.open(session_options, sources=sources)
    except Exception as exc:  # nothing is written yet: a JSON reader gets a failed result
        report_failure(fmt, sys.stdout, exc)
        raise
    renderer = HeadlessRenderer(fmt, sys.stdout, sys.stderr, verbose=options.verbose)
    notices = await session.ready() if sources else []
    renderer.init(
        InitInfo(
            session_id=session.id,
            model=session.model,
            cwd=str(cwd),
            tools=session.tool_names,
            permission_mode=session.mode,
            version=__version__,
            memory_files=session.memory_files,
            effort=session.effort.record() if session.effort is not None else None,
        )
    )
    for warning in [*session.warnings, *notices]:
        renderer.event(Notice(level="warning", message=warning))
    prompt = options.prompt
    # What is loaded by now lives as long as the run: keep it out of the collector's scans
    # (a scan of the older objects took several milliseconds, inside a step).
    gc.freeze()
    started = time.perf_counter()
    ended: TurnEnded | None = None
    interrupted = False
    try:
        ended, sent = await _command(session, prompt) if not images else (None, None)
        prompt = sent if sent is not None else prompt
        turn_input: str | list[pt.TextPart | pt.ImagePart]
        turn_input = [pt.TextPart(text=prompt), *images] if images else prompt
        if ended is None:
            async with anyio.create_task_group() as tg:
                if sys.platform != "win32":

                    async def on_sigint() -> None:
                        nonlocal interrupted
                        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                            async for _ in signals:
                                interrupted = True
                                session.abort()

                    tg.start_soon(on_sigint)
                async for event in session.prompt(turn_input):
                    if isinstance(event, TurnEnded):
                        ended = event
                    else:
                        renderer.event(event)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await session.close()
    assert ended is not None
    renderer.finish(
        ended,
        session_id=session.id,
        duration_ms=(time.perf_counter() - started) * 1000.0,
        num_turns=ended.model_calls,
    )
    if interrupted:
        return EXIT_INTERRUPTED
    return exit_status(ended)


async def _command(session: AgentSession, prompt: str) -> tuple[TurnEnded | None, str | None]:
    """``-p "/cost"``: a command offered outside a terminal, answered without a model
    call as a turn whose text is the reply (a refusal is a failed turn); or the prompt a
    command sends instead (an MCP server's prompt, ``/mcp__server__prompt args``)."""
    if not prompt.lstrip().startswith("/"):
        return None, None  # not a command: the command table is not even loaded
    from earshot.core import commands

    reply = await commands.run(session, prompt, everywhere=True)
    if reply is None:
        return None, None
    if reply.send is not None and not reply.error:
        return None, reply.send
    cost = session.cost()
    return TurnEnded(
        reason="error" if reply.error else "end_turn",
        text="" if reply.error else reply.text,
        model_calls=0,
        usage=pt.Usage(),
        cost_usd=0.0,
        total_usage=cost.usage,
        total_cost_usd=cost.total_usd,
        error_kind="invalid_request" if reply.error else None,
        error=reply.text if reply.error else None,
    ), None


__all__ = ["HeadlessOptions", "HeadlessUsageError", "run_headless"]
