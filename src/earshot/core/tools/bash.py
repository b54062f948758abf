"""The ``bash`` tool: run a command with ``bash -c`` in the session's working directory.

A foreground command runs in its own process group with stdin closed and ``EARSHOT=1``
set; stdout and stderr are merged in arrival order. It ends one of three ways:

- it exits: the output and ``exit code: N`` (a non-zero code is data, not an error result);
- the timeout passes, or ``ctx.abort`` is set: the whole process group is killed and an
  error result says so, with the output printed before that.

While it runs, its last ``LIVE_LINES`` lines are reported through ``ctx.progress`` (when
they changed, at most every ``REPORT_EVERY_S``), for a front-end's live view.

Output is kept in memory up to ``MAX_OUTPUT_CHARS`` at each end (the middle of a flood is
counted, not kept) and capped head+tail for the model, with a marker saying what was cut.
After the command exits, output is read until both pipes close, for at most
``EOF_GRACE_S``: a process it left running in the background may hold them open.

With ``run_in_background`` the command is registered as ``bash_N`` and the call returns at
once; ``bash_output`` reads it and ``kill_shell`` stops it (see ``_shell.py``).
"""

from __future__ import annotations

import signal
import sys
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

import anyio
import msgspec

from earshot._base.aio import race
from earshot.core.tools._output import cap_text, cut_marker, last_lines
from earshot.core.tools._shell import child_env, find_bash, pump_output, start_background
from earshot.core.tools.base import (
    SANDBOX_REFUSAL,
    PermissionRequest,
    ProgressFn,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
    no_progress,
)
from earshot.core.tools.display import ShellExit, ShellStatus
from earshot.providers.types import TextPart

if TYPE_CHECKING:
    from anyio.abc import Process

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000
MAX_OUTPUT_LINES = 2_000
EOF_GRACE_S = 1.0
KILL_GRACE_S = 5.0
LIVE_LINES = 5
REPORT_EVERY_S = 0.1

DESCRIPTION = f"""
Run a command with `bash -c` in the working directory; returns stdout and stderr merged,
then `exit code: N` (non-zero is reported, not a failure: read it).
- Each call is a fresh shell: `cd` and exports do not carry over (`cd dir && command`).
- stdin is closed: pass `-y`/`--yes`-style flags so nothing waits for input. EARSHOT=1 is set.
- `timeout` in ms (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS}): on timeout all it
  started is killed.
- Long output keeps its start and end: filter it (`| tail -n 50`) or redirect it to a file.
- Servers, watchers, long builds: `run_in_background` (not `&`) returns a shell id for
  bash_output and kill_shell.
""" + (
    "On Windows this is Git Bash: use POSIX syntax and forward slashes.\n"
    if sys.platform == "win32"
    else ""
)


class BashInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    command: str
    timeout: Annotated[int, msgspec.Meta(ge=1)] | None = None
    description: Annotated[
        str,
        msgspec.Meta(description="5-10 words for the user"),
    ] = ""
    run_in_background: bool = False


Outcome = Literal["exited", "timed_out", "interrupted"]


def _head(text: str, max_chars: int, max_lines: int) -> str:
    """The longest prefix of whole lines within both budgets; a char cut when the first
    line alone is over the char budget."""
    part = text[:max_chars]
    end = pos = 0
    for _ in range(max_lines):
        newline = part.find("\n", pos)
        if newline < 0:
            break
        end = pos = newline + 1
    return part[:end] if end else part


def _tail(text: str, max_chars: int, max_lines: int) -> str:
    """The longest suffix starting at a line start within both budgets (``text`` itself
    starts mid-line); a char cut when the last line alone is over the char budget."""
    part = text[len(text) - max_chars :] if max_chars > 0 else ""
    search_end = len(part) - 1 if part.endswith("\n") else len(part)
    start: int | None = None
    for _ in range(max_lines):
        newline = part.rfind("\n", 0, search_end)
        if newline < 0:
            break
        start, search_end = newline + 1, newline
    return part if start is None else part[start:]


class _Collected:
    """All output, or its first and last ``keep`` chars with the middle only counted."""

    def __init__(self, keep: int = MAX_OUTPUT_CHARS) -> None:
        self._keep = keep
        self._head: list[str] = []
        self._head_size = 0
        self._tail: deque[str] = deque()
        self._tail_size = 0
        self.chars = 0
        self.newlines = 0

    def append(self, text: str) -> None:
        self.chars += len(text)
        self.newlines += text.count("\n")
        if self._head_size < self._keep:
            taken = text[: self._keep - self._head_size]
            self._head.append(taken)
            self._head_size += len(taken)
            text = text[len(taken) :]
        if not text:
            return
        self._tail.append(text)
        self._tail_size += len(text)
        while self._tail_size - len(self._tail[0]) >= self._keep:
            self._tail_size -= len(self._tail.popleft())

    def text(self) -> str:
        """What is kept: all of it, or its head and tail."""
        return "".join(self._head) + "".join(self._tail)

    def recent(self, chars: int = 4096) -> str:
        """About the last ``chars`` chars kept (more when a chunk is larger)."""
        parts: list[str] = []
        size = 0
        for chunk in (*reversed(self._tail), *reversed(self._head)):
            parts.append(chunk)
            size += len(chunk)
            if size >= chars:
                break
        return "".join(reversed(parts))[-chars:]

    def render(self, *, max_chars: int, max_lines: int, hint: str) -> str:
        """The output capped head+tail, with a marker naming what was cut."""
        head = "".join(self._head)
        tail = "".join(self._tail)
        if len(head) + len(tail) == self.chars:
            return cap_text(head + tail, max_chars=max_chars, max_lines=max_lines, hint=hint)
        kept_head = _head(head, (max_chars + 1) // 2, (max_lines + 1) // 2)
        head_lines = kept_head.count("\n")
        kept_tail = _tail(tail, max_chars - len(kept_head), max_lines - head_lines)
        marker = cut_marker(
            lines=self.newlines - head_lines - kept_tail.count("\n"),
            chars=self.chars - len(kept_head) - len(kept_tail),
            hint=hint,
        )
        joint = "" if not kept_head or kept_head.endswith("\n") else "\n"
        return f"{kept_head}{joint}{marker}\n{kept_tail}"


def _duration(ms: int) -> str:
    if ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    if ms % 1000 == 0:
        return f"{ms // 1000} s"
    return f"{ms} ms"


def _exit_line(code: int) -> str:
    if code >= 0:
        return f"exit code: {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"exit code: {code} (killed by {name})"


async def _wait(process: Process, timeout_s: float, abort: anyio.Event) -> Outcome:
    with anyio.move_on_after(timeout_s):
        _, aborted = await race(process.wait, abort)
        return "interrupted" if aborted else "exited"
    return "timed_out"


async def _report(collected: _Collected, progress: ProgressFn, scope: anyio.CancelScope) -> None:
    """Report the last lines whenever they changed, until ``scope`` is cancelled."""
    with scope:
        seen = 0
        while True:
            await anyio.sleep(REPORT_EVERY_S)
            if collected.chars != seen:
                seen = collected.chars
                if tail := last_lines(collected.recent(), LIVE_LINES):
                    progress(tail, None, None)


async def _supervise(
    process: Process, collected: _Collected, timeout_s: float, ctx: ToolContext
) -> tuple[Outcome, bool]:
    """How the command ended, and whether its pipes were still open ``EOF_GRACE_S``
    after that (a process it started still holds them)."""
    reporting = anyio.CancelScope()
    async with anyio.create_task_group() as readers:
        readers.start_soon(pump_output, process, collected.append)
        if ctx.progress is not no_progress:
            readers.start_soon(_report, collected, ctx.progress, reporting)
        outcome = await _wait(process, timeout_s, ctx.abort)
        reporting.cancel()
        if outcome != "exited":
            ctx.procs.kill_tree(process)
        readers.cancel_scope.deadline = anyio.current_time() + EOF_GRACE_S
    return outcome, readers.cancel_scope.cancelled_caught


def _label(args: BashInput) -> str:
    text = args.description.strip() or " ".join(args.command.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _check_cwd(ctx: ToolContext) -> None:
    st = ctx.files.stat(ctx.cwd)
    if st is None or not st.is_dir:
        raise ToolError(
            f"the working directory {ctx.cwd} does not exist, so the command cannot start",
            "working directory missing",
        )


async def _background(args: BashInput, ctx: ToolContext) -> ToolResult:
    choice = find_bash()
    _check_cwd(ctx)
    argv = _confined(ctx, [choice.path, "-c", args.command])
    try:
        shell = await start_background(
            ctx.state,
            ctx.procs,
            argv=argv,
            cwd=ctx.cwd,
            command=args.command,
            description=args.description,
        )
    except OSError as exc:
        raise ToolError(f"could not start {choice.path}: {exc}", "could not start") from exc
    lines = [
        f"started {shell.id} in the background (pid {shell.pid}).",
        f'Read its new output with bash_output(shell_id="{shell.id}"); '
        f'stop it with kill_shell(shell_id="{shell.id}").',
    ]
    if choice.note:
        lines.append(f"note: {choice.note}")
    return ToolResult.text(
        "\n".join(lines),
        brief=f"{_label(args)} (background {shell.id})",
        display=ShellStatus(shell_id=shell.id, status="running", command=args.command),
    )


async def _execute(args: BashInput, ctx: ToolContext) -> ToolResult:
    if args.run_in_background:
        return await _background(args, ctx)
    notes: list[str] = []
    timeout_ms = DEFAULT_TIMEOUT_MS if args.timeout is None else args.timeout
    if timeout_ms > MAX_TIMEOUT_MS:
        notes.append(
            f"timeout {timeout_ms} ms is over the maximum; it was clamped to "
            f"{MAX_TIMEOUT_MS} ms ({_duration(MAX_TIMEOUT_MS)}). For longer commands use "
            "run_in_background."
        )
        timeout_ms = MAX_TIMEOUT_MS
    choice = find_bash()
    if choice.note:
        notes.append(choice.note)
    _check_cwd(ctx)
    plain = [choice.path, "-c", args.command]
    run = await _run(_confined(ctx, plain), timeout_ms, ctx, choice.path)
    sandbox = ctx.state.sandbox
    if sandbox is not None and (note := sandbox.take_note()):
        notes.append(note)
    why = sandbox.blocked_by(run.collected.text()) if sandbox is not None else None
    if why is not None and run.outcome == "exited" and run.code == 0:
        notes.append(
            f"part of this command seems to have been stopped by the OS sandbox: {why}; "
            "the command went on and exited 0"
        )
    elif why is not None and run.outcome == "exited":
        note, refused = await _escalation(args, ctx, why)
        notes.append(note)
        if refused is None:
            run = await _run(plain, timeout_ms, ctx, choice.path)
        else:
            return msgspec.structs.replace(
                _result(args, ctx, run, timeout_ms, notes), denied=refused
            )
    return _result(args, ctx, run, timeout_ms, notes)


@dataclass
class _Run:
    outcome: Outcome
    code: int | None
    collected: _Collected
    pipes_held: bool


def _confined(ctx: ToolContext, argv: list[str]) -> list[str]:
    """``argv`` inside the session's OS sandbox (as it is without one)."""
    sandbox = ctx.state.sandbox
    return argv if sandbox is None else sandbox.wrap(argv)


async def _run(argv: list[str], timeout_ms: int, ctx: ToolContext, shell: str) -> _Run:
    if ctx.abort.is_set():
        raise ToolError("interrupted before the command started", "interrupted")
    try:
        process = await ctx.procs.spawn(argv, cwd=ctx.cwd, env=child_env(ctx.state.pass_env))
    except OSError as exc:
        raise ToolError(f"could not start {shell}: {exc}", "could not start") from exc
    collected = _Collected()
    try:
        outcome, pipes_held = await _supervise(process, collected, timeout_ms / 1000, ctx)
    finally:
        if process.returncode is None:
            ctx.procs.kill_tree(process)
        with anyio.move_on_after(KILL_GRACE_S, shield=True):
            await process.aclose()
        if ctx.state.sandbox is not None:
            ctx.state.sandbox.tidy()
    return _Run(outcome, process.returncode, collected, pipes_held)


async def _escalation(args: BashInput, ctx: ToolContext, why: str) -> tuple[str, str | None]:
    """Ask whether the command may run again outside the sandbox: the note for the model,
    and why it may not (None: run it again unconfined)."""
    request = PermissionRequest(
        tool="bash",
        kind="execute",
        command=args.command,
        detail=f"{args.command}\n\n(outside the sandbox: {why})",
    )
    if ctx.escalate is not None and await ctx.escalate(request, why):
        return (
            f"the OS sandbox stopped the first run ({why}); the user allowed it outside the "
            "sandbox, so this is the output of a second, unconfined run",
            None,
        )
    who = (
        "the user denied running it outside the sandbox"
        if ctx.escalate is not None
        else "nobody can approve running it outside the sandbox here"
    )
    return (
        f"this command seems to have been stopped by the OS sandbox: {why}. It was not run "
        f"outside the sandbox ({who}). Work inside the project directory, or ask the user "
        "to allow it (sandbox settings: docs/sandbox.md)",
        f"{SANDBOX_REFUSAL} ({why}) and {who}",
    )


def _result(
    args: BashInput, ctx: ToolContext, run: _Run, timeout_ms: int, notes: list[str]
) -> ToolResult:
    outcome, collected, pipes_held = run.outcome, run.collected, run.pipes_held
    output = collected.render(
        max_chars=MAX_OUTPUT_CHARS,
        max_lines=MAX_OUTPUT_LINES,
        hint="filter the output (grep, head, tail) or redirect it to a file and read that",
    ).replace("\r\n", "\n")
    parts = [output.rstrip("\n") if output.strip() else "(no output)"]
    if pipes_held and outcome == "exited":
        parts.append(
            "note: a process the command left running still holds its output open; "
            "output after the command exited is not shown. Use run_in_background for "
            "processes that keep running."
        )
    parts.extend(f"note: {note}" for note in notes)
    label = _label(args)
    display = ShellExit(command=args.command, exit_code=run.code, outcome=outcome)
    match outcome:
        case "exited":
            code = run.code if run.code is not None else -1
            parts.append(_exit_line(code))
            return ToolResult.text(
                "\n".join(parts), brief=f"{label} (exit {code})", display=display
            )
        case "timed_out":
            parts.append(
                f"timed out after {_duration(timeout_ms)}: the command and every process it "
                "started were killed; the output above is what it printed before that. If it "
                f"needs longer, pass a larger timeout (max {MAX_TIMEOUT_MS}) or start it with "
                "run_in_background and poll it with bash_output."
            )
            brief = f"{label} (timed out after {_duration(timeout_ms)})"
        case "interrupted":
            parts.append(
                "interrupted by the user: the command and every process it started were "
                "killed; the output above is what it printed before that."
            )
            brief = f"{label} (interrupted)"
    return ToolResult(
        content=[TextPart(text="\n".join(parts))], is_error=True, brief=brief, display=display
    )


def _permission(args: BashInput, ctx: ToolContext) -> PermissionRequest:
    return PermissionRequest(tool="bash", kind="execute", command=args.command, detail=args.command)


TOOL = define_tool(
    name="bash",
    description=DESCRIPTION,
    input_type=BashInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "DESCRIPTION",
    "LIVE_LINES",
    "MAX_OUTPUT_CHARS",
    "MAX_OUTPUT_LINES",
    "MAX_TIMEOUT_MS",
    "TOOL",
    "BashInput",
]
