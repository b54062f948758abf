"""Hooks: commands settings attach to session events, in Claude Code's shape::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
                               "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}

``load(settings_files, trusted_project=)`` reads them (a mistake names the file and field);
``Hooks.run(event, payload, tool=)`` runs the matching ones with the event's JSON on stdin
and the project as cwd. Exit 0 is success (stdout is context for ``UserPromptSubmit`` and
``SessionStart``); exit 2 blocks with stderr as the reason; any other exit is an error
shown to the user. JSON on stdout is read for ``decision: "block"``, ``reason``,
``continue: false``, ``additionalContext``; ``permissionDecision: "allow"`` is ignored
with a warning (a hook refuses or asks, it never allows). Project hooks (the project's
checked-in settings) run only when ``trusted_project`` says so.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from earshot._base.errors import UserError
from earshot._base.json import JSONObject, JSONValue
from earshot.core.config.settings import SettingsFile
from earshot.core.extend.names import OURS_TO_CLAUDE, matches

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "Notification",
    "SessionEnd",
)
DEFAULT_TIMEOUT = 60.0
MAX_RECORDED_OUTPUT = 2000
"""How much of a hook's output its record keeps (the transcript, stream-json)."""

HookDecision = Literal["ok", "context", "ignored_allow", "ask", "block", "stop", "error"]
"""What one hook run decided: ``ok`` (exit 0, nothing asked), ``context`` (it added
context), ``ignored_allow`` (it answered allow, which a hook may not), ``ask``, ``block``
(exit 2 or ``decision: "block"``), ``stop`` (``continue: false``), ``error`` (another exit,
or the timeout)."""


class HookConfigError(UserError):
    """A ``hooks`` block that cannot be read; names the settings file and the field."""


@dataclass(frozen=True)
class Hook:
    event: str
    matcher: str
    command: str
    timeout: float
    source: str


@dataclass(frozen=True)
class HookRun:
    """One hook's run, as the transcript and stream-json record it."""

    event: str
    command: str
    exit_code: int | None
    duration_ms: float
    stdout: str
    stderr: str
    matcher: str = ""
    source: str = ""
    """The settings scope it came from: ``user``, ``project`` or ``local``."""
    decision: HookDecision = "ok"

    @property
    def output(self) -> str:
        """Its stdout then stderr, cut to ``MAX_RECORDED_OUTPUT`` characters."""
        text = "\n".join(part for part in (self.stdout.strip(), self.stderr.strip()) if part)
        if len(text) <= MAX_RECORDED_OUTPUT:
            return text
        cut = len(text) - MAX_RECORDED_OUTPUT
        return text[:MAX_RECORDED_OUTPUT] + f"\n... ({cut} more characters)"


@dataclass
class HookOutcome:
    """What the hooks of one event decided, together."""

    blocked: bool = False
    ask: bool = False
    reason: str = ""
    context: list[str] = field(default_factory=list)
    stop: bool = False
    warnings: list[str] = field(default_factory=list)
    runs: list[HookRun] = field(default_factory=list)


def _parse_file(file: SettingsFile) -> list[Hook]:
    raw = file.data.get("hooks")
    if raw is None:
        return []
    where = f"{file.path}: hooks"
    if not isinstance(raw, dict):
        raise HookConfigError(f"{where}: must be an object of event names")
    found: list[Hook] = []
    for event, groups in raw.items():
        if event not in EVENTS:
            raise HookConfigError(f"{where}.{event}: unknown event; one of {', '.join(EVENTS)}")
        if not isinstance(groups, list):
            raise HookConfigError(f"{where}.{event}: must be a list")
        for i, group in enumerate(groups):
            at = f"{where}.{event}[{i}]"
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                raise HookConfigError(f"{at}: must be an object with a `hooks` list")
            matcher = group.get("matcher", "")
            if not isinstance(matcher, str):
                raise HookConfigError(f"{at}.matcher: must be a string")
            entries = group["hooks"]
            assert isinstance(entries, list)
            for j, entry in enumerate(entries):
                found.append(_hook(entry, f"{at}.hooks[{j}]", event, matcher, file.scope))
    return found


def _hook(entry: JSONValue, at: str, event: str, matcher: str, scope: str) -> Hook:
    if not isinstance(entry, dict) or entry.get("type", "command") != "command":
        raise HookConfigError(f'{at}: must be {{"type": "command", "command": ...}}')
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise HookConfigError(f"{at}.command: must be a non-empty string")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise HookConfigError(f"{at}.timeout: must be a positive number of seconds")
    return Hook(event, matcher, command, float(timeout), scope)


def load(files: list[SettingsFile], *, trusted_project: bool) -> tuple[Hooks, list[str]]:
    """The hooks of the settings files; project ones are left out (with a warning) unless
    ``trusted_project``."""
    hooks: list[Hook] = []
    warnings: list[str] = []
    for file in files:
        parsed = _parse_file(file)
        if parsed and file.scope == "project" and not trusted_project:
            warnings.append(
                f"{file.path}: {len(parsed)} project hook(s) not run: this project is not "
                "trusted (run `earshot trust` to review and allow them)"
            )
            continue
        hooks += parsed
    return Hooks(hooks), warnings


def _json_reply(stdout: str) -> JSONObject | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class Hooks:
    def __init__(self, hooks: list[Hook]) -> None:
        self.hooks = hooks

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def matching(self, event: str, subject: str | None = None) -> list[Hook]:
        """The hooks of ``event`` whose matcher matches ``subject`` (a tool name; for
        ``SubagentStop`` the agent's name), every one of them when it is None."""
        return [
            h
            for h in self.hooks
            if h.event == event and (subject is None or matches(h.matcher, subject))
        ]

    async def run(
        self,
        event: str,
        payload: JSONObject,
        cwd: Path,
        *,
        tool: str | None = None,
        subject: str | None = None,
    ) -> HookOutcome:
        """Run the hooks of ``event`` that match ``tool`` (named ``tool_name`` on stdin) or
        ``subject`` (matched only), one after another, and what they decided together."""
        outcome = HookOutcome()
        body = {**payload, "hook_event_name": event}
        if tool is not None:
            body["tool_name"] = OURS_TO_CLAUDE.get(tool, tool)
        stdin = json.dumps(body).encode()
        for hook in self.matching(event, tool if tool is not None else subject):
            run = await _run_one(hook, stdin, cwd)
            outcome.runs.append(replace(run, decision=_judge(outcome, run, event)))
        return outcome


async def _run_one(hook: Hook, stdin: bytes, cwd: Path) -> HookRun:
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        hook.command,
        cwd=cwd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), hook.timeout)
        code: int | None = proc.returncode
    except TimeoutError:
        proc.kill()
        await proc.wait()
        out, err, code = b"", f"timed out after {hook.timeout:g}s".encode(), None
    return HookRun(
        hook.event,
        hook.command,
        code,
        (time.perf_counter() - start) * 1000.0,
        out.decode(errors="replace"),
        err.decode(errors="replace"),
        matcher=hook.matcher,
        source=hook.source,
    )


CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
"""The events whose plain stdout (exit 0, not JSON) is context for the model."""


def _judge(outcome: HookOutcome, run: HookRun, event: str) -> HookDecision:
    """Fold one run into ``outcome``; what that run decided."""
    if run.exit_code == 2:
        outcome.blocked = True
        outcome.reason = run.stderr.strip() or f"blocked by the hook `{run.command}`"
        return "block"
    if run.exit_code != 0:
        outcome.warnings.append(
            f"{event} hook `{run.command}` failed (exit {run.exit_code}): {run.stderr.strip()}"
        )
        return "error"
    reply = _json_reply(run.stdout)
    if reply is None:
        if event in CONTEXT_EVENTS and run.stdout.strip():
            outcome.context.append(run.stdout.strip())
            return "context"
        return "ok"
    judged: HookDecision = "ok"
    specific = reply.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    extra = reply.get("additionalContext") or specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        outcome.context.append(extra.strip())
        judged = "context"
    decision = reply.get("decision") or specific.get("permissionDecision")
    reason = reply.get("reason") or specific.get("permissionDecisionReason") or ""
    if decision in ("block", "deny"):
        outcome.blocked = True
        outcome.reason = str(reason) or f"blocked by the hook `{run.command}`"
        judged = "block"
    elif decision == "ask":
        outcome.ask = True
        outcome.reason = str(reason)
        judged = "ask"
    elif decision in ("allow", "approve"):
        outcome.warnings.append(
            f"{event} hook `{run.command}` answered {decision!r}: ignored, a hook can refuse "
            "or ask but never allow; the permission gate decides as usual"
        )
        judged = "ignored_allow"
    if reply.get("continue") is False:
        outcome.stop = True
        outcome.reason = str(reply.get("stopReason") or reason or "stopped by a hook")
        judged = "stop"
    return judged


__all__ = [
    "CONTEXT_EVENTS",
    "EVENTS",
    "MAX_RECORDED_OUTPUT",
    "Hook",
    "HookConfigError",
    "HookDecision",
    "HookOutcome",
    "HookRun",
    "Hooks",
    "load",
]
