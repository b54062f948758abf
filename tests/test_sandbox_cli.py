"""The OS sandbox as a script sees it: `earshot -p` as a real process, real bubblewrap, the
fake provider on loopback. Linux only (``tests/conftest.py``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.sandbox_support import path_without_bwrap
from tests.test_headless_cli import earshot, records


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


@pytest.fixture
def outside() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="earshot-sandbox-cli-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _bash_then_text(fake: FakeProvider, command: str) -> None:
    fake.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": command})]),
        anthropic.text_turn("done"),
    )


def _yolo_run(fake: FakeProvider, repo: Path) -> subprocess.CompletedProcess[str]:
    return earshot(
        fake, repo, "-p", "go", "--permission-mode", "yolo", "--output-format", "stream-json"
    )


def _tool_result(lines: list[dict[str, object]]) -> str:
    result = next(r for r in lines if r["type"] == "tool_result")
    content = result["content"]
    assert isinstance(content, str)
    return content


def test_a_headless_yolo_run_cannot_write_outside_the_project(
    fake_provider: FakeProvider, repo: Path, outside: Path
) -> None:
    target = outside / "escaped.txt"
    _bash_then_text(fake_provider, f"echo inside > made.txt && echo x > {target}")
    done = _yolo_run(fake_provider, repo)
    assert done.returncode == 0, done.stderr
    content = _tool_result(records(done.stdout))
    assert not target.exists()
    assert (repo / "made.txt").read_text() == "inside\n"
    assert "Read-only file system" in content
    assert "stopped by the OS sandbox" in content
    assert "nobody can approve running it outside the sandbox" in content
    assert "Read-only file system" in json.dumps(fake_provider.requests[1].json()["messages"])


def test_sandbox_off_runs_unconfined(
    fake_provider: FakeProvider, repo: Path, outside: Path
) -> None:
    target = outside / "free.txt"
    _bash_then_text(fake_provider, f"echo x > {target}")
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "go",
        "--permission-mode",
        "yolo",
        "--sandbox",
        "off",
    )
    assert done.returncode == 0, done.stderr
    assert target.read_text() == "x\n"


def test_a_missing_bwrap_is_one_notice_record(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    no_bwrap = path_without_bwrap(tmp_path)
    fake_provider.script(anthropic.text_turn("hi"))
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        env={"PATH": no_bwrap},
    )
    assert done.returncode == 0, done.stderr
    notices = [r for r in records(done.stdout) if r["type"] == "notice"]
    assert len(notices) == 1
    message = notices[0]["message"]
    assert isinstance(message, str)
    assert "bubblewrap (bwrap) is not on PATH" in message
    assert "install bubblewrap" in message


def test_required_without_bwrap_refuses_commands(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    no_bwrap = path_without_bwrap(tmp_path)
    _bash_then_text(fake_provider, "echo ran > ran.txt")
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "go",
        "--permission-mode",
        "yolo",
        "--sandbox",
        "required",
        "--output-format",
        "stream-json",
        env={"PATH": no_bwrap},
    )
    assert done.returncode == 0, done.stderr
    assert not (repo / "ran.txt").exists()
    assert "this command was not run" in _tool_result(records(done.stdout))


def test_an_unknown_sandbox_mode_is_a_usage_error(fake_provider: FakeProvider, repo: Path) -> None:
    done = earshot(fake_provider, repo, "-p", "hi", "--sandbox", "sometimes")
    assert done.returncode == 2
    assert "unknown sandbox mode 'sometimes'" in done.stderr
    assert fake_provider.requests == []


def test_a_refused_rerun_outside_the_sandbox_is_a_permission_denial(
    fake_provider: FakeProvider, repo: Path, outside: Path
) -> None:
    target = outside / "escaped.txt"
    _bash_then_text(fake_provider, f"echo x > {target}")
    done = _yolo_run(fake_provider, repo)
    assert done.returncode == 0, done.stderr
    result = next(r for r in records(done.stdout) if r["type"] == "result")
    denials = result["permission_denials"]
    assert isinstance(denials, list) and len(denials) == 1
    denied = denials[0]
    assert isinstance(denied, dict)
    assert denied["call_id"] == "b1"
    assert denied["tool"] == "bash"
    assert denied["input"] == {"command": f"echo x > {target}"}
    reason = denied["reason"]
    assert isinstance(reason, str)
    assert "OS sandbox" in reason
    assert "nobody can approve running it outside the sandbox" in reason
    assert not target.exists()


def test_a_text_run_names_the_sandbox_as_the_way_out_of_its_refusal(
    fake_provider: FakeProvider, repo: Path, outside: Path
) -> None:
    _bash_then_text(fake_provider, f"echo x > {outside / 'escaped.txt'}")
    done = earshot(fake_provider, repo, "-p", "go", "--permission-mode", "yolo")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    line = done.stderr.strip().splitlines()[-1]
    assert line == (
        "earshot: 1 tool call was denied (bash); rerun with --sandbox off "
        "(the OS sandbox stopped 1 command)"
    )
