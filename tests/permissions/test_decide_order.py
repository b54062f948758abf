"""The eight-step order, as a table: one row per step, one column per mode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from earshot.core.permissions import MODES, Mode, RuleSet
from earshot.core.tools.base import PermissionRequest
from tests.permissions.helpers import bash, check, edit, fetch, mcp, read, ruleset


@dataclass(frozen=True)
class Row:
    """A situation and the outcome expected in plan, ask, accept-edits, auto, yolo."""

    name: str
    rules: Callable[[Path], RuleSet]
    request: Callable[[Path], PermissionRequest]
    expected: tuple[str, str, str, str, str]
    reason: str = ""


def no_rules(base: Path) -> RuleSet:
    return ruleset(base)


ROWS = [
    # 1. a matching deny rule refuses, in every mode, whatever else matches
    Row(
        "deny rule beats an allow rule for the same command",
        lambda b: ruleset(b, deny=["Bash(rm *)"], allow=["Bash(rm *)", "Bash"]),
        lambda cwd: bash("rm -rf build"),
        ("deny", "deny", "deny", "deny", "deny"),
        "denied by Bash(rm *)",
    ),
    Row(
        "deny rule refuses a read-only tool",
        lambda b: ruleset(b, deny=["Read(./.env)"]),
        lambda cwd: read(cwd / ".env"),
        ("deny", "deny", "deny", "deny", "deny"),
        "denied by Read(./.env)",
    ),
    Row(
        "deny rule refuses a fetch",
        lambda b: ruleset(b, deny=["WebFetch(domain:evil.test)"], allow=["WebFetch"]),
        lambda cwd: fetch("evil.test"),
        ("deny", "deny", "deny", "deny", "deny"),
    ),
    Row(
        "deny rule refuses an MCP tool",
        lambda b: ruleset(b, deny=["mcp__db"], allow=["mcp__db__query"]),
        lambda cwd: mcp("mcp__db__query"),
        ("deny", "deny", "deny", "deny", "deny"),
    ),
    # 2. read-only tools never prompt, not even for an ask rule or outside cwd
    Row(
        "read-only tool with an ask rule",
        lambda b: ruleset(b, ask=["Read(./notes.txt)"]),
        lambda cwd: read(cwd / "notes.txt"),
        ("allow", "allow", "allow", "allow", "allow"),
        "read-only",
    ),
    Row(
        "read-only tool outside the working directory",
        no_rules,
        lambda cwd: read(Path("/etc/hosts"), tool="grep"),
        ("allow", "allow", "allow", "allow", "allow"),
    ),
    # 3. plan refuses every mutating tool, even one an allow rule covers
    Row(
        "plan refuses an allowed edit",
        lambda b: ruleset(b, allow=["Edit"]),
        lambda cwd: edit(cwd / "a.py"),
        ("deny", "allow", "allow", "allow", "allow"),
    ),
    Row(
        "plan refuses an allowed command",
        lambda b: ruleset(b, allow=["Bash(npm test)"]),
        lambda cwd: bash("npm test"),
        ("deny", "allow", "allow", "allow", "allow"),
    ),
    # 4. a write outside cwd prompts whatever the rules say, in every mode but yolo
    Row(
        "allowed edit outside the working directory",
        lambda b: ruleset(b, allow=["Edit", "Write(/**)"]),
        lambda cwd: edit(cwd.parent / "elsewhere.txt", tool="write"),
        ("deny", "ask", "ask", "ask", "allow"),
        "outside the working directory",
    ),
    Row(
        "allowed command redirecting outside the working directory",
        lambda b: ruleset(b, allow=["Bash(echo *)", "Edit"]),
        lambda cwd: bash(f"echo hi > {cwd.parent / 'out.txt'}"),
        ("deny", "ask", "ask", "ask", "allow"),
        "outside the working directory",
    ),
    Row(
        "edit of .git internals",
        lambda b: ruleset(b, allow=["Edit"]),
        lambda cwd: edit(cwd / ".git/hooks/pre-commit"),
        ("deny", "ask", "ask", "ask", "allow"),
        ".git/ is protected",
    ),
    Row(
        "edit of earshot's project settings",
        lambda b: ruleset(b, allow=["Edit"]),
        lambda cwd: edit(cwd / ".earshot/settings.json"),
        ("deny", "ask", "ask", "ask", "allow"),
        ".earshot/ is protected",
    ),
    Row(
        "redirect into a shell start-up file inside cwd",
        lambda b: ruleset(b, allow=["Bash(echo *)", "Edit"]),
        lambda cwd: bash("echo 'alias ls=rm' >> .bashrc"),
        ("deny", "ask", "ask", "ask", "allow"),
        "shell start-up files are protected",
    ),
    Row(
        "unreadable command with no deny rule to hide from",
        lambda b: ruleset(b, allow=["Bash"]),
        lambda cwd: bash('eval "$PAYLOAD"'),
        ("deny", "ask", "ask", "ask", "allow"),
        "cannot check",
    ),
    Row(
        "unreadable command where a deny rule could hide",
        lambda b: ruleset(b, allow=["Bash"], deny=["Bash(rm *)"]),
        lambda cwd: bash('eval "$PAYLOAD"'),
        ("deny", "ask", "ask", "ask", "ask"),
        "cannot check",
    ),
    # 5. yolo allows what no deny rule, no outside write and no unreadable part stops
    Row(
        "yolo allows an ask rule's command",
        lambda b: ruleset(b, ask=["Bash(git push *)"]),
        lambda cwd: bash("git push --force"),
        ("deny", "ask", "ask", "ask", "allow"),
    ),
    # 6. an ask rule prompts even where an allow rule matches
    Row(
        "ask rule beats allow rule",
        lambda b: ruleset(b, ask=["Bash(git push *)"], allow=["Bash(git *)"]),
        lambda cwd: bash("git push origin main"),
        ("deny", "ask", "ask", "ask", "allow"),
        "asked for by Bash(git push *)",
    ),
    Row(
        "ask rule on a path beats allow rule",
        lambda b: ruleset(b, ask=["Edit(*.lock)"], allow=["Edit"]),
        lambda cwd: edit(cwd / "uv.lock"),
        ("deny", "ask", "ask", "ask", "allow"),
    ),
    # 7. a matching allow rule allows
    Row(
        "allow rule allows a command",
        lambda b: ruleset(b, allow=["Bash(npm run *)"]),
        lambda cwd: bash("npm run build"),
        ("deny", "allow", "allow", "allow", "allow"),
        "allowed by Bash(npm run *)",
    ),
    Row(
        "allow rule allows a fetch",
        lambda b: ruleset(b, allow=["WebFetch(domain:docs.python.org)"]),
        lambda cwd: fetch("docs.python.org"),
        ("deny", "allow", "allow", "allow", "allow"),
    ),
    Row(
        "allow rule allows an MCP tool",
        lambda b: ruleset(b, allow=["mcp__db__*"]),
        lambda cwd: mcp("mcp__db__query"),
        ("deny", "allow", "allow", "allow", "allow"),
    ),
    # 8. otherwise the mode decides
    Row(
        "unmatched command",
        no_rules,
        lambda cwd: bash("make"),
        ("deny", "ask", "ask", "allow", "allow"),
    ),
    Row(
        "unmatched edit inside cwd",
        no_rules,
        lambda cwd: edit(cwd / "src/a.py"),
        ("deny", "ask", "allow", "allow", "allow"),
    ),
    Row(
        "unmatched shell write inside cwd",
        lambda b: ruleset(b, allow=["Bash(echo *)"]),
        lambda cwd: bash("echo hi > notes.txt"),
        ("deny", "ask", "allow", "allow", "allow"),
    ),
    Row(
        "unmatched fetch",
        no_rules,
        lambda cwd: fetch("example.com"),
        ("deny", "ask", "ask", "allow", "allow"),
    ),
    Row(
        "unmatched MCP tool",
        no_rules,
        lambda cwd: mcp("mcp__fs__write"),
        ("deny", "ask", "ask", "allow", "allow"),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
@pytest.mark.parametrize("mode", MODES)
def test_the_eight_steps_decide_in_order(tmp_path: Path, row: Row, mode: Mode) -> None:
    cwd = tmp_path / "repo"
    cwd.mkdir()
    decision = check(row.rules(cwd), mode, cwd, row.request(cwd))
    assert decision.outcome == row.expected[MODES.index(mode)], decision.reason
    if row.reason and mode in ("ask", "accept-edits", "auto") and decision.outcome != "allow":
        assert row.reason in decision.reason


def test_the_modes_are_the_five_in_order() -> None:
    assert MODES == ("plan", "ask", "accept-edits", "auto", "yolo")


def test_a_deciding_rule_is_named_with_its_source(tmp_path: Path) -> None:
    decision = check(ruleset(tmp_path, deny=["Bash(rm *)"]), "ask", tmp_path, bash("rm x"))
    assert (decision.outcome, decision.rule, decision.source) == ("deny", "Bash(rm *)", "test")


def test_a_decision_by_mode_names_no_rule(tmp_path: Path) -> None:
    decision = check(ruleset(tmp_path), "ask", tmp_path, bash("make"))
    assert (decision.rule, decision.source) == (None, None)
    assert "ask mode prompts" in decision.reason


def test_every_shell_part_carries_its_own_verdict(tmp_path: Path) -> None:
    rules = ruleset(tmp_path, allow=["Bash(git log *)"], deny=["Bash(rm *)"])
    decision = check(rules, "ask", tmp_path, bash("git log; make > out.txt; rm -rf x"))
    assert decision.outcome == "deny"
    assert [(p.command, p.kind, p.outcome, p.rule) for p in decision.commands] == [
        ("git log", "command", "allow", "Bash(git log *)"),
        ("make", "command", "ask", None),
        ("rm -rf x", "command", "deny", "Bash(rm *)"),
        ("> out.txt", "write", "ask", None),
        ("rm x", "write", "ask", None),
    ]
    assert decision.rule == "Bash(rm *)"
    assert decision.reason.startswith("rm -rf x: denied by Bash(rm *)")


def test_a_line_allowed_by_one_rule_names_it(tmp_path: Path) -> None:
    rules = ruleset(tmp_path, allow=["Bash(git *)"])
    decision = check(rules, "ask", tmp_path, bash("git status && git log"))
    assert (decision.outcome, decision.rule) == ("allow", "Bash(git *)")


def test_an_empty_command_is_left_to_the_mode(tmp_path: Path) -> None:
    assert check(ruleset(tmp_path), "ask", tmp_path, bash("# nothing")).outcome == "ask"
    assert check(ruleset(tmp_path), "auto", tmp_path, bash("")).outcome == "allow"


def test_kill_shell_follows_whole_tool_bash_rules(tmp_path: Path) -> None:
    request = PermissionRequest(tool="kill_shell", kind="execute", detail="kill shell 3")
    assert check(ruleset(tmp_path, deny=["Bash"]), "yolo", tmp_path, request).outcome == "deny"
    assert check(ruleset(tmp_path, allow=["Bash"]), "ask", tmp_path, request).outcome == "allow"
    assert check(ruleset(tmp_path, allow=["Bash(ls)"]), "ask", tmp_path, request).outcome == "ask"


def test_edit_rules_cover_write_and_write_rules_only_write(tmp_path: Path) -> None:
    rules = ruleset(tmp_path, allow=["Write(./out/**)"])
    assert check(rules, "ask", tmp_path, edit(tmp_path / "out/a", tool="write")).outcome == "allow"
    assert check(rules, "ask", tmp_path, edit(tmp_path / "out/a")).outcome == "ask"
    rules = ruleset(tmp_path, deny=["Edit(./out/**)"])
    assert check(rules, "auto", tmp_path, edit(tmp_path / "out/a", tool="write")).outcome == "deny"
    assert check(rules, "auto", tmp_path, edit(tmp_path / "out/a", "multi_edit")).outcome == "deny"
