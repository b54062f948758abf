"""``earshot -p PROMPT``: one turn, headless, rendered as text or earshot.v1 JSON.

Exit status: 0 success, 1 the turn failed (model error after retries, turn or budget
limit, refusal), 2 a usage or configuration error (stdout stays empty), 130 interrupted.
Nobody can approve a prompt here: a call that would ask is denied with a ``permission``
record, and the flags (``--permission-mode``, ``--allow``) are how a script widens that.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from earshot import __version__
from earshot.cli._errors import guarded
from earshot.cli._flags import parse_flags
from earshot.cli.headless import (
    EXIT_INTERRUPTED,
    HeadlessRenderer,
    InitInfo,
    OutputFormat,
    exit_status,
    parse_output_format,
)
from earshot.core.events import Notice, TurnEnded
from earshot.providers import types as pt

USAGE = 2


class HeadlessUsageError(Exception):
    """A mistake in the command line; printed to stderr with exit status 2."""


@dataclass(frozen=True, kw_only=True)
class HeadlessOptions:
    prompt: str
    output_format: str = "text"
    model: str | None = None
    effort: str | None = None
    permission_mode: str | None = None
    sandbox: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    images: Sequence[str] = ()
    cwd: Path | None = None
    append_system_prompt: str = ""
    verbose: bool = False
    allow: Sequence[str] = ()
    ask: Sequence[str] = ()
    deny: Sequence[str] = ()
    continue_latest: bool = False
    resume: str | None = None
    fork_session: bool = False


def read_prompt(prompt: str | None) -> str:
    """The prompt from the flag, or from stdin for ``-p -`` or a piped stdin."""
    if prompt == "-" or (prompt in (None, "") and not sys.stdin.isatty()):
        text = sys.stdin.read()
    else:
        text = prompt or ""
    if not text.strip():
        raise HeadlessUsageError("no prompt: pass -p PROMPT, or -p - to read it from stdin")
    return text


def options_from(args: list[str]) -> HeadlessOptions:
    """Options from the top-level command line (``_flags``), the prompt read."""
    values = parse_flags(args)

    def text(key: str) -> str | None:
        value = values.get(key)
        return value if isinstance(value, str) else None

    def words(key: str) -> tuple[str, ...]:
        value = values.get(key)
        return tuple(value) if isinstance(value, list) else ()

    prompt = text("prompt")
    if prompt is None and sys.stdin.isatty():
        raise HeadlessUsageError(
            "the interactive UI needs a terminal on both stdin and stdout; to run one turn "
            "with output to a pipe or file, use earshot -p PROMPT"
        )
    max_turns = values.get("max_turns")
    budget = values.get("max_budget_usd")
    cwd = text("cwd")
    return HeadlessOptions(
        prompt=read_prompt(prompt),
        output_format=text("output_format") or "text",
        model=text("model"),
        effort=text("effort"),
        permission_mode=text("permission_mode"),
        sandbox=text("sandbox"),
        max_turns=max_turns if isinstance(max_turns, int) else None,
        max_budget_usd=float(budget) if isinstance(budget, int | float) else None,
        images=words("images"),
        cwd=Path(cwd) if cwd else None,
        append_system_prompt=text("append_system_prompt") or "",
        verbose=values.get("verbose") is True,
        allow=words("allow"),
        ask=words("ask"),
        deny=words("deny"),
        continue_latest=values.get("continue_latest") is True,
        resume=text("resume"),
        fork_session=values.get("fork_session") is True,
    )


def main(args: list[str]) -> int:
    """``earshot [OPTIONS]`` without a terminal on both ends: a headless run."""
    return guarded(lambda: run_headless(options_from(args)))


def run_headless(options: HeadlessOptions) -> int:
    try:
        fmt = parse_output_format(options.output_format)
    except ValueError as exc:
        raise HeadlessUsageError(str(exc)) from exc
    import anyio

    return anyio.run(_run, options, fmt)


async def _run(options: HeadlessOptions, fmt: OutputFormat) -> int:
    import anyio

    from earshot.core.factory import create_session
    from earshot.core.input import image_part
    from earshot.providers.effort import parse_effort

    cwd = (options.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        raise HeadlessUsageError(f"--cwd {cwd}: no such directory")
    try:
        effort = parse_effort(options.effort, where="--effort") if options.effort else None
    except ValueError as exc:
        raise HeadlessUsageError(str(exc)) from exc
    images = [image_part(source, cwd) for source in options.images]
    setup = create_session(
        cwd=cwd,
        model=options.model,
        effort=effort,
        permission_mode=options.permission_mode,
        sandbox=options.sandbox,
        allow=options.allow,
        ask_rules=options.ask,
        deny=options.deny,
        resume=options.resume,
        continue_latest=options.continue_latest,
        fork=options.fork_session,
        max_turns=options.max_turns,
        max_budget_usd=options.max_budget_usd,
        append_system_prompt=options.append_system_prompt,
    )
    agent = setup.agent
    renderer = HeadlessRenderer(fmt, sys.stdout, sys.stderr, verbose=options.verbose)
    renderer.init(
        InitInfo(
            session_id=setup.session.id,
            model=setup.model_ref,
            cwd=str(cwd),
            tools=agent.tool_names(),
            permission_mode=setup.mode,
            version=__version__,
            memory_files=setup.memory_files,
            effort=agent.effort.choice.record() if agent.effort is not None else None,
        )
    )
    for warning in setup.warnings:
        renderer.event(Notice(level="warning", message=warning))
    turn_input: str | list[pt.TextPart | pt.ImagePart]
    turn_input = [pt.TextPart(text=options.prompt), *images] if images else options.prompt
    started = time.perf_counter()
    ended: TurnEnded | None = None
    interrupted = False
    try:
        async with anyio.create_task_group() as tg:
            if sys.platform != "win32":

                async def on_sigint() -> None:
                    nonlocal interrupted
                    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                        async for _ in signals:
                            interrupted = True
                            agent.abort()

                tg.start_soon(on_sigint)
            async for event in agent.run_turn(turn_input):
                if isinstance(event, TurnEnded):
                    ended = event
                else:
                    renderer.event(event)
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await agent.close()
        setup.session.close()
    assert ended is not None
    renderer.finish(
        ended,
        session_id=setup.session.id,
        duration_ms=(time.perf_counter() - started) * 1000.0,
        num_turns=ended.model_calls,
    )
    if interrupted:
        return EXIT_INTERRUPTED
    return exit_status(ended)


__all__ = [
    "HeadlessOptions",
    "HeadlessUsageError",
    "main",
    "options_from",
    "read_prompt",
    "run_headless",
]
