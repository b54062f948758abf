"""One session's permission gate: ``decide`` over the session's rules, mode and grants.

The gate never asks anyone: an ``ask`` decision goes back to the caller, which prompts (or,
headless, refuses). ``grant_session`` records "allow this for the rest of the session" as
exact rules of scope ``session``, one per command, file, host or action the request showed,
never a pattern: granting ``git log -5 && npm test`` allows exactly ``git log -5`` and
``npm test``. A grant is an allow rule, so deny rules, ask rules, plan mode, writes outside
the working directory and protected places still win over it, and a part earshot cannot
read can never be granted. Grants live in memory only; they are not saved or restored.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING

from earshot.core.permissions import match as m
from earshot.core.permissions.rules import MCP, Mode, RuleSet
from earshot.core.tools.contract import ScopeContract

if TYPE_CHECKING:
    from earshot.core.permissions.decision import Decision
    from earshot.core.tools.base import PermissionRequest
    from earshot.core.tools.state import ShellSandbox

# The decision order, the bash parser and the path matching load with the first call the
# gate decides (``check``, ``read_denial``, ``grant_session``), not with the session: a
# turn that calls no tool (and the first model request of every turn) never needs them.

SESSION = "session"


class PermissionGate:
    def __init__(self, rules: RuleSet, mode: Mode, cwd: Path) -> None:
        self.rules = rules
        self.mode: Mode = mode
        self.cwd = cwd
        self._grants: list[m.Rule] = []
        self._effective = rules
        self._real_cwd = ""
        self.sandbox: ShellSandbox | None = None
        """The OS sandbox shell commands run in; where it confines them, auto and
        accept-edits modes ask less (``decide``'s ``sandboxed``)."""
        self.scope = ScopeContract()
        """The session's scope contract: one object, shared by every subagent."""

    @property
    def grants(self) -> tuple[m.Rule, ...]:
        return tuple(self._grants)

    def check(self, request: PermissionRequest, *, read_only: bool) -> Decision:
        """``decide`` with the session's grants added to its allow rules and the OS sandbox
        taken into account for shell commands in auto and accept-edits modes; then the scope
        contract: once declared, a change outside its paths (a file tool's, or any write of
        a shell line: ``shell_write_targets``) or a declaration that widens them asks in
        every mode but yolo, whatever allowed it."""
        from earshot.core.permissions.decision import Decision, decide

        sandboxed = (
            request.tool == "bash"
            and self.mode in ("auto", "accept-edits")
            and self.sandbox is not None
            and self.sandbox.confines()
        )
        decision = decide(
            self._effective, self.mode, self.cwd, request, read_only=read_only, sandboxed=sandboxed
        )
        if decision.outcome != "allow" or self.mode == "yolo":
            return decision
        why = self._scope_question(request, read_only=read_only)
        return decision if not why else Decision("ask", why)

    def _scope_question(self, request: PermissionRequest, *, read_only: bool) -> str:
        if request.tool == "declare_scope" and request.scope_paths:
            return "this widens the declared scope by: " + ", ".join(request.scope_paths)
        if read_only or not self.scope.declared:
            return ""
        paths: list[Path] = list(request.paths) if request.kind == "edit" else []
        unknown: list[str] = []
        if request.command is not None:
            found, unknown = shell_write_targets(request.command)
            paths += found
        outside = self.scope.outside(paths, self.cwd) + unknown
        if outside:
            return f"outside the declared scope ({', '.join(self.scope.paths)}): " + ", ".join(
                outside
            )
        return ""

    def denies_reads(self, tool: str) -> bool:
        """Whether any deny rule could keep ``tool`` from reading some path."""
        return bool(self.rules.select("deny", tool))

    def read_denial(self, tool: str, path: Path, *, real: bool = False) -> str | None:
        """The deny rule that keeps ``tool`` from reading ``path`` (its text and origin), or
        None: what grep, glob and ls ask about each entry below the directory the gate let
        them into. The same matching as ``check`` (``paths.read_denial``)."""
        from earshot.core.permissions.paths import lexical, read_denial, resolved

        if not self._real_cwd:
            self._real_cwd = resolved(lexical("/", self.cwd.as_posix()))
        rule = read_denial(self.rules, self.cwd, tool, path, real=real, real_cwd=self._real_cwd)
        return None if rule is None else f"{rule.text} ({rule.scope} {rule.source})"

    def grant_session(self, request: PermissionRequest) -> None:
        """Allow, for the rest of the session, exactly what ``request`` showed."""
        known = {(g.tool, g.exact) for g in self._grants}
        for grant in session_grants(request, self.cwd):
            if (grant.tool, grant.exact) not in known:
                known.add((grant.tool, grant.exact))
                self._grants.append(grant)
        self._effective = self.rules.with_rules(self._grants)


def shell_write_targets(command: str) -> tuple[list[Path], list[str]]:
    """What a shell line writes, as the scope contract checks it: the paths of its literal
    targets (``>``/``>>``/``tee``/``cp``/``mv``/``rm``/``mkdir``/``touch``/``sed -i`` ...:
    every write ``shell.parse_line`` finds, ``~`` expanded), and the writes whose place
    cannot be known before the line runs (a computed target, a relative one after a
    ``cd``), each said as "what (why)": those are never inside a scope."""
    from earshot.core.permissions.shell import parse_line

    parsed = parse_line(command)
    paths: list[Path] = []
    unknown: list[str] = []
    for write in parsed.writes:
        shown = f"{write.via} {write.target}" if write.via not in (">", ">>") else write.target
        if not write.literal:
            unknown.append(f"{shown} (computed when it runs)")
        elif write.tilde:
            paths.append(Path(os.path.expanduser(write.target)))
        elif parsed.changes_dir and not write.target.startswith("/"):
            unknown.append(f"{shown} (after a change of directory)")
        else:
            paths.append(Path(write.target))
    return paths, unknown


def _grant(tool: str, exact: str, shown: str) -> m.Rule:
    return m.Rule(shown, "allow", tool, "exact", SESSION, SESSION, exact=exact)


def session_grants(request: PermissionRequest, cwd: Path) -> list[m.Rule]:
    """The exact allow rules that "allow for this session" on ``request`` adds."""
    tool = request.tool
    base = posixpath.normpath(cwd.as_posix())
    if tool == "bash" and request.command is not None:
        from earshot.core.permissions.shell import parse_line

        parsed = parse_line(request.command)
        grants = [
            _grant("Bash", c.text, f"Bash({c.text})") for c in parsed.commands if not c.opaque
        ]
        for write in parsed.writes:
            relative = not write.target.startswith(("/", "~"))
            if not write.literal or write.glob or (relative and parsed.changes_dir):
                continue
            target = os.path.expanduser(write.target) if write.tilde else write.target
            real = _real(posixpath.join(base, target))
            grants.append(_grant("Edit", real, f"Edit({real})"))
        return grants
    if request.paths and request.kind == "edit":
        family = "Write" if tool == "write" else "Edit"
        reals = [_real(posixpath.join(base, p.as_posix())) for p in request.paths]
        return [_grant(family, real, f"{family}({real})") for real in reals]
    if tool == "web_fetch" and request.domain is not None:
        host = request.domain.lower().rstrip(".")
        return [_grant("WebFetch", host, f"WebFetch(domain:{host})")]
    subject = f"{tool}:{request.detail}"
    key = MCP if tool.startswith("mcp__") else tool
    return [_grant(key, subject, f"{tool} ({request.detail})" if request.detail else tool)]


def _real(path: str) -> str:
    return Path(os.path.realpath(path)).as_posix()


__all__ = ["PermissionGate", "session_grants", "shell_write_targets"]
