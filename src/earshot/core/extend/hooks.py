"""Hooks: commands settings attach to session events, in Claude Code's shape::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
                               "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}

``load(settings_files, trusted_project=, root=)`` reads them (a mistake names the file and
field), and with ``root`` Claude Code's ``.claude/settings.json`` and
``.claude/settings.local.json`` (and the user's ``~/.claude/settings.json``) for their
``hooks`` too, where what earshot cannot run is skipped with a warning;
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
import contextlib
import os
import signal
import time
from collections.abc import Collection
from pathlib import Path
from typing import Literal

import msgspec

from earshot._base.errors import UserError
from earshot._base.json import JSONObject, JSONValue
from earshot._base.jsonfile import JSONFileError, load_json_object
from earshot.core.config.settings import SettingsFile, git_tracked
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


class Hook(msgspec.Struct, frozen=True):
    event: str
    matcher: str
    command: str
    timeout: float
    source: str


class HookRun(msgspec.Struct, frozen=True):
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


class HookOutcome(msgspec.Struct):
    """What the hooks of one event decided, together."""

    blocked: bool = False
    ask: bool = False
    reason: str = ""
    context: list[str] = msgspec.field(default_factory=list)
    stop: bool = False
    warnings: list[str] = msgspec.field(default_factory=list)
    runs: list[HookRun] = msgspec.field(default_factory=list)


def _groups(file: SettingsFile) -> list[tuple[str, int, JSONValue]]:
    """Each ``(event, index, group)`` of a file's ``hooks`` block, events checked."""
    raw = file.data.get("hooks")
    if raw is None:
        return []
    where = f"{file.path}: hooks"
    if not isinstance(raw, dict):
        raise HookConfigError(f"{where}: must be an object of event names")
    found: list[tuple[str, int, JSONValue]] = []
    for event, groups in raw.items():
        if event not in EVENTS:
            raise HookConfigError(f"{where}.{event}: unknown event; one of {', '.join(EVENTS)}")
        if not isinstance(groups, list):
            raise HookConfigError(f"{where}.{event}: must be a list")
        found += [(event, i, group) for i, group in enumerate(groups)]
    return found


def _group_hooks(
    file: SettingsFile, event: str, i: int, group: JSONValue, first: int = 0
) -> list[Hook]:
    at = f"{file.path}: hooks.{event}[{i}]"
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        raise HookConfigError(f"{at}: must be an object with a `hooks` list")
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        raise HookConfigError(f"{at}.matcher: must be a string")
    entries = group["hooks"]
    assert isinstance(entries, list)
    return [
        _hook(entry, f"{at}.hooks[{first + j}]", event, matcher, file.scope)
        for j, entry in enumerate(entries)
    ]


def _parse_file(file: SettingsFile) -> list[Hook]:
    """A settings file's hooks; ``HookConfigError`` names the file and field at fault."""
    return [h for event, i, group in _groups(file) for h in _group_hooks(file, event, i, group)]


def _parse_compat(file: SettingsFile) -> tuple[list[Hook], list[str]]:
    """A ``.claude`` settings file's hooks. What earshot cannot run there (an event it does
    not have, a hook type other than ``command``, a malformed entry) is skipped with a
    warning naming the file and field rather than stopping the start: the file is written
    for another program. Each entry stands alone, so one that cannot run leaves the rest."""
    raw = file.data.get("hooks")
    if not isinstance(raw, dict):
        return [], [f"{file.path}: hooks: must be an object of event names; not run"]
    found: list[Hook] = []
    skipped: list[str] = []
    for event, groups in raw.items():
        if event not in EVENTS:
            skipped.append(f"{file.path}: hooks.{event}: earshot has no such event; not run")
            continue
        for i, group in enumerate(groups if isinstance(groups, list) else [groups]):
            entries = group.get("hooks") if isinstance(group, dict) else None
            alone = [
                {**group, "hooks": [entry]}
                for entry in (entries if isinstance(entries, list) else [])
                if isinstance(group, dict)
            ]
            for j, one in enumerate(alone or [group]):
                try:
                    found += _group_hooks(file, event, i, one, first=j)
                except HookConfigError as exc:
                    skipped.append(f"{exc}; not run")
    return found, skipped


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


def compat_files(root: Path, home: Path | None = None) -> list[SettingsFile]:
    """Claude Code's settings files, read for their ``hooks`` only: the user's
    ``~/.claude/settings.json``, the project's ``.claude/settings.json`` (checked in, so it
    waits for trust like ``.earshot/settings.json``) and ``.claude/settings.local.json``."""
    home = home if home is not None else Path.home()
    found: list[SettingsFile] = []
    for scope, path in (
        ("user", home / ".claude" / "settings.json"),
        ("project", root / ".claude" / "settings.json"),
        ("local", root / ".claude" / "settings.local.json"),
    ):
        try:
            data = load_json_object(path)
        except JSONFileError as exc:
            raise HookConfigError(str(exc)) from exc
        if data is not None and "hooks" in data:
            found.append(SettingsFile(scope, path, {"hooks": data["hooks"]}))
    return found


def load(
    files: list[SettingsFile],
    *,
    trusted_project: bool,
    root: Path | None = None,
    pass_env: Collection[str] = (),
) -> tuple[Hooks, list[str]]:
    """The hooks of the settings files, and with ``root`` those of Claude Code's settings
    files too (``compat_files``). Project hooks are left out (with a warning) unless
    ``trusted_project``; so are those of a ``settings.local.json`` that git tracks (it
    arrives with a clone like a project file, and trust covers only the project files).
    ``pass_env``: credential variables the hooks may see (settings ``passEnv``)."""
    found: list[tuple[SettingsFile, list[Hook]]] = [(file, _parse_file(file)) for file in files]
    warnings: list[str] = []
    for file in compat_files(root) if root is not None else []:
        parsed, skipped = _parse_compat(file)
        found.append((file, parsed))
        warnings += skipped
    hooks: list[Hook] = []
    for file, parsed in found:
        if parsed and file.scope == "project" and not trusted_project:
            warnings.append(
                f"{file.path}: {len(parsed)} project hook(s) not run: this project is not "
                "trusted (run `earshot trust` to review and allow them)"
            )
        elif parsed and file.scope == "local" and git_tracked(file.path):
            warnings.append(
                f"{file.path}: {len(parsed)} hook(s) not run: git tracks this file, so it "
                "arrives with a clone; keep hooks in an untracked settings.local.json"
            )
        else:
            hooks += parsed
    return Hooks(hooks, pass_env), warnings


def _json_reply(stdout: str) -> JSONObject | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    import json  # only a hook's reply is parsed with it

    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class Hooks:
    """The session's hooks. Each runs as ``bash -c`` in its own process group, with the
    project as cwd and the environment of a tool's command (earshot's credentials left out
    but those ``pass_env`` names) plus ``CLAUDE_PROJECT_DIR`` and ``EARSHOT_PROJECT_DIR``
    (the project), which hooks written for Claude Code use to find their scripts."""

    def __init__(self, hooks: list[Hook], pass_env: Collection[str] = ()) -> None:
        self.hooks = hooks
        self.pass_env = frozenset(pass_env)

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
        import json  # loaded when a hook first runs

        stdin = json.dumps(body).encode()
        from earshot.core.tools._shell import child_env  # the shell machinery, when first needed

        env = {**child_env(self.pass_env), "CLAUDE_PROJECT_DIR": str(cwd)}
        env["EARSHOT_PROJECT_DIR"] = str(cwd)
        for hook in self.matching(event, tool if tool is not None else subject):
            run = await _run_one(hook, stdin, cwd, env)
            outcome.runs.append(msgspec.structs.replace(run, decision=_judge(outcome, run, event)))
        return outcome


async def _run_one(hook: Hook, stdin: bytes, cwd: Path, env: dict[str, str]) -> HookRun:
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        hook.command,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), hook.timeout)
        code: int | None = proc.returncode
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the hook and whatever it started
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
    said = reply.get("systemMessage")
    if isinstance(said, str) and said.strip():
        outcome.warnings.append(f"{event} hook `{run.command}`: {said.strip()}")
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
    "compat_files",
    "load",
]
