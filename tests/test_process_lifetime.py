"""No process and no secret outlives its purpose: real earshot processes, real bash, real
signals. A tool's process group dies with earshot, even with ``kill -9``; a resumed session
kills what a killed earshot left; commands never see the provider keys earshot uses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from earshot.core.tools._shell import child_env
from earshot.core.tools.base import ToolContext
from earshot.core.tools.bash import TOOL
from earshot.core.tools.state import ToolState
from earshot.providers.types import TextPart
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

MODEL = "anthropic/claude-sonnet-4-6"
# The watchdog is what is under test: without the OS sandbox (which has its own lifetime
# rule, and its own PID namespace, so a pid a command prints is not the host's).
UNCONFINED = ("--permission-mode", "yolo", "--sandbox", "off")
KEY = "sk-ant-test-key-0123456789"
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="/proc and process groups as Linux has them"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def _env(fake: FakeProvider) -> dict[str, str]:
    return {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}


def run(fake: FakeProvider, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", "--model", MODEL, "--sandbox", "off", *args],
        cwd=cwd,
        env=_env(fake),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def start(fake: FakeProvider, cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "earshot", "--model", MODEL, *UNCONFINED, *args],
        cwd=cwd,
        env=_env(fake),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def alive(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(predicate: object, limit: float = 20.0) -> bool:
    assert callable(predicate)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


def children(pid: int) -> Iterator[tuple[int, str]]:
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == str(pid):
            yield int(name), cmdline


def sleeping_tool(repo: Path) -> ToolCallSpec:
    command = "sleep 300 & echo $! > sleep.pid; wait"
    return ToolCallSpec("b1", "bash", {"command": command, "timeout": 600000})


def read_pid(path: Path) -> int:
    assert wait_for(lambda: path.exists() and path.read_text().strip().isdigit())
    return int(path.read_text())


@linux_only
def test_kill_9_of_earshot_takes_its_running_tool_with_it(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.tool_calls_turn([sleeping_tool(repo)]))
    earshot = start(fake_provider, repo, "-p", "sleep")
    try:
        sleeper = read_pid(repo / "sleep.pid")
        assert alive(sleeper)
        earshot.kill()
        earshot.wait()
        assert wait_for(lambda: not alive(sleeper)), "the tool's sleep outlived earshot"
    finally:
        earshot.kill()
        earshot.communicate()


LEFT_RUNNING = "sleep 300 > /dev/null 2>&1 & echo $! > sleep.pid"


@linux_only
def test_a_normal_exit_leaves_no_process_a_command_started(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": LEFT_RUNNING})]),
        anthropic.text_turn("started"),
    )
    done = run(fake_provider, repo, "--permission-mode", "yolo", "-p", "go")
    assert done.returncode == 0, done.stderr
    sleeper = read_pid(repo / "sleep.pid")
    assert wait_for(lambda: not alive(sleeper))


@linux_only
def test_resume_kills_what_a_killed_earshot_and_its_watchdog_left(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.tool_calls_turn([sleeping_tool(repo)]))
    earshot = start(fake_provider, repo, "-p", "sleep")
    try:
        sleeper = read_pid(repo / "sleep.pid")
        [watchdog] = [pid for pid, cmd in children(earshot.pid) if "trap" in cmd]
        os.kill(watchdog, signal.SIGKILL)
        earshot.kill()
        earshot.wait()
    finally:
        earshot.kill()
        earshot.communicate()
    try:
        time.sleep(0.2)
        assert alive(sleeper)  # nothing was left to take it down
        fake_provider.script(anthropic.text_turn("resumed"))
        done = run(fake_provider, repo, "-p", "go on", "-c")
        assert done.returncode == 0, done.stderr
        assert wait_for(lambda: not alive(sleeper))
    finally:
        if alive(sleeper):
            os.kill(sleeper, signal.SIGKILL)


# --- secrets ----------------------------------------------------------------------------------


def env_seen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, passed: frozenset[str]) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-0123456789abcdef")
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-test-key")
    monkeypatch.setenv("EARSHOT_TEST_TOKEN", "earshot-secret")
    monkeypatch.setenv("MY_PROJECT_SETTING", "kept")
    ctx = ToolContext(cwd=tmp_path, state=ToolState(pass_env=passed))

    async def go() -> str:
        result = await TOOL.execute(TOOL.parse({"command": "env"}), ctx)
        part = result.content[0]
        assert isinstance(part, TextPart)
        return part.text

    return anyio.run(go)


def test_commands_never_see_the_provider_keys_earshot_uses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    output = env_seen(monkeypatch, tmp_path, frozenset())
    for secret in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "EARSHOT_TEST_TOKEN"):
        assert f"{secret}=" not in output
    assert KEY not in output
    assert "MY_PROJECT_SETTING=kept" in output
    assert f"HOME={os.environ['HOME']}" in output
    assert "EARSHOT=1" in output


def test_pass_env_lets_a_named_credential_through(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    output = env_seen(monkeypatch, tmp_path, frozenset({"OPENAI_API_KEY"}))
    assert "OPENAI_API_KEY=sk-openai-test-0123456789abcdef" in output
    assert "ANTHROPIC_API_KEY=" not in output


def test_nothing_else_of_the_environment_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    env = child_env()
    expected = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    assert env == {**expected, "EARSHOT": "1"}


def test_env_in_a_headless_run_keeps_the_key_out_of_stdout_and_the_transcript(
    fake_provider: FakeProvider, repo: Path, hermetic_env: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "env"})]),
        anthropic.text_turn("done"),
    )
    done = run(
        fake_provider,
        repo,
        "--permission-mode",
        "yolo",
        "-p",
        "show env",
        "--output-format",
        "stream-json",
    )
    assert done.returncode == 0, done.stderr
    [result] = [
        json.loads(line)
        for line in done.stdout.splitlines()
        if json.loads(line)["type"] == "tool_result"
    ]
    assert "EARSHOT=1" in result["content"]
    assert KEY not in done.stdout
    [session] = (hermetic_env / ".local/share/earshot/sessions").rglob("*.jsonl")
    assert KEY not in session.read_text()
    assert KEY not in json.dumps(fake_provider.requests[-1].json())
