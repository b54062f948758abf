"""``allowed-tools`` of a command file or skill: it narrows one turn, it never grants.

::

    parse_allowed(entries, where) -> AllowedTools     ValueError naming the entry at fault
    AllowedTools.offer(tools)     the tools the turn offers: those the entries name
    AllowedTools.gate(inner, cwd) the session's gate behind the entries' rules

An entry is a tool name, Claude Code's or ours (``Read``, ``grep``, ``mcp__server__tool``,
``mcp__server`` for all of a server's tools), or a permission rule with a specifier
(``Bash(git add:*)``, ``Edit(src/**)``, ``WebFetch(domain:example.com)``, written as in
settings: ``docs/permissions.md``). A tool named bare may be used as the session's gate
allows; a tool named only with specifiers may be used only as one of them covers: a shell
line must have every command it runs (and every file it writes) covered by a rule, so
``Bash(git add:*)`` refuses ``git add . && git push`` and a plain ``ls``. A call the
entries cover still goes through the session's gate afterwards: deny rules refuse it,
ask rules and the mode ask, exactly as without the entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import msgspec

from earshot.core.extend.names import CLAUDE_NAMES, OURS_TO_CLAUDE
from earshot.core.permissions import Mode, Rule, RuleSet
from earshot.core.permissions.rules import FAMILIES, parse_rule
from earshot.core.tools.base import PermissionRequest

if TYPE_CHECKING:
    from earshot.core.loop.ports import Gate, GateDecision

T = TypeVar("T")


def _family(rule: Rule) -> tuple[str, ...]:
    return FAMILIES.get(rule.tool, (rule.tool,))


class AllowedTools(msgspec.Struct, frozen=True):
    """The parsed entries. ``whole``: earshot tools named bare; ``servers``: MCP name
    prefixes named bare (``mcp__server__``); ``rules``: the entries with a specifier, each
    covering the tool it names (``Bash(...)`` covers ``bash``)."""

    entries: tuple[str, ...]
    where: str
    whole: frozenset[str]
    servers: tuple[str, ...]
    rules: tuple[Rule, ...]

    def _named(self, tool: str) -> bool:
        return tool in self.whole or tool.startswith(self.servers)

    def _named_by_rule(self, tool: str) -> bool:
        return any(_primary(rule) == tool for rule in self.rules)

    def offer(self, tools: Mapping[str, T]) -> dict[str, T]:
        """The tools the entries name (never a tool ``tools`` does not have)."""
        return {n: t for n, t in tools.items() if self._named(n) or self._named_by_rule(n)}

    def refusal(self, request: PermissionRequest, cwd: Path) -> str | None:
        """Why the entries do not cover ``request`` (None: they do)."""
        tool = request.tool
        if self._named(tool):
            return None
        rules = tuple(r for r in self.rules if tool in _family(r))
        if rules:
            from earshot.core.permissions.decision import decide  # loaded on first decision

            decision = decide(RuleSet(rules=rules), "ask", cwd, request, read_only=False)
            uncovered = list(dict.fromkeys(p.command for p in decision.commands if p.rule is None))
            if decision.outcome == "allow" and not uncovered:
                return None
            if uncovered:
                return f"{', '.join(uncovered)}: not allowed by {self.where}'s allowed-tools"
        return f"{self.where} allows only {', '.join(self.entries)}"

    def gate(self, inner: Gate, cwd: Path) -> Gate:
        """``inner``, refusing first what the entries do not cover."""
        return NarrowedGate(inner, self, cwd)


def _primary(rule: Rule) -> str:
    """The earshot tool a rule names (``Bash(...)`` names ``bash``, ``Edit(...)`` ``edit``)."""
    return CLAUDE_NAMES.get(rule.tool, rule.tool)


class NarrowedGate:
    """A session gate behind a command's ``allowed-tools``: a call they do not cover is
    refused; any other goes to the session's gate, which decides as always."""

    def __init__(self, inner: Gate, allowed: AllowedTools, cwd: Path) -> None:
        self.inner = inner
        self.allowed = allowed
        self.cwd = cwd

    @property
    def mode(self) -> Mode:
        return self.inner.mode

    @mode.setter
    def mode(self, value: Mode) -> None:
        self.inner.mode = value

    def check(self, request: PermissionRequest, *, read_only: bool) -> GateDecision:
        refused = self.allowed.refusal(request, self.cwd)
        if refused is not None:
            from earshot.core.permissions.decision import Decision

            return Decision("deny", refused)
        return self.inner.check(request, read_only=read_only)

    def grant_session(self, request: PermissionRequest) -> None:
        self.inner.grant_session(request)

    def denies_reads(self, tool: str) -> bool:
        return self.inner.denies_reads(tool)

    def read_denial(self, tool: str, path: Path, *, real: bool = False) -> str | None:
        return self.inner.read_denial(tool, path, real=real)


def parse_allowed(
    entries: Sequence[str], where: str, *, implied: Sequence[str] = ()
) -> AllowedTools | None:
    """``entries`` read (None when there are none); ``ValueError`` names the entry and how
    to write it. ``where`` names the command for refusals (``/commit``); ``implied`` are
    tools the turn keeps whatever the entries say (a skill's turn keeps ``skill``)."""
    whole: set[str] = set()
    servers: list[str] = []
    rules: list[Rule] = []
    for entry in (e.strip() for e in entries):
        if not entry:
            continue
        name, bracket, _ = entry.partition("(")
        name = name.strip()
        if not bracket:
            if name.startswith("mcp__") and (name.count("__") == 1 or name.endswith("__*")):
                servers.append(name.removesuffix("*").rstrip("_") + "__")
            else:
                whole.add(CLAUDE_NAMES.get(name, name))
            continue
        text = OURS_TO_CLAUDE.get(name, name) + entry[len(name) :]
        try:
            rule = parse_rule(text, "allow", scope="command", source=where, base=None)
        except ValueError as exc:
            raise ValueError(f"allowed-tools entry {entry!r}: {exc}") from exc
        if rule.kind == "tool":  # Bash(*): the whole tool
            whole.add(_primary(rule))
        else:
            rules.append(rule)
    if not (whole or servers or rules):
        return None
    whole.update(implied)
    return AllowedTools(tuple(entries), where, frozenset(whole), tuple(servers), tuple(rules))


if TYPE_CHECKING:  # the narrowed gate is a gate (checked by mypy, never run)

    def _conformance(gate: NarrowedGate) -> Gate:
        return gate


__all__ = ["AllowedTools", "NarrowedGate", "parse_allowed"]
