"""Hooks written for Claude Code in ``.claude/settings.json`` and ``.claude/settings.local.json``
run unchanged, under the same trust rule as ``.earshot`` ones: through ``earshot -p`` as a
real process against the fake provider, with real shell-script hooks and real git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.extend.conftest import write
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.test_headless_cli import earshot, records


def _logging_hook(repo: Path) -> None:
    """``.claude/hooks/log.sh``: appends the event and its environment's key variable."""
    script = write(
        repo / ".claude/hooks/log.sh",
        '#!/bin/sh\nread -r payload\necho "$payload" >> "$CLAUDE_PROJECT_DIR/hook.log"\n'
        'echo "key=${ANTHROPIC_API_KEY:-unset}" >> "$CLAUDE_PROJECT_DIR/hook.log"\n',
    )
    script.chmod(0o755)


def _settings(matcher: str = "Read") -> str:
    group = {
        "matcher": matcher,
        "hooks": [{"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/log.sh'}],
    }
    return json.dumps({"permissions": {"allow": ["Bash"]}, "hooks": {"PreToolUse": [group]}})


def _read_turn(fake: FakeProvider) -> None:
    fake.script(
        anthropic.tool_calls_turn([ToolCallSpec("r1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("read it"),
    )


def _trust(repo: Path, home: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", "trust", "--yes"],
        cwd=repo,
        env={**os.environ, **home},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_checked_in_claude_hooks_wait_for_trust_then_run_unchanged(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    _logging_hook(repo)
    write(repo / ".claude/settings.json", _settings())
    _read_turn(fake_provider)
    before = earshot(fake_provider, repo, "-p", "read", "--output-format", "stream-json", env=home)
    assert before.returncode == 0, before.stderr
    assert not (repo / "hook.log").exists()
    warned = [r for r in records(before.stdout) if r.get("type") == "notice"]
    assert any(".claude/settings.json" in str(r["message"]) for r in warned)
    assert any("not trusted" in str(r["message"]) for r in warned)

    shown = _trust(repo, home)
    assert shown.returncode == 0, shown.stderr
    assert ".claude/settings.json:PreToolUse" in shown.stdout
    assert ".claude/hooks/log.sh" in shown.stdout

    _read_turn(fake_provider)
    after = earshot(fake_provider, repo, "-p", "read", env=home)
    assert after.returncode == 0, after.stderr
    logged = (repo / "hook.log").read_text().splitlines()
    payload = json.loads(logged[0])
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_name"] == "Read"
    # a hook never sees the provider key earshot uses
    assert logged[1] == "key=unset"
    # only the hooks were read from the file: its allow rule widened nothing
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "touch made"})]),
        anthropic.text_turn("tried"),
    )
    tried = earshot(fake_provider, repo, "-p", "make it", env=home)
    assert tried.returncode == 0, tried.stderr
    assert not (repo / "made").exists()

    # a changed hook needs trust again
    write(repo / ".claude/settings.json", _settings("Read|Grep"))
    _read_turn(fake_provider)
    changed = earshot(fake_provider, repo, "-p", "read", env=home)
    assert changed.returncode == 0, changed.stderr
    assert len((repo / "hook.log").read_text().splitlines()) == 2


def test_untracked_claude_local_hooks_run_without_trust_and_tracked_ones_never(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    _logging_hook(repo)
    local = write(repo / ".claude/settings.local.json", _settings())
    _read_turn(fake_provider)
    done = earshot(fake_provider, repo, "-p", "read", env=home)
    assert done.returncode == 0, done.stderr
    assert len((repo / "hook.log").read_text().splitlines()) == 2

    subprocess.run(["git", "add", "-f", str(local)], cwd=repo, check=True)
    _read_turn(fake_provider)
    tracked = earshot(fake_provider, repo, "-p", "read", "--output-format", "stream-json", env=home)
    assert tracked.returncode == 0, tracked.stderr
    assert len((repo / "hook.log").read_text().splitlines()) == 2
    assert "git tracks this file" in tracked.stdout


def test_what_earshot_cannot_run_in_a_claude_file_is_skipped_with_a_warning(
    fake_provider: FakeProvider, repo: Path, home: dict[str, str]
) -> None:
    hooks = {
        "SubagentStart": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PreToolUse": [
            {
                "matcher": "Read",
                "hooks": [
                    {"type": "prompt", "prompt": "is this read fine?"},
                    {"type": "command", "command": "echo ran >> hook.log"},
                ],
            }
        ],
    }
    write(Path(home["HOME"]) / ".claude/settings.json", json.dumps({"hooks": hooks}))
    _read_turn(fake_provider)
    done = earshot(fake_provider, repo, "-p", "read", "--output-format", "stream-json", env=home)
    assert done.returncode == 0, done.stderr
    assert (repo / "hook.log").read_text() == "ran\n"
    notices = [str(r["message"]) for r in records(done.stdout) if r.get("type") == "notice"]
    assert any("hooks.SubagentStart: earshot has no such event" in n for n in notices)
    assert any("hooks.PreToolUse[0].hooks[0]" in n and "not run" in n for n in notices)
