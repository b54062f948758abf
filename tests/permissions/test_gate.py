"""The session gate: decide() plus grants that allow exactly what was shown, nothing broader."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.permissions import PermissionGate
from earshot.core.tools.base import PermissionRequest
from tests.permissions.helpers import READ_ONLY_TOOLS, bash, edit, fetch, mcp, ruleset


def outcome(gate: PermissionGate, request: PermissionRequest) -> str:
    return gate.check(request, read_only=request.tool in READ_ONLY_TOOLS).outcome


@pytest.fixture
def gate(tmp_path: Path) -> PermissionGate:
    return PermissionGate(ruleset(tmp_path, deny=["Bash(curl *)"]), "ask", tmp_path)


def test_granting_a_compound_command_grants_exactly_its_commands(gate: PermissionGate) -> None:
    shown = bash("git status && rm -rf ./tmp")
    assert outcome(gate, shown) == "ask"
    gate.grant_session(shown)
    assert [g.text for g in gate.grants][:2] == ["Bash(git status)", "Bash(rm -rf ./tmp)"]
    assert [g.tool for g in gate.grants][2:] == ["Edit"]  # rm writes ./tmp
    assert outcome(gate, shown) == "allow"
    assert outcome(gate, bash("rm -rf ./tmp; git status")) == "allow"
    assert outcome(gate, bash("rm -rf ./other")) == "ask"
    assert outcome(gate, bash("rm -rf /")) == "ask"
    assert outcome(gate, bash("rm -rf ./tmp -v")) == "ask"


def test_a_granted_command_is_allowed_by_the_session(gate: PermissionGate) -> None:
    gate.grant_session(bash("npm test"))
    decision = gate.check(bash("npm test"), read_only=False)
    assert (decision.outcome, decision.rule, decision.source) == (
        "allow",
        "Bash(npm test)",
        "session",
    )


def test_a_grant_does_not_lift_a_deny_rule(gate: PermissionGate) -> None:
    gate.grant_session(bash("curl https://example.com"))
    assert outcome(gate, bash("curl https://example.com")) == "deny"


def test_a_grant_does_not_lift_an_ask_rule(tmp_path: Path) -> None:
    gate = PermissionGate(ruleset(tmp_path, ask=["Bash(git push *)"]), "ask", tmp_path)
    gate.grant_session(bash("git push"))
    assert outcome(gate, bash("git push")) == "ask"


def test_an_unreadable_part_cannot_be_granted(gate: PermissionGate) -> None:
    shown = bash('git log; eval "$X"')
    gate.grant_session(shown)
    assert [g.text for g in gate.grants] == ["Bash(git log)"]
    assert outcome(gate, shown) == "ask"


def test_xargs_grants_keep_the_marker_for_appended_arguments(gate: PermissionGate) -> None:
    gate.grant_session(bash("ls | xargs rm"))
    assert outcome(gate, bash("find . | xargs rm")) == "ask"  # find is not granted
    assert outcome(gate, bash("ls | xargs rm")) == "allow"
    assert outcome(gate, bash("rm")) == "ask"


def test_granting_an_edit_grants_that_file_only(gate: PermissionGate, tmp_path: Path) -> None:
    gate.grant_session(edit(tmp_path / "a.py"))
    assert outcome(gate, edit(tmp_path / "a.py")) == "allow"
    assert outcome(gate, edit(tmp_path / "a.py", tool="multi_edit")) == "allow"
    assert outcome(gate, edit(tmp_path / "b.py")) == "ask"


def test_a_granted_write_outside_the_working_directory_still_prompts(
    gate: PermissionGate, tmp_path: Path
) -> None:
    outside = tmp_path.parent / "elsewhere.txt"
    gate.grant_session(edit(outside))
    assert outcome(gate, edit(outside)) == "ask"


def test_granting_a_shell_write_grants_that_file(gate: PermissionGate) -> None:
    gate.grant_session(bash("echo hi > notes.txt"))
    assert outcome(gate, bash("echo hi > notes.txt")) == "allow"
    assert outcome(gate, bash("echo bye > notes.txt")) == "ask"


def test_granting_a_fetch_grants_that_host_only(gate: PermissionGate) -> None:
    gate.grant_session(fetch("Docs.Python.org."))
    assert outcome(gate, fetch("docs.python.org")) == "allow"
    assert outcome(gate, fetch("evil.docs.python.org")) == "ask"


def test_granting_an_mcp_call_grants_that_exact_call(gate: PermissionGate) -> None:
    gate.grant_session(mcp("mcp__db__query"))
    assert outcome(gate, mcp("mcp__db__query")) == "allow"
    assert outcome(gate, mcp("mcp__db__drop")) == "ask"


def test_grants_are_not_repeated(gate: PermissionGate) -> None:
    gate.grant_session(bash("make && make"))
    gate.grant_session(bash("make"))
    assert [g.text for g in gate.grants] == ["Bash(make)"]


def test_the_mode_can_be_switched_during_the_session(gate: PermissionGate) -> None:
    gate.grant_session(bash("make"))
    gate.mode = "plan"
    assert outcome(gate, bash("make")) == "deny"
    gate.mode = "auto"
    assert outcome(gate, bash("python3 x.py")) == "allow"


def test_grants_leave_the_rule_set_untouched(gate: PermissionGate) -> None:
    before = gate.rules
    gate.grant_session(bash("make"))
    assert gate.rules is before
    assert all(rule.scope != "session" for rule in gate.rules.rules)
