"""Paths: symlinks and ``..`` are resolved before the outside-cwd check, and path rules
match gitignore-style."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.config.settings import load_settings
from earshot.core.permissions import RuleSet, load_rules
from earshot.core.permissions.match import Rule, matches_path
from earshot.core.permissions.rules import parse_rule
from tests.permissions.helpers import bash, check, edit, outcome, read, ruleset


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return root


def test_a_symlink_out_of_the_working_directory_is_a_write_outside(cwd: Path) -> None:
    (cwd / "link").symlink_to(cwd.parent / "outside")
    rules = ruleset(cwd, allow=["Edit"])
    for mode in ("ask", "accept-edits", "auto"):
        decision = check(rules, mode, cwd, edit(cwd / "link/file.txt"))
        assert decision.outcome == "ask", mode
        assert str(cwd.parent / "outside/file.txt") in decision.reason
    assert outcome(rules, "yolo", cwd, edit(cwd / "link/file.txt")) == "allow"


def test_a_symlinked_file_pointing_outside_is_a_write_outside(cwd: Path) -> None:
    (cwd.parent / "outside/notes.txt").write_text("x")
    (cwd / "notes.txt").symlink_to(cwd.parent / "outside/notes.txt")
    assert outcome(ruleset(cwd), "accept-edits", cwd, edit(cwd / "notes.txt")) == "ask"


def test_dot_dot_out_of_the_working_directory_is_a_write_outside(cwd: Path) -> None:
    request = edit(cwd / "src/../../outside/x.txt")
    assert outcome(ruleset(cwd, allow=["Edit"]), "auto", cwd, request) == "ask"


def test_dot_dot_that_stays_inside_is_a_write_inside(cwd: Path) -> None:
    assert outcome(ruleset(cwd), "accept-edits", cwd, edit(cwd / "src/../README.md")) == "allow"


def test_dot_dot_through_a_symlink_follows_the_link_first(cwd: Path) -> None:
    # cwd/src/deep -> outside/a/b: "deep/../x" is outside/a/x, not cwd/src/x
    (cwd.parent / "outside/a/b").mkdir(parents=True)
    (cwd / "src/deep").symlink_to(cwd.parent / "outside/a/b")
    request = edit(cwd / "src/deep/../x.txt")
    assert outcome(ruleset(cwd), "accept-edits", cwd, request) == "ask"


def test_a_working_directory_reached_through_a_symlink_is_still_inside(
    cwd: Path, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(cwd)
    rules = ruleset(alias, allow=["Edit(src/**)"])
    assert outcome(rules, "ask", alias, edit(alias / "src/a.py")) == "allow"
    assert outcome(rules, "ask", alias, edit(cwd / "src/a.py")) == "allow"
    assert outcome(ruleset(alias), "accept-edits", alias, edit(alias / "a.py")) == "allow"


def test_a_deny_rule_holds_through_a_symlink(cwd: Path) -> None:
    (cwd / "secrets").mkdir()
    (cwd / "secrets/key").write_text("k")
    (cwd / "innocent").symlink_to(cwd / "secrets/key")
    rules = ruleset(cwd, deny=["Read(./secrets/**)"])
    assert outcome(rules, "yolo", cwd, read(cwd / "innocent")) == "deny"


def test_a_deny_rule_holds_through_dot_dot(cwd: Path) -> None:
    rules = ruleset(cwd, deny=["Read(./.env)"])
    assert outcome(rules, "yolo", cwd, read(cwd / "src/../.env")) == "deny"


def test_an_allow_rule_is_not_satisfied_by_a_symlink_into_another_place(cwd: Path) -> None:
    (cwd / "lib").mkdir()
    (cwd / "src/link.py").symlink_to(cwd / "lib/real.py")
    rules = ruleset(cwd, allow=["Edit(src/**)"])
    assert outcome(rules, "ask", cwd, edit(cwd / "src/link.py")) == "ask"
    assert outcome(rules, "ask", cwd, edit(cwd / "src/plain.py")) == "allow"


def test_a_shell_redirect_through_a_symlink_is_a_write_outside(cwd: Path) -> None:
    (cwd / "out").symlink_to(cwd.parent / "outside")
    rules = ruleset(cwd, allow=["Bash(echo *)"])
    assert outcome(rules, "auto", cwd, bash("echo hi > out/file")) == "ask"
    assert outcome(rules, "auto", cwd, bash("echo hi > src/file")) == "allow"


def test_additional_directories_count_as_inside(cwd: Path) -> None:
    shared = (cwd.parent / "outside").resolve()
    rules = ruleset(cwd, additional=[shared])
    assert outcome(rules, "accept-edits", cwd, edit(shared / "a.txt")) == "allow"
    assert outcome(rules, "ask", cwd, edit(shared / "a.txt")) == "ask"
    assert outcome(ruleset(cwd), "accept-edits", cwd, edit(shared / "a.txt")) == "ask"


def test_writes_to_earshots_own_user_settings_prompt(cwd: Path, hermetic_env: Path) -> None:
    rules = load_rules(load_settings(cwd))
    target = hermetic_env / ".config/earshot/hooks/pre.sh"
    assert rules.protected_directories
    request = edit(target)
    plain = RuleSet(additional_directories=(hermetic_env,))
    with_protection = RuleSet(
        additional_directories=(hermetic_env,),
        protected_directories=rules.protected_directories,
    )
    assert outcome(plain, "auto", cwd, request) == "allow"
    assert outcome(with_protection, "auto", cwd, request) == "ask"


@pytest.mark.parametrize(
    "relative",
    [".git", ".git/config", "sub/.git/HEAD", ".earshot/skills/x/SKILL.md", ".zshrc", ".profile"],
)
def test_protected_places_inside_the_working_directory_prompt(cwd: Path, relative: str) -> None:
    rules = ruleset(cwd, allow=["Edit"])
    decision = check(rules, "auto", cwd, edit(cwd / relative))
    assert decision.outcome == "ask"
    assert "protected" in decision.reason


def rule(text: str, base: Path | None = Path("/proj")) -> Rule:
    return parse_rule(text, "deny", scope="project", source="test", base=base)


def covers(text: str, path: str, *, base: Path | None = Path("/proj"), cwd: str = "/proj") -> bool:
    return matches_path(rule(text, base), path, cwd, cwd)


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ("Read(.env)", "/proj/.env", True),
        ("Read(.env)", "/proj/a/b/.env", True),
        ("Read(.env)", "/elsewhere/.env", True),
        ("Read(.env)", "/proj/.envrc", False),
        ("Read(*.pem)", "/proj/certs/key.pem", True),
        ("Read(*.pem)", "/proj/key.pem.bak", False),
        ("Read(./.env)", "/proj/.env", True),
        ("Read(./.env)", "/proj/sub/.env", False),
        ("Edit(src/**)", "/proj/src/a/b.py", True),
        ("Edit(src/**)", "/proj/lib/src/b.py", False),
        ("Edit(src/*.py)", "/proj/src/a.py", True),
        ("Edit(src/*.py)", "/proj/src/a/b.py", False),
        ("Edit(src/**/*.py)", "/proj/src/a/b/c.py", True),
        ("Edit(src/**/*.py)", "/proj/src/c.py", True),
        ("Edit(src/?.py)", "/proj/src/a.py", True),
        ("Edit(src/[ab].py)", "/proj/src/c.py", False),
        ("Edit(src/[!ab].py)", "/proj/src/c.py", True),
        ("Read(secrets)", "/proj/secrets/key", True),
        ("Read(secrets/)", "/proj/x/secrets/key", True),
        ("Read(./secrets/)", "/proj/secrets/key", True),
        ("Write(/etc/**)", "/etc/passwd", True),
        ("Write(/etc/**)", "/proj/etc/passwd", False),
        ("Write(//etc/**)", "/etc/hosts", True),
        ("Read(../shared/**)", "/shared/a", True),
        ("Edit(**)", "/anything/at/all", True),
    ],
)
def test_path_rules_match_gitignore_style(text: str, path: str, expected: bool) -> None:
    assert covers(text, path) is expected


def test_home_rules_expand_to_the_home_directory(hermetic_env: Path) -> None:
    key = (hermetic_env / ".ssh/id_rsa").as_posix()
    assert covers("Read(~/.ssh/**)", key)
    assert covers("Read(~/.ssh)", key)
    assert not covers("Read(~/.ssh/**)", "/proj/.ssh/id_rsa")


def test_relative_rules_without_a_project_follow_the_working_directory() -> None:
    assert covers("Edit(./src/**)", "/work/a/src/x.py", base=None, cwd="/work/a")
    assert not covers("Edit(./src/**)", "/work/b/src/x.py", base=None, cwd="/work/a")
    assert covers("Edit(./src/**)", "/work/b/src/x.py", base=None, cwd="/work/b")
