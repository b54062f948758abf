"""``earshot permissions check|list``: the command functions in process, and the real
command as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from earshot.cli.permissions_cmd import check, list_rules


@pytest.fixture
def project(tmp_path: Path, hermetic_env: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".earshot").mkdir(parents=True)
    (root / ".earshot/settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)"]}})
    )
    (root / ".earshot/settings.local.json").write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(git log *)", "Edit(src/**)"],
                    "defaultMode": "accept-edits",
                }
            }
        )
    )
    user = hermetic_env / ".config/earshot/settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"permissions": {"deny": ["Bash(rm *)"]}}))
    return root


def run_json(capsys: pytest.CaptureFixture[str], request: str, cwd: Path, **kw: str) -> object:
    assert check(request, mode=kw.get("mode"), as_json=True, cwd=cwd) == 0
    return json.loads(capsys.readouterr().out)


def test_check_explains_a_compound_command_part_by_part(
    project: Path, hermetic_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = run_json(capsys, "Bash(git log; rm -rf x)", project)
    user = str(hermetic_env / ".config/earshot/settings.json")
    assert found == {
        "decision": "deny",
        "rule": "Bash(rm *)",
        "source": user,
        "reason": f"rm -rf x: denied by Bash(rm *) (user {user})",
        "mode": "accept-edits",
        "commands": [
            {
                "command": "git log",
                "kind": "command",
                "decision": "allow",
                "rule": "Bash(git log *)",
                "source": str(project / ".earshot/settings.local.json"),
                "reason": "allowed by Bash(git log *) "
                f"(local {project}/.earshot/settings.local.json)",
            },
            {
                "command": "rm -rf x",
                "kind": "command",
                "decision": "deny",
                "rule": "Bash(rm *)",
                "source": user,
                "reason": f"denied by Bash(rm *) (user {user})",
            },
            {
                "command": "rm x",
                "kind": "write",
                "decision": "allow",
                "rule": None,
                "source": None,
                "reason": "accept-edits mode allows file edits in the working directory",
            },
        ],
    }


def test_check_prints_a_readable_explanation(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check("Bash(git log -5 && make)", mode="ask", as_json=False, cwd=project) == 0
    out = capsys.readouterr().out
    assert out.startswith("decision: ask\n")
    assert "mode:     ask (--mode)" in out
    assert "  allow  git log -5  allowed by Bash(git log *)" in out
    assert "  ask    make        no rule allows this command; ask mode prompts" in out


@pytest.mark.parametrize(
    ("request_text", "mode", "decision"),
    [
        ("Read(.env)", None, "deny"),
        ("Read(README.md)", None, "allow"),
        ("Edit(src/a.py)", "ask", "allow"),
        ("Edit(lib/a.py)", "ask", "ask"),
        ("Edit(lib/a.py)", None, "allow"),
        ("Write(/etc/passwd)", "auto", "ask"),
        ("Edit(.git/config)", "auto", "ask"),
        ("WebFetch(https://example.com/page)", "auto", "allow"),
        ("WebFetch(example.com)", "ask", "ask"),
        ("mcp__db__query", "plan", "deny"),
        ("Bash(git log)", "plan", "allow"),
        ("Bash(make)", "plan", "deny"),
    ],
)
def test_check_accepts_every_kind_of_request(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    request_text: str,
    mode: str | None,
    decision: str,
) -> None:
    assert check(request_text, mode=mode, as_json=True, cwd=project) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == decision


@pytest.mark.parametrize("request_text", ["Bash()", "Foo(x)", "Bash", "Read(", "WebFetch(://)"])
def test_a_malformed_request_exits_2_and_says_how_to_write_it(
    project: Path, capsys: pytest.CaptureFixture[str], request_text: str
) -> None:
    assert check(request_text, mode=None, as_json=False, cwd=project) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("earshot: ")


def test_an_unknown_mode_exits_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check("Bash(ls)", mode="careful", as_json=False, cwd=project) == 2
    assert "use one of plan, ask, accept-edits, auto, yolo" in capsys.readouterr().err


def test_bad_settings_exit_2_naming_the_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".earshot/settings.local.json"
    path.write_text('{"permissions": {"allow": ["Bash(a | b)"]}}')
    assert check("Bash(ls)", mode=None, as_json=False, cwd=project) == 2
    assert list_rules(as_json=False, cwd=project) == 2
    assert str(path) in capsys.readouterr().err


def test_list_prints_the_effective_rules_with_their_sources(
    project: Path, hermetic_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert list_rules(as_json=True, cwd=project) == 0
    found = json.loads(capsys.readouterr().out)
    user = str(hermetic_env / ".config/earshot/settings.json")
    settings = str(project / ".earshot/settings.json")
    local = str(project / ".earshot/settings.local.json")
    assert found == {
        "defaultMode": "accept-edits",
        "defaultModeSource": local,
        "additionalDirectories": [],
        "rules": [
            {"rule": "Bash(rm *)", "list": "deny", "scope": "user", "source": user},
            {"rule": "Read(./.env)", "list": "deny", "scope": "project", "source": settings},
            {"rule": "Bash(git log *)", "list": "allow", "scope": "local", "source": local},
            {"rule": "Edit(src/**)", "list": "allow", "scope": "local", "source": local},
        ],
    }


def test_list_as_text_groups_rules_by_list(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert list_rules(as_json=False, cwd=project) == 0
    out = capsys.readouterr().out
    assert out.startswith("default mode: accept-edits (")
    assert out.index("deny:") < out.index("allow:")
    assert "  Bash(git log *)  local" in out


def test_list_with_no_settings_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert list_rules(as_json=False, cwd=tmp_path) == 0
    assert capsys.readouterr().out == "default mode: ask (default)\nno rules\n"


def earshot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_the_real_check_command_explains_a_decision(project: Path) -> None:
    done = earshot("permissions", "check", "Bash(git log; rm -rf x)", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert (found["decision"], found["rule"], found["mode"]) == (
        "deny",
        "Bash(rm *)",
        "accept-edits",
    )
    assert [(c["command"], c["decision"]) for c in found["commands"]] == [
        ("git log", "allow"),
        ("rm -rf x", "deny"),
        ("rm x", "allow"),
    ]


def test_the_real_check_command_takes_a_mode(project: Path) -> None:
    done = earshot("permissions", "check", "Edit(lib/a.py)", "--mode", "ask", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("decision: ask\n")


def test_the_real_check_command_exits_2_for_a_malformed_request(project: Path) -> None:
    done = earshot("permissions", "check", "Nope(x)", cwd=project)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "cannot read the request 'Nope(x)'" in done.stderr


def test_the_real_list_command_prints_the_rules(project: Path) -> None:
    done = earshot("permissions", "list", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert [r["rule"] for r in json.loads(done.stdout)["rules"]] == [
        "Bash(rm *)",
        "Read(./.env)",
        "Bash(git log *)",
        "Edit(src/**)",
    ]
