"""Rules load from three scopes and flags, never shadow each other, and fail loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.core.config.settings import SettingsError, load_settings
from earshot.core.permissions import load_rules
from earshot.core.permissions.rules import parse_rule
from tests.permissions.helpers import bash, edit, outcome, read


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def write_settings(path: Path, permissions: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}))
    return path


def user_file(home: Path) -> Path:
    return home / ".config/earshot/settings.json"


def test_rules_from_every_scope_and_the_flags_are_concatenated(
    project: Path, hermetic_env: Path
) -> None:
    write_settings(user_file(hermetic_env), {"deny": ["Bash(rm *)"]})
    write_settings(project / ".earshot/settings.json", {"ask": ["Bash(git push *)"]})
    write_settings(project / ".earshot/settings.local.json", {"allow": ["Bash(git log *)"]})
    rules = load_rules(load_settings(project), allow=["Bash(make)"], deny=["WebFetch"])
    assert [(r.text, r.action, r.scope) for r in rules.rules] == [
        ("Bash(rm *)", "deny", "user"),
        ("Bash(git push *)", "ask", "project"),
        ("Bash(git log *)", "allow", "local"),
        ("WebFetch", "deny", "cli"),
        ("Bash(make)", "allow", "cli"),
    ]
    assert rules.rules[0].source == str(user_file(hermetic_env))
    assert rules.rules[3].source == "--deny"


def test_a_project_allow_cannot_lift_a_user_deny(project: Path, hermetic_env: Path) -> None:
    write_settings(user_file(hermetic_env), {"deny": ["Bash(rm *)", "Read(~/.ssh/**)"]})
    write_settings(
        project / ".earshot/settings.json",
        {"allow": ["Bash(rm *)", "Bash", "Read(~/.ssh/**)"], "defaultMode": "auto"},
    )
    write_settings(project / ".earshot/settings.local.json", {"allow": ["Bash(rm -rf *)"]})
    rules = load_rules(load_settings(project))
    for mode in ("ask", "auto", "yolo"):
        assert outcome(rules, mode, project, bash("rm -rf build")) == "deny"
        key = hermetic_env / ".ssh/id_ed25519"
        assert outcome(rules, mode, project, read(key)) == "deny"


def test_a_user_allow_cannot_lift_a_project_deny(project: Path, hermetic_env: Path) -> None:
    write_settings(user_file(hermetic_env), {"allow": ["Edit"]})
    write_settings(project / ".earshot/settings.json", {"deny": ["Edit(./secrets/**)"]})
    rules = load_rules(load_settings(project))
    assert outcome(rules, "auto", project, edit(project / "secrets/key")) == "deny"
    assert outcome(rules, "ask", project, edit(project / "src/a.py")) == "allow"


def test_an_ask_rule_in_any_scope_beats_an_allow_in_another(
    project: Path, hermetic_env: Path
) -> None:
    write_settings(user_file(hermetic_env), {"allow": ["Bash(git *)"]})
    write_settings(project / ".earshot/settings.local.json", {"ask": ["Bash(git push *)"]})
    rules = load_rules(load_settings(project))
    assert outcome(rules, "auto", project, bash("git push origin main")) == "ask"
    assert outcome(rules, "ask", project, bash("git status")) == "allow"


def test_the_last_scope_that_sets_the_default_mode_wins(project: Path, hermetic_env: Path) -> None:
    write_settings(user_file(hermetic_env), {"defaultMode": "auto"})
    assert load_rules(load_settings(project)).default_mode == "auto"
    local = write_settings(project / ".earshot/settings.local.json", {"defaultMode": "plan"})
    rules = load_rules(load_settings(project))
    assert (rules.default_mode, rules.default_mode_source) == ("plan", str(local))


def test_no_settings_means_ask_mode_and_no_rules(project: Path) -> None:
    rules = load_rules(load_settings(project))
    assert (rules.rules, rules.default_mode, rules.default_mode_source) == ((), "ask", None)


def test_additional_directories_resolve_against_the_project(project: Path) -> None:
    (project.parent / "shared").mkdir()
    write_settings(
        project / ".earshot/settings.local.json",
        {"additionalDirectories": ["../shared", "~/notes"]},
    )
    rules = load_rules(load_settings(project))
    assert rules.additional_directories == (
        (project.parent / "shared").resolve(),
        (Path.home() / "notes").resolve(),
    )


def test_a_relative_additional_directory_in_user_settings_is_an_error(
    project: Path, hermetic_env: Path
) -> None:
    write_settings(user_file(hermetic_env), {"additionalDirectories": ["shared"]})
    with pytest.raises(SettingsError, match="must be absolute"):
        load_rules(load_settings(project))


@pytest.mark.parametrize(
    ("permissions", "message"),
    [
        ({"allow": ["Bash("]}, r"Tool or Tool\(specifier\)"),
        ({"allow": ["Shell(ls)"]}, "unknown tool 'Shell'"),
        ({"deny": ["Bash()"]}, "empty specifier"),
        ({"deny": ["Bash(a; b)"]}, "one simple command"),
        ({"deny": ["Bash(npm:* run)"]}, "may only end a pattern"),
        ({"allow": ["WebFetch(example.com)"]}, "WebFetch\\(domain:example.com\\)"),
        ({"allow": ["WebFetch(domain:a/b)"]}, "not a host name"),
        ({"allow": ["Read(!secret)"]}, "negated paths"),
        ({"allow": ["Read(~bob/x)"]}, "only ~/"),
        ({"allow": ["mcp__srv__tool(x)"]}, "no specifier"),
        ({"allow": [42]}, "must be a rule string"),
        ({"allow": "Bash"}, "must be a list of rules"),
        ({"allow": [{"rule": "Bash", "example": []}]}, "write a rule as a string"),
        ({"allow": [{"rule": "Bash", "match": "ls"}]}, "must be a list of strings"),
        ({"defaultMode": "careful"}, "unknown permission mode 'careful'"),
        ({"defaultMode": 3}, "defaultMode: must be one of"),
        ({"deny_list": []}, "unknown field"),
        ({"additionalDirectories": "x"}, "must be a list of directory paths"),
    ],
)
def test_an_invalid_rule_names_the_file_and_the_rule(
    project: Path, permissions: object, message: str
) -> None:
    path = write_settings(project / ".earshot/settings.json", permissions)
    with pytest.raises(SettingsError, match=message) as caught:
        load_rules(load_settings(project))
    assert str(caught.value).startswith(f"{path}: permissions")


def test_the_error_quotes_the_rule_and_its_position(project: Path) -> None:
    write_settings(project / ".earshot/settings.json", {"deny": ["Bash(rm *)", "Bash(x | y)"]})
    with pytest.raises(SettingsError, match=r"permissions\.deny\[1\]: 'Bash\(x \| y\)'"):
        load_rules(load_settings(project))


def test_a_permissions_section_that_is_not_an_object_is_an_error(project: Path) -> None:
    (project / ".earshot").mkdir()
    (project / ".earshot/settings.json").write_text('{"permissions": ["Bash"]}')
    with pytest.raises(SettingsError, match="must be an object"):
        load_rules(load_settings(project))


def test_an_invalid_flag_rule_names_the_flag(project: Path) -> None:
    with pytest.raises(SettingsError, match="--allow 'Nope'"):
        load_rules(load_settings(project), allow=["Nope"])


def test_examples_that_hold_load_quietly(project: Path) -> None:
    write_settings(
        project / ".earshot/settings.local.json",
        {
            "allow": [
                {
                    "rule": "Bash(git log *)",
                    "match": ["git log -5", "git log", "/usr/bin/git log --oneline"],
                    "not_match": ["git log; rm x", "git logs", "git log $(rm x)", "./git log"],
                },
                {"rule": "Edit(src/**)", "match": ["src/a.py"], "not_match": ["lib/a.py"]},
                {"rule": "WebFetch(domain:*.example.com)", "match": ["https://a.example.com/x"]},
                {"rule": "mcp__db__*", "match": ["mcp__db__query"], "not_match": ["mcp__fs__r"]},
            ],
            "deny": [
                {"rule": "Bash(rm *)", "match": ["ls && rm -rf x", "sudo rm x"]},
                {"rule": "Read(.env)", "match": ["config/.env"], "not_match": [".envrc"]},
            ],
        },
    )
    assert len(load_rules(load_settings(project)).rules) == 6


@pytest.mark.parametrize(
    ("entry", "example"),
    [
        ({"rule": "Bash(git log *)", "match": ["git status"]}, "'git status'"),
        ({"rule": "Bash(git log *)", "not_match": ["git log -5"]}, "'git log -5'"),
        ({"rule": "Bash(git log *)", "match": ["git log; rm x"]}, "'git log; rm x'"),
        ({"rule": "Edit(src/**)", "match": ["lib/a.py"]}, "'lib/a.py'"),
    ],
)
def test_a_failing_example_is_an_error(project: Path, entry: object, example: str) -> None:
    write_settings(project / ".earshot/settings.json", {"allow": [entry]})
    with pytest.raises(SettingsError, match=f"example {example}"):
        load_rules(load_settings(project))


def test_parsed_rules_keep_what_was_written() -> None:
    rule = parse_rule("  Bash(npm run:*) ", "allow", scope="cli", source="--allow", base=None)
    assert (rule.text, rule.tool, rule.kind) == ("Bash(npm run:*)", "Bash", "command")
    assert parse_rule("Bash(*)", "deny", scope="cli", source="x", base=None).kind == "tool"
    assert parse_rule("mcp__srv", "deny", scope="cli", source="x", base=None).kind == "mcp"
