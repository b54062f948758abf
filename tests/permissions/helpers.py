"""Builders for rule sets and requests shared by the permission tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from earshot.core.permissions import Decision, Mode, RuleSet, decide
from earshot.core.permissions.match import Action, Rule
from earshot.core.permissions.rules import parse_rule
from earshot.core.tools.base import PermissionRequest


def ruleset(
    base: Path | None = None,
    *,
    allow: Sequence[str] = (),
    ask: Sequence[str] = (),
    deny: Sequence[str] = (),
    scope: str = "project",
    additional: Sequence[Path] = (),
) -> RuleSet:
    rules: list[Rule] = []
    lists: tuple[tuple[Action, Sequence[str]], ...] = (
        ("deny", deny),
        ("ask", ask),
        ("allow", allow),
    )
    for action, texts in lists:
        for text in texts:
            rules.append(parse_rule(text, action, scope=scope, source="test", base=base))
    return RuleSet(rules=tuple(rules), additional_directories=tuple(additional))


def bash(command: str) -> PermissionRequest:
    return PermissionRequest(tool="bash", kind="execute", command=command, detail=command)


def edit(path: Path, tool: str = "edit") -> PermissionRequest:
    return PermissionRequest(tool=tool, kind="edit", paths=(path,), detail=str(path))


def read(path: Path, tool: str = "read") -> PermissionRequest:
    return PermissionRequest(tool=tool, kind="read", paths=(path,), detail=str(path))


def fetch(host: str) -> PermissionRequest:
    return PermissionRequest(tool="web_fetch", kind="fetch", domain=host, detail=host)


def mcp(name: str) -> PermissionRequest:
    return PermissionRequest(tool=name, kind="other", detail=name)


READ_ONLY_TOOLS = frozenset({"read", "ls", "glob", "grep"})


def check(rules: RuleSet, mode: Mode, cwd: Path, request: PermissionRequest) -> Decision:
    return decide(rules, mode, cwd, request, read_only=request.tool in READ_ONLY_TOOLS)


def outcome(rules: RuleSet, mode: Mode, cwd: Path, request: PermissionRequest) -> str:
    return check(rules, mode, cwd, request).outcome
