"""The scope contract over shell lines: every write the permission layer sees in a line
(redirections, tee, cp/mv/rm/mkdir/touch, sed -i ...) is checked against the declared
paths; a write whose place cannot be known before the line runs is never inside them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from earshot.core.permissions import PermissionGate
from earshot.core.permissions.gate import shell_write_targets
from earshot.core.sandbox import SandboxConfig, open_sandbox
from tests.permissions.helpers import bash, ruleset

OUTSIDE = [
    "echo hi > docs/x",
    "echo hi >> docs/x",
    "echo hi | tee docs/x",
    "echo hi | tee -a docs/x",
    "cp src/a docs/x",
    "cp -t docs src/a",
    "mv src/a docs/b",
    "mv docs/a src/b",  # a moved file is gone from where it was
    "rm docs/x",
    "rm -rf src/../docs",
    "rm docs/*.md",
    "mkdir docs/new",
    "touch docs/x",
    "touch {src,docs}/x",
    "sed -i s/a/b/ docs/x.md",
    "find docs -delete",
    "dd if=src/a of=docs/z",
    "truncate -s0 docs/q",
    "chmod +x docs/s",
    "ln -s src/a docs/l",
    "git diff --output=docs/p",
    "bash -c 'touch docs/y'",
    "exec 3> docs/x",
]
UNKNOWN = [
    ("cp src/a $DEST", "cp $DEST (computed when it runs)"),
    ("echo a > src/$NAME", "src/$NAME (computed when it runs)"),
    ("cd src && touch a", "touch a (after a change of directory)"),
    ("cd docs && touch src/x", "touch src/x (after a change of directory)"),
]
INSIDE = [
    "echo hi > src/x",
    "echo hi >> src/x",
    "echo hi | tee src/x",
    "cp docs/a src/x",
    "sed -i s/a/b/ src/x.py",
    "rm src/*.pyc",
    "mkdir -p src/pkg/sub && touch src/pkg/sub/__init__.py",
    "git status",
    "echo hi > /dev/null",
]


@pytest.fixture
def gate(tmp_path: Path) -> PermissionGate:
    for name in ("src", "docs"):
        (tmp_path / name).mkdir()
    gate = PermissionGate(ruleset(tmp_path, allow=["Bash"]), "auto", tmp_path)
    gate.scope.declare("fix the parser", ["src/**"], ["fix it"])
    return gate


@pytest.mark.parametrize("command", OUTSIDE)
def test_a_shell_write_outside_the_scope_asks(gate: PermissionGate, command: str) -> None:
    decision = gate.check(bash(command), read_only=False)
    assert decision.outcome == "ask", decision.reason
    assert decision.reason.startswith("outside the declared scope (src/**): ")


@pytest.mark.parametrize(("command", "said"), UNKNOWN)
def test_a_shell_write_whose_place_is_unknown_is_never_inside_the_scope(
    gate: PermissionGate, command: str, said: str
) -> None:
    paths, unknown = shell_write_targets(command)
    assert said in unknown and not [p for p in paths if "src" in p.parts]
    if sys.platform.startswith("linux"):  # even where bwrap confines the line, it asks
        gate.sandbox = open_sandbox(gate.cwd, SandboxConfig())
    assert gate.check(bash(command), read_only=False).outcome == "ask"


@pytest.mark.parametrize("command", INSIDE)
def test_a_shell_line_that_writes_inside_the_scope_is_decided_as_before(
    gate: PermissionGate, command: str
) -> None:
    assert gate.check(bash(command), read_only=False).outcome == "allow"


def test_without_a_declaration_and_in_yolo_the_scope_asks_nothing(tmp_path: Path) -> None:
    gate = PermissionGate(ruleset(tmp_path, allow=["Bash"]), "auto", tmp_path)
    assert gate.check(bash("touch docs/x"), read_only=False).outcome == "allow"
    gate.scope.declare("fix", ["src/**"], [])
    gate.mode = "yolo"
    assert gate.check(bash("touch docs/x"), read_only=False).outcome == "allow"


def test_a_home_path_is_checked_where_it_points(gate: PermissionGate) -> None:
    gate.scope.declare("fix", ["~/notes/**", "src/**"], [])
    if sys.platform.startswith("linux"):
        gate.sandbox = open_sandbox(gate.cwd, SandboxConfig())
    decision = gate.check(bash("echo hi > ~/elsewhere/x"), read_only=False)
    assert decision.outcome == "ask"
