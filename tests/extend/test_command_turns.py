"""What a command file or skill changes for its one turn, through ``earshot -p`` as a real
process against the fake provider with real git: ``allowed-tools`` narrows by full
permission rule and never grants, ``effort`` sets that turn's reasoning effort."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.extend.conftest import tool_names, write
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.test_headless_cli import earshot, records


def _bash(call_id: str, command: str) -> ToolCallSpec:
    return ToolCallSpec(call_id, "bash", {"command": command})


def _staged(repo: Path) -> list[str]:
    done = subprocess.run(
        ["git", "diff", "--cached", "--name-only"], cwd=repo, capture_output=True, text=True
    )
    return done.stdout.split()


def _permissions(stdout: str) -> list[tuple[str, str]]:
    found = [r for r in records(stdout) if r.get("type") == "permission"]
    return [(str(r["decision"]), str(r["reason"])) for r in found]


def _sorted_names(fake: FakeProvider, index: int) -> list[str]:
    return sorted(tool_names(fake, index))


STAGE = "---\ndescription: stage files\nallowed-tools: Bash(git add:*), Read\n---\nStage $1.\n"


def test_allowed_tools_narrow_the_turn_by_rule(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    write(repo / ".earshot/commands/stage.md", STAGE)
    fake_provider.script(
        anthropic.tool_calls_turn(
            [
                _bash("b1", "git add notes.txt"),
                _bash("b2", "git add notes.txt && rm notes.txt"),
                _bash("b3", "ls"),
            ]
        ),
        anthropic.text_turn("staged"),
    )
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "/stage notes.txt",
        "--permission-mode",
        "yolo",
        "--output-format",
        "stream-json",
        env=home,
    )
    assert done.returncode == 0, done.stderr
    assert _sorted_names(fake_provider, 0) == ["bash", "read"]
    assert _staged(repo) == ["notes.txt"]
    assert (repo / "notes.txt").exists()
    decided = _permissions(done.stdout)
    assert decided[0][0] == "allow"
    assert decided[1] == ("deny", "rm notes.txt: not allowed by /stage's allowed-tools")
    assert decided[2] == ("deny", "ls: not allowed by /stage's allowed-tools")


def test_allowed_tools_never_grant_what_the_gate_would_not(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    write(repo / ".earshot/commands/stage.md", STAGE)
    fake_provider.script(
        anthropic.tool_calls_turn([_bash("b1", "git add notes.txt")]),
        anthropic.text_turn("refused"),
    )
    # yolo mode, but the user's deny rule still refuses what allowed-tools names
    denied = earshot(
        fake_provider,
        repo,
        "-p",
        "/stage notes.txt",
        "--permission-mode",
        "yolo",
        "--deny",
        "Bash(git add *)",
        "--output-format",
        "stream-json",
        env=home,
    )
    assert denied.returncode == 0, denied.stderr
    assert _staged(repo) == []
    assert "Bash(git add *)" in _permissions(denied.stdout)[0][1]
    # in ask mode nobody can approve headless: naming it in allowed-tools approves nothing
    fake_provider.script(
        anthropic.tool_calls_turn([_bash("b2", "git add notes.txt")]),
        anthropic.text_turn("not approved"),
    )
    asked = earshot(
        fake_provider, repo, "-p", "/stage notes.txt", "--output-format", "stream-json", env=home
    )
    assert asked.returncode == 0, asked.stderr
    assert _staged(repo) == []
    assert _permissions(asked.stdout)[0][0] == "deny"


def test_a_bang_line_outside_allowed_tools_fails_the_command(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    body = "---\nallowed-tools: Bash(git status:*)\n---\nBranch: !`git branch --show-current`\n"
    write(repo / ".earshot/commands/where.md", body)
    done = earshot(fake_provider, repo, "-p", "/where", "--permission-mode", "yolo", env=home)
    assert done.returncode != 0
    assert "git branch --show-current" in done.stdout + done.stderr
    assert "allowed-tools" in done.stdout + done.stderr
    assert not fake_provider.requests


def test_bad_allowed_tools_or_effort_skip_the_command_naming_file_and_field(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    bad_tools = write(repo / ".earshot/commands/odd.md", "---\nallowed-tools: Grep(x)\n---\nx\n")
    bad_effort = write(repo / ".earshot/commands/hard.md", "---\neffort: extreme\n---\nx\n")
    fake_provider.script(anthropic.text_turn("ok"))
    done = earshot(fake_provider, repo, "-p", "hi", "--output-format", "stream-json", env=home)
    assert done.returncode == 0, done.stderr
    notices = [str(r["message"]) for r in records(done.stdout) if r.get("type") == "notice"]
    assert any(str(bad_tools) in n and "'allowed-tools'" in n and "Grep" in n for n in notices)
    assert any(str(bad_effort) in n and "'effort'" in n and "extreme" in n for n in notices)


def test_a_skill_turn_keeps_the_skill_tool_and_its_effort(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    write(
        repo / ".earshot/skills/tidy/SKILL.md",
        "---\nname: tidy\ndescription: tidy the notes\nallowed-tools: Read\neffort: low\n---\n"
        "Read the notes and say what to tidy.\n",
    )
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("s1", "skill", {"name": "tidy"})]),
        anthropic.text_turn("tidy it"),
    )
    done = earshot(fake_provider, repo, "-p", "/tidy", env=home)
    assert done.returncode == 0, done.stderr
    assert _sorted_names(fake_provider, 0) == ["read", "skill"]
    for request in fake_provider.requests:
        assert request.json()["output_config"] == {"effort": "low"}
    assert "Read the notes" in json.dumps(fake_provider.requests[1].json()["messages"])
