"""``earshot permissions check`` and the real decision agree on every case of the bypass
corpus: the check command with the project's settings file, and the ``bash`` tool's own
request through the session gate the agent loop uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from earshot.cli.permissions_cmd import check
from earshot.core.config.settings import load_settings
from earshot.core.permissions import PermissionGate, load_rules
from earshot.core.tools.base import ToolContext
from earshot.core.tools.bash import TOOL
from earshot.core.tools.state import ToolState
from tests.permissions.bypass_corpus import ALLOW, ASK, CLASSES, CORPUS, DENY, Case


@pytest.fixture
def project(tmp_path: Path, hermetic_env: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".earshot").mkdir(parents=True)
    # The corpus is about what the gate reads in a command line, so the OS sandbox (which
    # lets auto and accept-edits ask less; tests/permissions/test_sandboxed.py) is off here.
    settings = {
        "permissions": {"allow": ALLOW, "ask": ASK, "deny": DENY},
        "sandbox": {"mode": "off"},
    }
    (root / ".earshot/settings.local.json").write_text(json.dumps(settings))
    return root


def real_decision(project: Path, case: Case) -> str:
    """What the agent loop's gate decides on the bash tool's request for ``case``."""
    ctx = ToolContext(cwd=project, state=ToolState())
    request = TOOL.prepare({"command": case.command}, ctx).request
    gate = PermissionGate(load_rules(load_settings(project)), case.mode, project)
    return gate.check(request, read_only=TOOL.read_only).outcome


def test_check_and_the_gate_agree_on_every_corpus_case(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    disagreements = []
    for case in CORPUS:
        assert check(f"Bash({case.command})", mode=case.mode, as_json=True, cwd=project) == 0
        said = json.loads(capsys.readouterr().out)["decision"]
        done = real_decision(project, case)
        if (said, done) != (case.expected, case.expected):
            disagreements.append((case.kind, case.shape, case.expected, said, done))
    assert disagreements == []


FIRST_OF_EACH_CLASS = [next(c for c in CORPUS if c.kind == kind) for kind in CLASSES]


@pytest.mark.parametrize("case", FIRST_OF_EACH_CLASS, ids=lambda c: c.kind)
def test_the_real_check_command_decides_each_class(project: Path, case: Case) -> None:
    argv = [sys.executable, "-m", "earshot", "permissions", "check", f"Bash({case.command})"]
    argv.extend(["--mode", case.mode, "--json"])
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=project,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decision"] == case.expected == real_decision(project, case)
