"""Fewer prompts because of the OS sandbox: in auto and accept-edits modes a shell command
that runs confined needs no prompt unless a rule asks or denies; ask mode still asks; what
the gate cannot read still asks; file tools are never affected (docs/sandbox.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from earshot.core.permissions import Mode, PermissionGate, decide
from earshot.core.permissions.decision import SANDBOX_REASON
from earshot.core.sandbox import SandboxConfig, open_sandbox
from tests.permissions.helpers import bash, edit, ruleset


@pytest.mark.parametrize(
    ("mode", "command", "sandboxed", "expected"),
    [
        ("accept-edits", "npm test", False, "ask"),
        ("accept-edits", "npm test", True, "allow"),
        ("accept-edits", "make build && ./run.sh", True, "allow"),
        ("ask", "npm test", True, "ask"),
        ("auto", "echo x > /etc/motd", False, "ask"),
        ("auto", "echo x > /etc/motd", True, "allow"),
        ("accept-edits", "cp notes.txt .git/config", True, "allow"),
        ("auto", "cp notes.txt .git/config", False, "ask"),
        ("accept-edits", 'eval "$CMD"', True, "ask"),
        ("auto", "python3 -c 'print(1)'", True, "ask"),
        ("plan", "npm test", True, "deny"),
    ],
)
def test_the_sandbox_lets_auto_and_accept_edits_ask_less(
    tmp_path: Path, mode: Mode, command: str, sandboxed: bool, expected: str
) -> None:
    decision = decide(
        ruleset(tmp_path), mode, tmp_path, bash(command), read_only=False, sandboxed=sandboxed
    )
    assert decision.outcome == expected, decision.reason
    if sandboxed and expected == "allow":
        assert SANDBOX_REASON in [p.reason for p in decision.commands]


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_rules_still_ask_and_deny_inside_the_sandbox(tmp_path: Path, mode: Mode) -> None:
    rules = ruleset(tmp_path, ask=["Bash(git push *)"], deny=["Bash(rm -rf *)"])
    asked = decide(rules, mode, tmp_path, bash("git push origin"), read_only=False, sandboxed=True)
    denied = decide(rules, mode, tmp_path, bash("rm -rf build"), read_only=False, sandboxed=True)
    assert asked.outcome == "ask" and asked.rule == "Bash(git push *)"
    assert denied.outcome == "deny" and denied.rule == "Bash(rm -rf *)"


def test_file_tools_are_not_relaxed_by_the_sandbox(tmp_path: Path) -> None:
    outside = tmp_path.parent / "elsewhere.txt"
    decision = decide(
        ruleset(tmp_path), "auto", tmp_path, edit(outside), read_only=False, sandboxed=True
    )
    assert decision.outcome == "ask"


def test_the_gate_relies_on_a_sandbox_only_when_it_really_confines(tmp_path: Path) -> None:
    gate = PermissionGate(ruleset(tmp_path), "accept-edits", tmp_path)
    assert gate.check(bash("npm test"), read_only=False).outcome == "ask"
    gate.sandbox = open_sandbox(tmp_path, SandboxConfig(mode="off"))
    assert gate.check(bash("npm test"), read_only=False).outcome == "ask"
    gate.sandbox = open_sandbox(tmp_path, SandboxConfig(), platform="win32")
    assert gate.check(bash("npm test"), read_only=False).outcome == "ask"
    if sys.platform.startswith("linux"):
        gate.sandbox = open_sandbox(tmp_path, SandboxConfig())
        assert gate.check(bash("npm test"), read_only=False).outcome == "allow"
        gate.mode = "ask"
        assert gate.check(bash("npm test"), read_only=False).outcome == "ask"


def _check(cwd: Path, command: str, mode: str, path: str | None = None) -> dict[str, object]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "earshot",
            "permissions",
            "check",
            f"Bash({command})",
            "--mode",
            mode,
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


def test_the_check_command_knows_about_the_sandbox(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    confined = _check(project, "npm test", "accept-edits")
    if sys.platform == "win32":  # no sandbox on Windows: the gate alone decides
        assert confined["decision"] == "ask"
        return
    assert confined["decision"] == "allow"
    assert "sandbox" in str(confined["reason"])
    if not sys.platform.startswith("linux"):
        return
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    for program in ("bash", "git"):
        found = shutil.which(program)
        assert found is not None
        (no_bwrap / program).symlink_to(found)
    assert _check(project, "npm test", "accept-edits", str(no_bwrap))["decision"] == "ask"
    (project / ".earshot").mkdir()
    (project / ".earshot/settings.local.json").write_text('{"sandbox": {"mode": "off"}}')
    assert _check(project, "npm test", "accept-edits")["decision"] == "ask"
