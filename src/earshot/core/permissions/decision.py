"""The decision: rules, mode, cwd and one request in; allow, ask or deny out, with why.

The order, for every request (and, for a shell command, for every part of it: each command
it would run, each file it would write, each piece the parser could not read)::

    1  a matching deny rule refuses, in every mode
    2  a read-only tool is allowed, and so is a shell line of read-only programs
       (``shell.ParsedLine.read_only``) unless an ask rule names one of its commands
    3  plan mode refuses
    4  a write outside the working directory and the additional directories, or to a
       protected place (.earshot/, .git/, shell start-up files, earshot's own settings),
       prompts; so does a part earshot cannot read (what it cannot read could be denied)
       -- in yolo mode only the unreadable part still prompts, and only when a deny rule
       of its tool exists for it to hide from
    5  yolo mode allows
    6  a matching ask rule prompts, even where an allow rule also matches
    7  a matching allow rule (or a session grant) allows
    8  the mode: ask prompts; accept-edits allows file edits (and shell writes) inside the
       working directory and prompts for the rest; auto allows

A shell command is denied if any part is denied (a file argument a Read deny rule covers is
a part too), prompts if any part prompts, and is allowed only when every part is allowed.
Inline code (``python3 -c``) is allowed only by an allow rule naming its flag, and auto mode
prompts for it; the shell-only checks are in ``_line.py``. ``decide`` never prompts and
never writes; it reads the file system only to resolve symlinks (and to expand a glob).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, assert_never

from earshot.core.permissions import _line
from earshot.core.permissions import match as m
from earshot.core.permissions import paths as pp
from earshot.core.permissions.rules import (
    MCP,
    PROTECTED_NAMES,
    SHELL_STARTUP_FILES,
    Mode,
    RuleSet,
)
from earshot.core.permissions.shell import ParsedLine, ShellCommand, ShellWrite, parse_line
from earshot.core.tools.base import PermissionRequest

Outcome = Literal["allow", "ask", "deny"]
PartKind = Literal["command", "write", "read", "unreadable"]

SANDBOX_REASON = "the OS sandbox confines it (auto and accept-edits modes; docs/sandbox.md)"


@dataclass(frozen=True)
class CommandVerdict:
    """The verdict on one part of a shell command: a command it runs (``command`` is its
    canonical text), a file it writes (``> path``), or a piece earshot could not read."""

    command: str
    kind: PartKind
    outcome: Outcome
    reason: str
    rule: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class Decision:
    """``rule`` and ``source`` name the rule that decided and the file (or flag, or
    ``session``) it came from, when a rule decided; ``commands`` holds a shell command's
    parts, each with its own verdict, in the order the line runs them."""

    outcome: Outcome
    reason: str
    rule: str | None = None
    source: str | None = None
    commands: tuple[CommandVerdict, ...] = ()
    changes_nothing: bool = False
    """A shell line of read-only programs that writes no file (``ParsedLine.read_only``):
    running it changes no file, so it needs no undo snapshot."""


@dataclass(frozen=True)
class _Verdict:
    """``confinable``: an ask that the OS sandbox makes needless for a shell command (a
    write outside the project or to a protected place, which the sandbox stops; or a
    command accept-edits mode would ask about, which the sandbox confines)."""

    outcome: Outcome
    reason: str
    rule: m.Rule | None = None
    confinable: bool = False


class _Place:
    """The working directory, additional directories and protected directories, resolved
    once per decision and only when a path needs them."""

    def __init__(self, rules: RuleSet, cwd: Path) -> None:
        self.cwd = pp.lexical("/", cwd.as_posix())
        self._rules = rules
        self._real_cwd = ""

    @property
    def real_cwd(self) -> str:
        if not self._real_cwd:
            self._real_cwd = _real(self.cwd)
        return self._real_cwd

    def roots(self) -> tuple[str, ...]:
        return (self.real_cwd, *(d.as_posix() for d in self._rules.additional_directories))

    def forms(self, path: str) -> tuple[str, str]:
        """The path as given (normalised, relative to cwd if relative) and with symlinks
        resolved."""
        return pp.forms(self.cwd, path)

    def outside(self, real: str) -> bool:
        return not any(_under(real, root) for root in self.roots())

    def protected(self, forms: tuple[str, str]) -> str:
        for path in forms:
            parts = path.lower().split("/") if m.CASE_INSENSITIVE_PATHS else path.split("/")
            for name in PROTECTED_NAMES:
                if name in parts:
                    return f"{name}/ is protected"
            if parts[-1] in SHELL_STARTUP_FILES:
                return "shell start-up files are protected"
            for directory in self._rules.protected_directories:
                if _under(path, directory.as_posix()):
                    return "earshot's own settings are protected"
        return ""


def _real(path: str) -> str:
    return Path(os.path.realpath(path)).as_posix()


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _rule_reason(verdict: str, rule: m.Rule) -> str:
    return f"{verdict} by {rule.text} ({rule.scope} {rule.source})"


def _mode_verdict(mode: Mode, *, edit: bool, what: str) -> _Verdict:
    """Step 8. Writes outside the working directory never get here (step 4)."""
    match mode:
        case "plan":
            return _Verdict("deny", "plan mode refuses every change")
        case "yolo":
            return _Verdict("allow", "yolo mode allows it")
        case "auto":
            return _Verdict("allow", "auto mode allows it")
        case "accept-edits" if edit:
            return _Verdict("allow", "accept-edits mode allows file edits in the working directory")
        case "accept-edits" | "ask":
            return _Verdict("ask", f"no rule allows {what}; {mode} mode prompts", confinable=True)
        case _:
            assert_never(mode)


def _rule_denial(rule: m.Rule) -> _Verdict:
    return _Verdict("deny", _rule_reason("denied", rule), rule)


def _early(deny: m.Rule | None, read_only: bool, mode: Mode) -> _Verdict | None:
    """Steps 1 to 3."""
    if deny is not None:
        return _rule_denial(deny)
    if read_only:
        return _Verdict("allow", "read-only tools never prompt")
    if mode == "plan":
        return _Verdict("deny", "plan mode refuses every change")
    return None


def _late(
    ask: m.Rule | None, allow: m.Rule | None, mode: Mode, *, edit: bool, what: str
) -> _Verdict:
    """Steps 5 to 8."""
    if mode == "yolo":
        return _Verdict("allow", "yolo mode allows it")
    if ask is not None:
        return _Verdict("ask", _rule_reason("asked for", ask), ask)
    if allow is not None:
        return _Verdict("allow", _rule_reason("allowed", allow), allow)
    return _mode_verdict(mode, edit=edit, what=what)


def _unreadable(rules: RuleSet, mode: Mode, tool: str, why: str) -> _Verdict | None:
    if mode != "yolo" or rules.select("deny", tool):
        return _Verdict("ask", f"earshot cannot check this: {why}")
    return None


def _path_verdict(
    rules: RuleSet,
    mode: Mode,
    place: _Place,
    tool: str,
    paths: tuple[str, ...],
    *,
    read_only: bool,
    write: bool,
) -> _Verdict:
    forms = [place.forms(p) for p in paths]
    every = tuple(f for pair in forms for f in pair)
    deny = pp.first_match(rules.select("deny", tool), every, place.cwd, place.real_cwd)
    early = _early(deny, read_only, mode)
    if early is not None:
        return early
    if write and mode != "yolo":
        for literal, real in forms:
            if place.outside(real):
                return _Verdict(
                    "ask",
                    f"writes {real}, outside the working directory and additional directories",
                    confinable=True,
                )
            why = place.protected((literal, real))
            if why:
                return _Verdict("ask", f"writes {literal}: {why}", confinable=True)
    ask = pp.first_match(rules.select("ask", tool), every, place.cwd, place.real_cwd)
    reals = tuple(real for _, real in forms)
    allow = _all_paths_allowed(rules.select("allow", tool), reals, place)
    return _late(ask, allow, mode, edit=write and bool(paths), what="this file change")


def _all_paths_allowed(
    rules: tuple[m.Rule, ...], reals: tuple[str, ...], place: _Place
) -> m.Rule | None:
    """Allow rules must cover every path, with its symlinks resolved."""
    found: m.Rule | None = None
    for real in reals:
        rule = pp.first_match(rules, (real,), place.cwd, place.real_cwd)
        if rule is None:
            return None
        found = found or rule
    return found


def decide(
    rules: RuleSet,
    mode: Mode,
    cwd: Path,
    request: PermissionRequest,
    *,
    read_only: bool,
    sandboxed: bool = False,
) -> Decision:
    """The decision on ``request`` (see the module docstring for the order). ``sandboxed``:
    a shell command will run inside the OS sandbox, so in auto and accept-edits modes what
    the sandbox stops (writes outside the project, to protected places) or confines (any
    command) needs no prompt; rules still ask and deny, and an unreadable part still asks."""
    place = _Place(rules, cwd)
    if request.tool == "bash" and request.command is not None:
        parsed = parse_line(request.command)
        if parsed.commands or parsed.writes or parsed.problems:
            confined = sandboxed and mode in ("auto", "accept-edits")
            return _decide_line(rules, mode, place, parsed, read_only=read_only, confined=confined)
    verdict = _reads_denied(rules, place, request)
    if verdict is None:
        verdict = _decide_request(rules, mode, place, request, read_only=read_only)
    return _decision(verdict)


def _reads_denied(rules: RuleSet, place: _Place, request: PermissionRequest) -> _Verdict | None:
    """Step 1 for the files a call reads besides those it is about (``edit`` reads the file
    it changes): a matching ``Read`` deny rule refuses it."""
    if not request.reads:
        return None
    every = tuple(f for p in request.reads for f in place.forms(p.as_posix()))
    deny = pp.first_match(rules.select("deny", "read"), every, place.cwd, place.real_cwd)
    return None if deny is None else _Verdict("deny", _rule_reason("denied", deny), deny)


def _decision(verdict: _Verdict, parts: tuple[CommandVerdict, ...] = ()) -> Decision:
    rule = verdict.rule
    return Decision(
        verdict.outcome,
        verdict.reason,
        rule.text if rule is not None else None,
        rule.source if rule is not None else None,
        parts,
    )


def _subject(request: PermissionRequest) -> str:
    return f"{request.tool}:{request.detail}"


def _decide_request(
    rules: RuleSet, mode: Mode, place: _Place, request: PermissionRequest, *, read_only: bool
) -> _Verdict:
    tool = request.tool
    if request.paths and tool not in ("web_fetch",) and not tool.startswith("mcp__"):
        paths = tuple(p.as_posix() for p in request.paths)
        write = request.kind == "edit"
        return _path_verdict(rules, mode, place, tool, paths, read_only=read_only, write=write)
    key = MCP if tool.startswith("mcp__") else tool
    subject = _subject(request)

    def first(action: m.Action) -> m.Rule | None:
        for rule in rules.select(action, key):
            if rule.tool == "WebFetch" and m.matches_domain(rule, request.domain):
                return rule
            if rule.tool != "WebFetch" and m.matches_tool(rule, tool, subject):
                return rule
        return None

    early = _early(first("deny"), read_only, mode)
    if early is not None:
        return early
    edit = request.kind == "edit" and bool(request.paths)
    return _late(first("ask"), first("allow"), mode, edit=edit, what=f"this {tool} call")


def _decide_line(
    rules: RuleSet,
    mode: Mode,
    place: _Place,
    parsed: ParsedLine,
    *,
    read_only: bool,
    confined: bool = False,
) -> Decision:
    parts: list[CommandVerdict] = []
    verdicts: list[_Verdict] = []

    def add(text: str, kind: PartKind, verdict: _Verdict) -> None:
        if confined and verdict.outcome == "ask" and verdict.confinable:
            verdict = _Verdict("allow", SANDBOX_REASON)
        rule = verdict.rule
        verdicts.append(verdict)
        parts.append(
            CommandVerdict(
                text,
                kind,
                verdict.outcome,
                verdict.reason,
                rule.text if rule is not None else None,
                rule.source if rule is not None else None,
            )
        )

    line_read_only = parsed.read_only and not _line.denied_below(
        rules, place.cwd, place.real_cwd, parsed
    )
    for command in parsed.commands:
        verdict = _command_verdict(rules, mode, command, read_only)
        if line_read_only and verdict.outcome != "allow" and verdict.rule is None:
            verdict = _Verdict("allow", _line.READ_ONLY_REASON)  # step 2 for shell lines
        add(command.text, "command", verdict)
    for write in parsed.writes:
        add(
            f"{write.via} {write.target}",
            "write",
            _write_verdict(rules, mode, place, parsed, write, read_only),
        )
    for read in parsed.reads:
        denied = _line.read_denial(rules, place.cwd, place.real_cwd, parsed, read)
        if denied is not None:
            add(f"{read.via} {read.target}", "read", _rule_denial(denied))
    for problem in parsed.problems:
        found = _early(None, read_only, mode) or _unreadable(rules, mode, "bash", problem)
        add(problem, "unreadable", found or _Verdict("allow", "yolo mode allows it"))
    decision = _decision(_combine(verdicts, [p.command for p in parts]), tuple(parts))
    return replace(decision, changes_nothing=True) if parsed.read_only else decision


def _combine(verdicts: list[_Verdict], texts: list[str]) -> _Verdict:
    """Deny if any part is denied, ask if any asks, else allow; the first part with the
    outcome gives the reason and the rule."""
    if len(verdicts) == 1:
        return verdicts[0]
    for outcome in ("deny", "ask"):
        for verdict, text in zip(verdicts, texts, strict=True):
            if verdict.outcome == outcome:
                return _Verdict(outcome, f"{_short(text)}: {verdict.reason}", verdict.rule)
    used = {v.rule for v in verdicts}
    rule = verdicts[0].rule
    if len(used) == 1 and rule is not None:
        return _Verdict("allow", f"every part is {_rule_reason('allowed', rule)}", rule)
    return _Verdict("allow", "every part is allowed")


def _command_verdict(
    rules: RuleSet, mode: Mode, command: ShellCommand, read_only: bool
) -> _Verdict:
    texts = (command.text, *command.also)
    readable = not command.opaque
    deny = m.first_command_match(rules.select("deny", "bash"), texts, readable)
    early = _early(deny, read_only, mode)
    if early is not None:
        return early
    if not readable:
        unreadable = _unreadable(rules, mode, "bash", command.opaque)
        if unreadable is not None:
            return unreadable
    ask = m.first_command_match(rules.select("ask", "bash"), texts, readable)
    allowing = rules.select("allow", "bash")
    if command.inline:
        allowing = _line.naming_rules(allowing, command.inline)
    allow = m.first_command_match(allowing, texts[:1], True) if readable else None
    if command.inline and allow is None and ask is None and mode == "auto":
        return _Verdict("ask", _line.inline_reason(command.inline))
    return _late(ask, allow, mode, edit=False, what="this command")


def _write_verdict(
    rules: RuleSet,
    mode: Mode,
    place: _Place,
    parsed: ParsedLine,
    write: ShellWrite,
    read_only: bool,
) -> _Verdict:
    target = write.target
    why = ""
    if not write.literal:
        why = "the file it writes is computed when it runs"
    elif write.tilde:
        target = os.path.expanduser(target)
    elif parsed.changes_dir and not target.startswith("/"):
        why = "the line changes directory before it writes this relative path"
    if write.glob and not why:
        return _line_glob_write(rules, mode, place, parsed, target, read_only)
    if why:
        early = _early(None, read_only, mode)
        if early is not None:
            return early
        unreadable = _unreadable(rules, mode, "write", why)
        return unreadable or _Verdict("allow", "yolo mode allows it")
    return _path_verdict(rules, mode, place, "write", (target,), read_only=read_only, write=True)


def _line_glob_write(
    rules: RuleSet, mode: Mode, place: _Place, parsed: ParsedLine, target: str, read_only: bool
) -> _Verdict:
    """A write to every path the glob ``target`` could expand to."""
    globs = _line.absolute_globs(target, place.cwd)
    for glob in globs:
        deny = m.first_glob_match(
            rules.select("deny", "write"), glob, place.cwd, place.real_cwd, parsed.dotglob
        )
        if deny is not None:
            return _rule_denial(deny)
    early = _early(None, read_only, mode)
    if early is not None:
        return early
    for glob in globs:
        why = _line.glob_escapes(
            glob, place.roots(), rules.protected_directories, PROTECTED_NAMES, SHELL_STARTUP_FILES
        )
        if why:
            unreadable = _unreadable(rules, mode, "write", why)
            return unreadable or _Verdict("allow", "yolo mode allows it")
    ask = None
    for glob in globs:
        ask = ask or m.first_glob_match(
            rules.select("ask", "write"), glob, place.cwd, place.real_cwd, parsed.dotglob
        )
    return _late(ask, None, mode, edit=True, what="this file change")


__all__ = ["CommandVerdict", "Decision", "Outcome", "PartKind", "decide"]
