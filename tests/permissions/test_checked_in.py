"""A checked-in settings file arrives with ``git clone``: it may narrow (deny and ask rules,
``plan`` or ``ask``) but never widen what the user set; what it may not set is ignored with a
notice naming the file and the key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from earshot.core.config.settings import load_settings
from earshot.core.permissions import load_rules
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.permissions.helpers import bash, edit, outcome
from tests.test_headless_cli import earshot


@pytest.fixture
def project(tmp_path: Path, hermetic_env: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".earshot").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "notes.txt").write_text("keep me\n")
    return root


def write(path: Path, permissions: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}))
    return path


def checked_in(project: Path) -> Path:
    return project / ".earshot/settings.json"


@pytest.mark.parametrize("mode", ["auto", "accept-edits", "yolo"])
def test_a_checked_in_file_cannot_choose_a_wider_mode(project: Path, mode: str) -> None:
    path = write(checked_in(project), {"defaultMode": mode})
    rules = load_rules(load_settings(project))
    assert rules.default_mode == "ask"
    (notice,) = rules.notices
    assert f"{path}: permissions.defaultMode ignored" in notice
    assert f"cannot choose {mode}" in notice


@pytest.mark.parametrize("mode", ["plan", "ask"])
def test_a_checked_in_file_may_choose_a_narrower_mode(
    project: Path, hermetic_env: Path, mode: str
) -> None:
    write(hermetic_env / ".config/earshot/settings.json", {"defaultMode": "auto"})
    write(checked_in(project), {"defaultMode": mode})
    rules = load_rules(load_settings(project))
    assert (rules.default_mode, rules.notices) == (mode, ())


def test_checked_in_allow_rules_are_ignored_but_deny_and_ask_rules_count(project: Path) -> None:
    path = write(
        checked_in(project),
        {"allow": ["Bash", "Edit"], "ask": ["Bash(git push *)"], "deny": ["Bash(curl *)"]},
    )
    rules = load_rules(load_settings(project))
    assert [(r.text, r.action) for r in rules.rules] == [
        ("Bash(curl *)", "deny"),
        ("Bash(git push *)", "ask"),
    ]
    (notice,) = rules.notices
    assert notice.startswith(f"{path}: permissions.allow ignored")
    assert outcome(rules, "ask", project, bash("make")) == "ask"
    assert outcome(rules, "ask", project, edit(project / "notes.txt")) == "ask"
    assert outcome(rules, "auto", project, bash("git push origin")) == "ask"
    assert outcome(rules, "yolo", project, bash("curl x.dev")) == "deny"


def test_the_same_allow_rules_count_from_the_users_own_files(
    project: Path, hermetic_env: Path
) -> None:
    write(project / ".earshot/settings.local.json", {"allow": ["Bash(make)"]})
    write(hermetic_env / ".config/earshot/settings.json", {"allow": ["Edit"]})
    rules = load_rules(load_settings(project), allow=["Bash(npm test)"])
    assert rules.notices == ()
    for command in ("make", "npm test"):
        assert outcome(rules, "ask", project, bash(command)) == "allow"
    assert outcome(rules, "ask", project, edit(project / "notes.txt")) == "allow"


def test_a_local_file_committed_to_git_counts_as_checked_in(project: Path) -> None:
    path = write(project / ".earshot/settings.local.json", {"allow": ["Bash"]})
    write(path, {"allow": ["Bash"], "defaultMode": "yolo"})
    subprocess.run(["git", "add", "-f", str(path)], cwd=project, check=True)
    rules = load_rules(load_settings(project))
    assert (rules.rules, rules.default_mode) == ((), "ask")
    assert len(rules.notices) == 2
    assert all("a settings file git tracks" in n for n in rules.notices)


def test_checked_in_additional_directories_must_stay_in_the_project(
    project: Path, hermetic_env: Path
) -> None:
    (project / "docs").mkdir()
    (project.parent / "elsewhere").mkdir()
    path = write(
        checked_in(project),
        {"additionalDirectories": ["docs", "../elsewhere", "~", "/"]},
    )
    rules = load_rules(load_settings(project))
    assert rules.additional_directories == ((project / "docs").resolve(),)
    (notice,) = rules.notices
    assert f"{path}: permissions.additionalDirectories ignored" in notice
    assert str((project.parent / "elsewhere").resolve()) in notice
    assert outcome(rules, "accept-edits", project, edit(project.parent / "elsewhere/x")) == "ask"


def test_earshot_says_which_file_and_key_it_ignored(
    fake_provider: FakeProvider, project: Path
) -> None:
    path = write(checked_in(project), {"defaultMode": "yolo", "allow": ["Bash"]})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "rm notes.txt"})]),
        anthropic.text_turn("could not"),
    )
    done = earshot(fake_provider, project, "-p", "clean up", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert (project / "notes.txt").exists()
    assert f"{path}: permissions.defaultMode ignored" in done.stderr
    assert f"{path}: permissions.allow ignored" in done.stderr
    checked = subprocess.run(
        [sys.executable, "-m", "earshot", "permissions", "check", "Bash(rm x)", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0
    assert json.loads(checked.stdout)["mode"] == "ask"
    assert "permissions.defaultMode ignored" in checked.stderr
