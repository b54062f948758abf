"""`earshot -p` as scripts run it: a real process against the fake provider on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "notes.txt").write_text("alpha\nbeta\n")
    return work


def _env(fake: FakeProvider) -> dict[str, str]:
    return {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "PYTHONUNBUFFERED": "1",
    }


def earshot(
    fake: FakeProvider,
    cwd: Path,
    *args: str,
    stdin: str = "",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", "--model", MODEL, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**_env(fake), **(env or {})},
        timeout=60,
        check=False,
    )


def records(stdout: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert all(r["schema"] == "earshot.v1" for r in lines)
    return lines


def test_text_format_prints_the_answer(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(anthropic.text_turn("The answer is 42."))
    done = earshot(fake_provider, repo, "-p", "What is the answer?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The answer is 42.\n"
    sent = fake_provider.requests[0].json()
    assert "What is the answer?" in json.dumps(sent["messages"])
    assert "sk-ant-test-key" not in done.stdout + done.stderr


def test_last_stream_json_line_is_the_json_result(fake_provider: FakeProvider, repo: Path) -> None:
    turn = anthropic.tool_calls_turn([ToolCallSpec("t1", "read", {"path": "notes.txt"})])
    fake_provider.script(turn, anthropic.text_turn("It says alpha."))
    streamed = earshot(fake_provider, repo, "-p", "read notes", "--output-format", "stream-json")
    assert streamed.returncode == 0, streamed.stderr
    lines = records(streamed.stdout)
    kinds = [r["type"] for r in lines]
    assert kinds[0] == "init"
    assert kinds[-1] == "result"
    assert {"tool_call", "tool_result", "permission", "usage", "message"} <= set(kinds)
    fake_provider.script(turn, anthropic.text_turn("It says alpha."))
    single = earshot(fake_provider, repo, "-p", "read notes", "--output-format", "json@v1")
    assert single.returncode == 0, single.stderr
    (result,) = records(single.stdout)
    last = lines[-1]
    for key in ("duration_ms", "session_id"):
        last.pop(key)
        result.pop(key)
    assert result == last
    assert result["success"] is True
    assert result["text"] == "It says alpha."
    fake_provider.assert_protocol_invariants()


@pytest.mark.parametrize("fmt", ["json@v2", "yaml", "stream-json@v9"])
def test_unknown_output_format_exits_2_without_prose_on_stdout(
    fake_provider: FakeProvider, repo: Path, fmt: str
) -> None:
    done = earshot(fake_provider, repo, "-p", "hi", "--output-format", fmt)
    assert done.returncode == 2
    assert done.stdout == ""
    assert fmt in done.stderr
    assert fake_provider.requests == []


def test_a_call_that_needs_approval_is_denied_headless(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "rm notes.txt"})]),
        anthropic.text_turn("I could not delete it."),
    )
    done = earshot(fake_provider, repo, "-p", "delete notes", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    lines = records(done.stdout)
    permission = next(r for r in lines if r["type"] == "permission")
    assert permission["decision"] == "deny"
    assert "detail" not in permission
    result = lines[-1]
    denials = result["permission_denials"]
    assert isinstance(denials, list)
    assert [d["tool"] for d in denials] == ["bash"]
    assert (repo / "notes.txt").exists()
    fake_provider.assert_protocol_invariants()


def test_an_allow_rule_lets_the_command_run(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "echo hi > out.txt"})]),
        anthropic.text_turn("done"),
    )
    args = ["-p", "write", "--allow", "Bash(echo *)", "--output-format", "json"]
    refused = earshot(fake_provider, repo, *args)
    assert refused.returncode == 0, refused.stderr
    assert not (repo / "out.txt").exists()
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "echo hi > out.txt"})]),
        anthropic.text_turn("done"),
    )
    done = earshot(fake_provider, repo, *args, "--allow", "Edit(out.txt)")
    assert done.returncode == 0, done.stderr
    assert (repo / "out.txt").read_text() == "hi\n"


def test_model_failure_exits_1_with_the_error(fake_provider: FakeProvider, repo: Path) -> None:
    failure = anthropic.error_reply(401, "invalid x-api-key")
    fake_provider.script(failure)
    done = earshot(fake_provider, repo, "-p", "hi", "--output-format", "json")
    assert done.returncode == 1
    (result,) = records(done.stdout)
    assert result["success"] is False
    assert result["error"] == {"kind": "auth", "message": result["error"]["message"]}  # type: ignore[index]  # JSON record read back


def test_prompt_from_stdin_and_continue_resumes_the_history(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.text_turn("first answer"), anthropic.text_turn("second"))
    first = earshot(fake_provider, repo, "-p", "-", stdin="remember the word kumquat")
    assert first.returncode == 0, first.stderr
    second = earshot(fake_provider, repo, "-p", "what was the word?", "--continue")
    assert second.returncode == 0, second.stderr
    history = json.dumps(fake_provider.requests[1].json()["messages"])
    assert "kumquat" in history
    assert "first answer" in history


def test_sigint_mid_stream_exits_130_with_a_result(fake_provider: FakeProvider, repo: Path) -> None:
    import dataclasses

    slow = dataclasses.replace(anthropic.text_turn("one two three four five", chunks=5), delay=0.5)
    fake_provider.script(slow)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "earshot",
            "--model",
            MODEL,
            "-p",
            "talk",
            "--output-format",
            "stream-json",
        ],
        cwd=repo,
        env=_env(fake_provider),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not fake_provider.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.6)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    result = records(out)[-1]
    assert result["type"] == "result"
    assert result["stop_reason"] == "aborted"


def test_undo_restores_what_a_headless_turn_changed(
    fake_provider: FakeProvider, repo: Path
) -> None:
    command = "rm notes.txt && echo new > made.txt"
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": command})]),
        anthropic.text_turn("cleaned up"),
    )
    done = earshot(fake_provider, repo, "-p", "clean", "--permission-mode", "yolo")
    assert done.returncode == 0, done.stderr
    assert not (repo / "notes.txt").exists()
    assert (repo / "made.txt").exists()
    listed = subprocess.run(
        [sys.executable, "-m", "earshot", "undo", "--list"],
        cwd=repo,
        env=_env(fake_provider),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "rm notes.txt" in listed.stdout, listed.stdout + listed.stderr
    undone = subprocess.run(
        [sys.executable, "-m", "earshot", "undo", "--yes"],
        cwd=repo,
        env=_env(fake_provider),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert undone.returncode == 0, undone.stderr
    assert (repo / "notes.txt").read_text() == "alpha\nbeta\n"
    assert not (repo / "made.txt").exists()


def test_a_shell_line_that_only_reads_is_no_undo_step(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "ls && cat notes.txt"})]),
        anthropic.tool_calls_turn([ToolCallSpec("b2", "bash", {"command": "echo new > made.txt"})]),
        anthropic.text_turn("done"),
    )
    done = earshot(fake_provider, repo, "-p", "look, then write", "--permission-mode", "yolo")
    assert done.returncode == 0, done.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "earshot", "undo", "--list"],
        cwd=repo,
        env=_env(fake_provider),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "echo new > made.txt" in listed.stdout, listed.stdout + listed.stderr
    assert "cat notes.txt" not in listed.stdout
    assert len(listed.stdout.strip().splitlines()) == 1


@pytest.mark.parametrize("moment", ["mid-answer", "mid-tool"])
def test_kill_9_then_continue_loses_nothing(
    fake_provider: FakeProvider, repo: Path, moment: str
) -> None:
    import dataclasses

    if moment == "mid-answer":
        first = dataclasses.replace(anthropic.text_turn("a b c d e f", chunks=6), delay=0.5)
        fake_provider.script(first)
    else:
        fake_provider.script(
            anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "sleep 30"})])
        )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "earshot",
            "--model",
            MODEL,
            "-p",
            "remember kumquat",
            "--permission-mode",
            "yolo",
        ],
        cwd=repo,
        env=_env(fake_provider),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not fake_provider.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    process.kill()
    process.wait(timeout=30)
    fake_provider.script(anthropic.text_turn("resumed fine"))
    done = earshot(fake_provider, repo, "-p", "what word?", "--continue")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "resumed fine\n"
    sent = fake_provider.requests[-1].json()
    assert "kumquat" in json.dumps(sent["messages"])
    fake_provider.assert_protocol_invariants()


def test_image_flag_sends_the_image_with_the_prompt(
    fake_provider: FakeProvider, repo: Path
) -> None:
    import base64

    from tests.wire.cases import PNG_1PX

    (repo / "shot.png").write_bytes(base64.b64decode(PNG_1PX))
    fake_provider.script(anthropic.text_turn("a single pixel"))
    done = earshot(fake_provider, repo, "-p", "what is this?", "--image", "shot.png")
    assert done.returncode == 0, done.stderr
    content = json.loads(fake_provider.requests[0].body)["messages"][0]["content"]
    sources = [block.get("source") for block in content]
    assert {"type": "base64", "media_type": "image/png", "data": PNG_1PX} in sources
    missing = earshot(fake_provider, repo, "-p", "and this?", "--image", "nope.png")
    assert missing.returncode == 2
    assert "nope.png" in missing.stderr


def test_a_slash_command_is_answered_without_a_model_call(
    fake_provider: FakeProvider, repo: Path
) -> None:
    done = earshot(fake_provider, repo, "-p", "/cost", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    (result,) = records(done.stdout)
    assert result["type"] == "result" and result["num_turns"] == 0
    assert str(result["text"]).startswith("Session cost: $0.0000")
    refused = earshot(fake_provider, repo, "-p", "/mode sideways")
    assert refused.returncode == 1
    assert "unknown permission mode" in refused.stderr
    assert fake_provider.requests == []
