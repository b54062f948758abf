"""What a script sees from ``earshot -p`` when the provider misbehaves: real processes over
loopback. A cut answer ends with exit 1 and ``success: false``, keeps its text marked
incomplete and is picked up by ``-c``; retries are announced; a silent server ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, anthropic

MODEL = "anthropic/claude-sonnet-4-6"
KEY = "sk-ant-test-key-0123456789"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def earshot(
    fake: FakeProvider, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", "--model", MODEL, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={
            **os.environ,
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            **(env or {}),
        },
        timeout=60,
        check=False,
    )


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def session_lines(home: Path) -> list[dict[str, object]]:
    [path] = (home / ".local/share/earshot/sessions").rglob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_cut_answer_fails_the_run_keeps_the_text_marked_and_continue_picks_it_up(
    fake_provider: FakeProvider, repo: Path, hermetic_env: Path
) -> None:
    cut = anthropic.text_turn("The first half of the answer, and", chunks=3)
    fake_provider.script(replace(cut, frames=cut.frames[:-3]))  # no message_delta/stop
    done = earshot(fake_provider, repo, "-p", "explain", "--output-format", "stream-json")
    assert done.returncode == 1, done.stderr
    lines = records(done.stdout)
    result = lines[-1]
    assert (result["success"], result["stop_reason"]) == (False, "error")
    assert result["error"] == {"kind": "stream_incomplete", "message": lines[-2]["message"]}
    assert lines[-2]["type"] == "error"
    usage = result["usage"]
    assert isinstance(usage, dict) and usage["input_tokens"] == 12  # the cut call is paid for
    assert "message_stop" in str(lines[-2]["message"])
    kept = [e for e in session_lines(hermetic_env) if e.get("type") == "message"]
    assistant = kept[-1]
    assert assistant["incomplete"] is True
    assert "The first half of the answer, and" in json.dumps(assistant["message"])

    fake_provider.script(anthropic.text_turn(" the second half."))
    again = earshot(fake_provider, repo, "-p", "continue", "-c")
    assert again.returncode == 0, again.stderr
    sent = fake_provider.requests[-1].json()["messages"]
    assert isinstance(sent, list)
    previous, last = sent[-2], sent[-1]
    assert isinstance(previous, dict) and isinstance(last, dict)
    assert previous["role"] == "assistant"
    assert "The first half of the answer, and" in json.dumps(previous)
    assert last["role"] == "user"
    assert "continue" in json.dumps(last)


def test_a_retry_is_announced_in_stream_json_and_on_stderr_in_text_mode(
    fake_provider: FakeProvider, repo: Path
) -> None:
    busy = anthropic.error_reply(529, "Overloaded", headers={"retry-after-ms": "10"})
    fake_provider.script(busy, anthropic.text_turn("Done."))
    done = earshot(fake_provider, repo, "-p", "hi", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    [notice] = [r for r in records(done.stdout) if r["type"] == "notice"]
    assert notice["message"] == "retrying in 10 ms (overloaded, attempt 2/3)"
    assert (notice["attempt"], notice["max_attempts"], notice["reason"]) == (2, 3, "server")
    assert notice["delay_ms"] == 10
    assert "Overloaded" in str(notice["detail"])

    fake_provider.script(busy, anthropic.text_turn("Done."))
    text = earshot(fake_provider, repo, "-p", "hi")
    assert text.returncode == 0
    assert text.stdout == "Done.\n"
    assert "earshot: retrying in" in text.stderr
    assert "overloaded, attempt 2/3" in text.stderr


def test_a_silent_server_ends_the_run_after_the_idle_timeout(
    fake_provider: FakeProvider, repo: Path
) -> None:
    silent = replace(anthropic.text_turn("never"), stall=60.0)
    fake_provider.script(silent, silent, silent)
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "hi",
        "--output-format",
        "json",
        env={"EARSHOT_IDLE_TIMEOUT_MS": "200"},
    )
    assert done.returncode == 1
    [result] = records(done.stdout)
    error = result["error"]
    assert isinstance(error, dict)
    assert error["kind"] == "network"
    assert "no answer from 127.0.0.1" in error["message"]
    assert len(fake_provider.requests) == 3


def test_a_bad_idle_timeout_is_a_usage_error_naming_the_variable(
    fake_provider: FakeProvider, repo: Path
) -> None:
    done = earshot(fake_provider, repo, "-p", "hi", env={"EARSHOT_IDLE_TIMEOUT_MS": "5m"})
    assert done.returncode == 2
    assert "EARSHOT_IDLE_TIMEOUT_MS" in done.stderr
    assert fake_provider.requests == []


def test_the_idle_timeout_setting_is_used(
    fake_provider: FakeProvider, repo: Path, hermetic_env: Path
) -> None:
    settings = hermetic_env / ".config/earshot/settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"idleTimeoutMs": 200}')
    silent = replace(anthropic.text_turn("never"), stall=60.0)
    fake_provider.script(silent, anthropic.text_turn("Here."))
    done = earshot(fake_provider, repo, "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Here.\n"
    assert "timed out" in done.stderr


def test_a_cut_answer_in_text_mode_says_how_to_continue(
    fake_provider: FakeProvider, repo: Path
) -> None:
    cut = anthropic.text_turn("Half of it", chunks=2)
    fake_provider.script(replace(cut, frames=cut.frames[:-3]))
    done = earshot(fake_provider, repo, "-p", "explain")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "stream_incomplete" in done.stderr
    assert 'earshot -p "continue" -c' in done.stderr
