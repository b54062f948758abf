"""Skills, command files and hooks, through ``earshot -p`` as a real process against the
fake provider: a shell-script hook that blocks bash and logs its stdin, a skill folder
with a script, namespaced commands with arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extend.conftest import tool_names, write
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.test_headless_cli import earshot, records


def test_a_namespaced_command_file_takes_arguments_and_includes_a_file(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    write(
        repo / ".earshot/commands/frontend/component.md",
        "---\ndescription: make a component\nargument-hint: <name> <kind>\n---\n"
        "Build the $1 component of kind $2 (all: $ARGUMENTS). Notes: @notes.txt\n",
    )
    fake_provider.script(anthropic.text_turn("done"))
    done = earshot(fake_provider, repo, "-p", "/frontend:component Button primary", env=home)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "Build the Button component of kind primary (all: Button primary)" in sent
    assert "alpha\\nbeta" in sent
    assert "/frontend:component" not in sent


def test_project_command_wins_over_user_and_bang_runs_only_through_the_gate(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    config = Path(home["XDG_CONFIG_HOME"]) / "earshot"
    write(config / "commands/greet.md", "Say hi to $ARGUMENTS from the user file\n")
    # Inline code needs a rule that names the flag (a read-only line such as `echo` would
    # run without one).
    bang = "!`python3 -c \"print('on-main')\"`"
    write(repo / ".claude/commands/greet.md", f"Greet $ARGUMENTS. Branch: {bang}\n")
    refused = earshot(fake_provider, repo, "-p", "/greet bob", env=home)
    assert refused.returncode != 0
    assert "python3 -c" in refused.stdout + refused.stderr
    assert not fake_provider.requests
    fake_provider.script(anthropic.text_turn("hi bob"))
    allow = "Bash(python3 -c *)"
    done = earshot(fake_provider, repo, "-p", "/greet bob", "--allow", allow, env=home)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "Greet bob. Branch: on-main" in sent
    assert "user file" not in sent


def test_a_skill_is_listed_by_name_and_its_tool_returns_body_and_files(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    folder = repo / ".earshot/skills/hello"
    write(folder / "SKILL.md", "---\nname: hello\ndescription: say hello well\n---\nRun it.\n")
    write(folder / "scripts/hello.sh", "#!/bin/sh\necho hello\n")
    write(repo / ".agents/skills/broken/SKILL.md", "---\nname: Broken Name\n---\nx\n")
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("s1", "skill", {"name": "hello"})]),
        anthropic.text_turn("used it"),
    )
    done = earshot(
        fake_provider, repo, "-p", "/hello greet", "--output-format", "stream-json", env=home
    )
    assert done.returncode == 0, done.stderr
    first = fake_provider.requests[0].json()
    assert "- hello: say hello well" in json.dumps(first["system"])
    assert "Run it." not in json.dumps(first["system"])
    assert "skill" in tool_names(fake_provider, 0)
    result = json.dumps(fake_provider.requests[1].json()["messages"])
    assert "Run it." in result
    assert "scripts/hello.sh" in result
    notices = [r for r in records(done.stdout) if r.get("type") == "notice"]
    assert any("broken/SKILL.md" in json.dumps(n) and "'name'" in json.dumps(n) for n in notices)


def test_no_skills_no_skill_tool(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    fake_provider.script(anthropic.text_turn("ok"))
    done = earshot(fake_provider, repo, "-p", "hi", env=home)
    assert done.returncode == 0, done.stderr
    assert "skill" not in tool_names(fake_provider, 0)


def test_a_shell_hook_blocks_bash_and_sees_the_payload(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "hook.log"
    script = write(
        tmp_path / "block.sh",
        f"#!/bin/sh\ncat >> {log}\necho 'no shell today' >&2\nexit 2\n",
    )
    script.chmod(0o755)
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": str(script)}]}
            ]
        }
    }
    write(Path(home["XDG_CONFIG_HOME"]) / "earshot/settings.json", json.dumps(settings))
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "echo hi > out.txt"})]),
        anthropic.text_turn("blocked"),
    )
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "write it",
        "--permission-mode",
        "yolo",
        "--output-format",
        "stream-json",
        env=home,
    )
    assert done.returncode == 0, done.stderr
    assert not (repo / "out.txt").exists()
    payload = json.loads(log.read_text())
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "Bash"
    assert payload["tool_input"] == {"command": "echo hi > out.txt"}
    assert payload["cwd"] == str(repo.resolve())
    assert payload["session_id"] and payload["transcript_path"]
    assert "no shell today" in json.dumps(fake_provider.requests[1].json()["messages"])
    ran = [r for r in records(done.stdout) if r.get("type") == "hook"]
    assert [(r["event"], r["decision"], r["exit_code"], r["matcher"]) for r in ran] == [
        ("PreToolUse", "block", 2, "Bash")
    ]
    assert ran[0]["output"] == "no shell today" and ran[0]["source"] == "user"
    assert not any("hook" in str(r.get("message", "")) for r in records(done.stdout))


def test_a_hook_cannot_allow(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str], tmp_path: Path
) -> None:
    answer = {
        "hookSpecificOutput": {"permissionDecision": "allow"},
        "systemMessage": "checked by the policy bot",
    }
    command = f"echo '{json.dumps(answer)}'"
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": command}]}]
        }
    }
    write(Path(home["XDG_CONFIG_HOME"]) / "earshot/settings.json", json.dumps(settings))
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "rm notes.txt"})]),
        anthropic.text_turn("refused"),
    )
    done = earshot(fake_provider, repo, "-p", "rm it", "--output-format", "stream-json", env=home)
    assert (repo / "notes.txt").exists()
    assert "never allow" in done.stdout
    notices = [str(r["message"]) for r in records(done.stdout) if r.get("type") == "notice"]
    assert any("checked by the policy bot" in n for n in notices)
    ran = [r for r in records(done.stdout) if r.get("type") == "hook"]
    assert [r["decision"] for r in ran] == ["ignored_allow"]


def test_project_hooks_wait_for_trust(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str], tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    settings = {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}
    }
    write(repo / ".earshot/settings.json", json.dumps(settings))
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("read"),
    )
    done = earshot(fake_provider, repo, "-p", "read", "--output-format", "stream-json", env=home)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "not trusted" in done.stdout
    shown = subprocess.run(
        [sys.executable, "-m", "earshot", "trust", "--yes"],
        cwd=repo,
        env={**os.environ, **home},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert f"touch {marker}" in shown.stdout
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("r2", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("read again"),
    )
    again = earshot(fake_provider, repo, "-p", "read", env=home)
    assert again.returncode == 0, again.stderr
    assert marker.exists()


def test_a_bad_hooks_block_names_the_file_and_field(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    path = write(
        Path(home["XDG_CONFIG_HOME"]) / "earshot/settings.json",
        '{"hooks": {"PreToolUse": [{"hooks": [{"command": 3}]}]}}',
    )
    done = earshot(fake_provider, repo, "-p", "hi", env=home)
    assert done.returncode != 0
    assert str(path) in done.stderr and "command" in done.stderr


def _hooks(home: dict[str, str], hooks: dict[str, object]) -> None:
    write(Path(home["XDG_CONFIG_HOME"]) / "earshot/settings.json", json.dumps({"hooks": hooks}))


def _one(command: str, matcher: str = "") -> list[dict[str, object]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


def test_prompt_hooks_add_context_or_reject_and_every_run_is_in_the_transcript(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str], tmp_path: Path
) -> None:
    gate = write(
        tmp_path / "prompt.sh",
        "#!/bin/sh\nif grep -q secret; then echo 'no secrets' >&2; exit 2; fi\necho 'sprint 7'\n",
    )
    gate.chmod(0o755)
    _hooks(home, {"UserPromptSubmit": _one(str(gate)), "SessionStart": _one("echo started-ok")})
    fake_provider.script(anthropic.text_turn("fine"))
    done = earshot(fake_provider, repo, "-p", "plan the week", env=home)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "plan the week" in sent and "sprint 7" in sent and "started-ok" in sent
    refused = earshot(fake_provider, repo, "-p", "the secret is x", env=home)
    assert refused.returncode != 0
    assert "no secrets" in refused.stdout + refused.stderr
    assert len(fake_provider.requests) == 1
    transcripts = list(Path(home["HOME"]).rglob("*.jsonl")) + list(
        Path(home["XDG_CONFIG_HOME"]).rglob("*.jsonl")
    )
    hooks = [
        json.loads(line)
        for path in transcripts
        for line in path.read_text().splitlines()
        if '"type":"hook"' in line
    ]
    assert {h["event"] for h in hooks} >= {"SessionStart", "UserPromptSubmit"}
    assert any(h["exit_code"] == 2 and h["decision"] == "block" for h in hooks)
    assert any(h["decision"] == "context" and h["output"] == "sprint 7" for h in hooks)


def test_after_a_stop_hook_sends_the_model_back_the_result_counts_every_round(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str], tmp_path: Path
) -> None:
    stop = write(
        tmp_path / "stop.sh",
        "#!/bin/sh\nif grep -q '\"stop_hook_active\": false'; then echo 'again' >&2; exit 2; fi\n",
    )
    stop.chmod(0o755)
    _hooks(home, {"Stop": _one(str(stop))})
    fake_provider.script(
        anthropic.text_turn("first", usage=anthropic.Usage(input_tokens=100, output_tokens=10)),
        anthropic.text_turn("second", usage=anthropic.Usage(input_tokens=200, output_tokens=20)),
    )
    done = earshot(fake_provider, repo, "-p", "go", "--output-format", "json", env=home)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["text"] == "second"
    assert result["num_turns"] == 2
    assert result["usage"]["input_tokens"] == 300
    assert result["usage"]["output_tokens"] == 30
    assert result["cost_usd"] is not None
    assert result["cost_usd"] == pytest.approx(result["total_cost_usd"])


def test_a_stop_hook_sends_the_model_back_once_and_post_tool_use_speaks_to_it(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str], tmp_path: Path
) -> None:
    stop = write(
        tmp_path / "stop.sh",
        "#!/bin/sh\nif grep -q '\"stop_hook_active\": false'; then echo 'run the tests' >&2; "
        "exit 2; fi\nexit 0\n",
    )
    stop.chmod(0o755)
    post = "echo 'remember to format' >&2; exit 2"
    _hooks(home, {"Stop": _one(str(stop)), "PostToolUse": _one(post, "Read")})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("first stop"),
        anthropic.text_turn("tests run"),
    )
    done = earshot(fake_provider, repo, "-p", "look", env=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "tests run\n"
    assert len(fake_provider.requests) == 3
    second = json.dumps(fake_provider.requests[1].json()["messages"])
    assert "remember to format" in second
    third = json.dumps(fake_provider.requests[2].json()["messages"])
    assert "run the tests" in third
