"""``earshot permissions check|list``: the gate's decisions, explained from the command line.

``check`` evaluates one request written like a rule (``Bash(git log; rm -rf x)``,
``Read(PATH)``, ``Edit(PATH)``, ``Write(PATH)``, ``WebFetch(URL)``, ``mcp__server__tool``)
with the real settings of the working directory. It takes the path the tools take: the real
tool (``read``, ``edit``, ``write``, ``web_fetch``, ``bash``) describes the call, and a
``PermissionGate`` decides it, so ``check`` and a real call cannot disagree. Exit status 0
whatever the decision; 2 for a malformed request, an unknown mode or settings earshot
cannot use.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

from earshot.core.config.settings import SettingsError, load_settings, project_root
from earshot.core.permissions import (
    Decision,
    Mode,
    PermissionGate,
    RuleSet,
    load_rules,
    parse_mode,
)
from earshot.core.sandbox import load_sandbox_config, open_sandbox
from earshot.core.tools.base import PermissionRequest, ToolContext, ToolError
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONValue

USAGE_ERROR = 2
_REQUEST = re.compile(r"(Bash|Read|Edit|Write|WebFetch)\((.*)\)", re.DOTALL)
_MCP = re.compile(r"mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+")
_EXAMPLES = "Bash(git log -5), Read(.env), Edit(src/a.py), WebFetch(https://example.com)"


class RequestError(ValueError):
    """A request that cannot be read; the message says how to write it."""


def _arguments(tool: str, argument: str) -> tuple[str, dict[str, JSONValue]]:
    """The earshot tool a request names and the arguments a model would send it."""
    match tool:
        case "Bash":
            return "bash", {"command": argument}
        case "WebFetch":
            url = argument.strip()
            url = url if "://" in url else f"https://{url}"
            try:
                host = urlsplit(url).hostname
            except ValueError:
                host = None
            if not host:
                raise RequestError(f"no host in {url!r}; write WebFetch(https://example.com/page)")
            return "web_fetch", {"url": url}
        case "Read":
            return "read", {"path": argument.strip()}
        case "Write":
            return "write", {"path": argument.strip(), "content": ""}
        case _:
            return "edit", {"path": argument.strip(), "old_string": "", "new_string": ""}


def parse_request(text: str, cwd: Path) -> tuple[PermissionRequest, bool]:
    """The request ``text`` describes, as the real tool describes it to the gate, and
    whether that tool is read-only."""
    text = text.strip()
    if _MCP.fullmatch(text):
        return PermissionRequest(tool=text, kind="other", detail=text), False
    found = _REQUEST.fullmatch(text)
    if found is None or not found.group(2).strip():
        raise RequestError(
            f"cannot read the request {text!r}; write Tool(argument), for example {_EXAMPLES}, "
            "or an MCP tool name such as mcp__server__tool"
        )
    from earshot.core.tools.registry import builtin_tools

    name, raw = _arguments(found.group(1), found.group(2))
    tool = builtin_tools((name,))[0]
    try:
        prepared = tool.prepare(raw, ToolContext(cwd=cwd, state=ToolState()))
    except ToolError as exc:
        raise RequestError(exc.message) from exc
    return prepared.request, tool.read_only


def _fail(message: str) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return USAGE_ERROR


def check(request: str, *, mode: str | None, as_json: bool, cwd: Path | None = None) -> int:
    where = cwd or Path.cwd()
    try:
        chosen: Mode | None = parse_mode(mode) if mode is not None else None
        parsed, read_only = parse_request(request, where)
        settings = load_settings(where)
        rules = load_rules(settings)
        sandbox_config = load_sandbox_config(settings.files, project_root(where))
    except (ValueError, SettingsError) as exc:
        return _fail(str(exc))
    for notice in rules.notices:
        sys.stderr.write(f"earshot: warning: {notice}\n")
    effective = chosen or rules.default_mode
    gate = PermissionGate(rules, effective, where)
    gate.sandbox = open_sandbox(
        where,
        sandbox_config,
        additional=rules.additional_directories,
        protected=rules.protected_directories,
    )
    decision = gate.check(parsed, read_only=read_only)
    if as_json:
        sys.stdout.write(json.dumps(_decision_json(decision, effective), indent=2) + "\n")
    else:
        sys.stdout.write(_decision_text(decision, effective, _mode_source(rules, chosen)))
    return 0


def _mode_source(rules: RuleSet, chosen: Mode | None) -> str:
    if chosen is not None:
        return "--mode"
    return rules.default_mode_source or "default"


def _decision_json(decision: Decision, mode: Mode) -> dict[str, object]:
    return {
        "decision": decision.outcome,
        "rule": decision.rule,
        "source": decision.source,
        "reason": decision.reason,
        "mode": mode,
        "commands": [
            {
                "command": part.command,
                "kind": part.kind,
                "decision": part.outcome,
                "rule": part.rule,
                "source": part.source,
                "reason": part.reason,
            }
            for part in decision.commands
        ],
    }


def _decision_text(decision: Decision, mode: Mode, mode_source: str) -> str:
    lines = [
        f"decision: {decision.outcome}",
        f"reason:   {decision.reason}",
    ]
    if decision.rule is not None:
        lines.append(f"rule:     {decision.rule}")
        lines.append(f"source:   {decision.source}")
    lines.append(f"mode:     {mode} ({mode_source})")
    if decision.commands:
        lines.append("commands:")
        width = max(len(part.command) for part in decision.commands)
        width = min(width, 48)
        for part in decision.commands:
            label = part.command if part.kind != "unreadable" else "(unreadable)"
            lines.append(f"  {part.outcome:<5}  {label:<{width}}  {part.reason}")
    return "\n".join(lines) + "\n"


def list_rules(*, as_json: bool, cwd: Path | None = None) -> int:
    where = cwd or Path.cwd()
    try:
        rules = load_rules(load_settings(where))
    except SettingsError as exc:
        return _fail(str(exc))
    for notice in rules.notices:
        sys.stderr.write(f"earshot: warning: {notice}\n")
    ordered = sorted(rules.rules, key=lambda r: ("deny", "ask", "allow").index(r.action))
    if as_json:
        payload = {
            "defaultMode": rules.default_mode,
            "defaultModeSource": rules.default_mode_source,
            "additionalDirectories": [str(d) for d in rules.additional_directories],
            "rules": [
                {"rule": r.text, "list": r.action, "scope": r.scope, "source": r.source}
                for r in ordered
            ],
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return 0
    lines = [f"default mode: {rules.default_mode} ({rules.default_mode_source or 'default'})"]
    if rules.additional_directories:
        lines.append("additional directories:")
        lines.extend(f"  {d}" for d in rules.additional_directories)
    if not ordered:
        lines.append("no rules")
    for action in ("deny", "ask", "allow"):
        listed = [r for r in ordered if r.action == action]
        if not listed:
            continue
        lines.append(f"{action}:")
        width = min(max(len(r.text) for r in listed), 48)
        lines.extend(f"  {r.text:<{width}}  {r.scope:<7}  {r.source}" for r in listed)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


__all__ = ["RequestError", "check", "list_rules", "parse_request"]
