"""MCP servers in `earshot -p`: a real Python server (built on the mcp package's server
side) over stdio and streamable HTTP, a real earshot process, the fake provider."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.mcp_client.support import (
    MODEL,
    Record,
    earshot,
    env,
    http_server,
    run_prompt,
    stdio_server,
    tool_names,
    tool_results,
    write_local,
    write_mcp_json,
)

STREAM = ("--output-format", "stream-json")
ALLOW = ("--allow", "mcp__py")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def _notices(records: list[Record]) -> list[str]:
    return [str(r["message"]) for r in records if r["type"] == "notice"]


def test_an_untrusted_project_server_never_starts_until_trusted(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_mcp_json(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(anthropic.text_turn("no tools here"))
    first = run_prompt(fake_provider, repo)
    assert any("py" in n and "earshot trust" in n for n in _notices(first))
    assert not any(n.startswith("mcp__") for n in tool_names(fake_provider.requests[0].json()))

    refused = earshot(fake_provider, repo, "trust")  # no terminal, no --yes: nothing recorded
    assert refused.returncode == 1
    assert "py" in refused.stdout
    trusted = earshot(fake_provider, repo, "trust", "--yes")
    assert trusted.returncode == 0, trusted.stderr

    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__add", {"a": 2, "b": 40})]),
        anthropic.text_turn("the sum is 42"),
    )
    second = run_prompt(fake_provider, repo, "--allow", "mcp__py__add")
    assert not _notices(second)
    assert second[0]["type"] == "init"
    assert "mcp__py__add" in second[0]["tools"]
    after = fake_provider.requests[-1].json()
    assert "mcp__py__add" in tool_names(after)
    results = tool_results(after)
    assert results[-1]["content"][0]["text"] == "42"

    # A changed definition needs trust again.
    write_mcp_json(repo, {"py": {**stdio_server(tmp_path), "cwd": str(repo)}})
    fake_provider.script(anthropic.text_turn("untrusted again"))
    third = run_prompt(fake_provider, repo)
    assert any("earshot trust" in n for n in _notices(third))


def test_error_results_and_a_server_that_dies_mid_call(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__fail", {"reason": "no disk"})]),
        anthropic.tool_calls_turn([ToolCallSpec("c2", "mcp__py__die", {})]),
        anthropic.tool_calls_turn([ToolCallSpec("c3", "mcp__py__add", {"a": 1, "b": 1})]),
        anthropic.text_turn("gave up"),
    )
    records = run_prompt(fake_provider, repo, "--allow", "mcp__py")
    assert records[-1]["type"] == "result"
    last = tool_results(fake_provider.requests[-1].json())
    by_id = {r["tool_use_id"]: r for r in last}
    assert by_id["c1"]["is_error"] is True
    assert "cannot do that: no disk" in json.dumps(by_id["c1"]["content"])
    assert by_id["c2"]["is_error"] is True
    assert "Connection closed" in json.dumps(by_id["c2"]["content"])
    # The dead server's tools are no longer offered; a call to one is answered, not fatal.
    assert by_id["c3"]["is_error"] is True
    assert "mcp__py__add" not in tool_names(fake_provider.requests[-1].json())
    log = repo.parent / "home" / ".local" / "state" / "earshot" / "mcp-logs" / "py.log"
    assert "dying on purpose" in log.read_text()


def test_mcp_tools_go_through_the_gate(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__add", {"a": 1, "b": 2})]),
        anthropic.text_turn("denied"),
    )
    records = run_prompt(fake_provider, repo)
    denied = [r for r in records if r["type"] == "permission"]
    assert denied and denied[0]["tool"] == "mcp__py__add"
    assert tool_results(fake_provider.requests[-1].json())[0]["is_error"] is True


def test_a_call_over_streamable_http(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    with http_server(tmp_path) as url:
        write_local(repo, {"web": {"type": "http", "url": url}})
        fake_provider.script(
            anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__web__add", {"a": 5, "b": 6})]),
            anthropic.text_turn("eleven"),
        )
        run_prompt(fake_provider, repo, "--allow", "mcp__web")
    results = tool_results(fake_provider.requests[-1].json())
    assert results[-1]["content"][0]["text"] == "11"


def test_a_server_that_fails_to_start_is_reported_once_and_skipped(
    fake_provider: FakeProvider, repo: Path
) -> None:
    write_local(repo, {"broken": {"command": "/nonexistent/server"}})
    fake_provider.script(anthropic.text_turn("fine without it"))
    records = run_prompt(fake_provider, repo)
    notices = _notices(records)
    assert len([n for n in notices if "broken" in n]) == 1
    assert records[-1]["type"] == "result"
    assert records[-1]["success"] is True


def test_a_slow_call_is_cancelled_by_an_interrupt(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__slow", {"seconds": 60})]),
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "earshot",
            "--model",
            MODEL,
            "-p",
            "wait",
            *STREAM,
            "--allow",
            "mcp__py",
        ],
        cwd=repo,
        env=env(fake_provider),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "slow-started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "slow-started").exists()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert not (tmp_path / "slow-finished").exists()
    assert (tmp_path / "slow-cancelled").exists()  # the server's handler was cancelled
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert records[-1]["stop_reason"] == "aborted"


def test_a_read_only_hint_never_skips_the_prompt(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__peek", {"key": "k"})]),
        anthropic.text_turn("denied"),
    )
    records = run_prompt(fake_provider, repo)
    denied = [r for r in records if r["type"] == "permission"]
    assert [r["tool"] for r in denied] == ["mcp__py__peek"]


def test_many_tools_are_offered_through_one_search_tool(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    server = stdio_server(tmp_path)
    server["env"] = {"MANY_TOOLS": "100"}
    write_local(repo, {"big": server})
    fake_provider.script(
        anthropic.tool_calls_turn(
            [ToolCallSpec("s1", "mcp_tool_search", {"query": "record kind 7", "limit": 1})]
        ),
        anthropic.tool_calls_turn(
            [ToolCallSpec("c1", "mcp__big__record_007", {"project": "P", "title": "T"})]
        ),
        anthropic.text_turn("recorded"),
    )
    run_prompt(fake_provider, repo, "--allow", "mcp__big")
    first, second, third = (r.json() for r in fake_provider.requests)
    offered = [n for n in tool_names(first) if n.startswith("mcp")]
    assert offered == ["mcp_tool_search"]
    assert "mcp__big__record_007" in tool_results(second)[-1]["content"][0]["text"]
    assert "mcp__big__record_007" in tool_names(second)
    assert "recorded T in P (7)" in json.dumps(tool_results(third)[-1]["content"])
    assert len(tool_names(second)) < 20


def test_a_call_past_mcp_tool_timeout_is_an_error_result(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    (repo / ".earshot").mkdir()
    settings = {"mcpServers": {"py": stdio_server(tmp_path)}, "mcpToolTimeoutMs": 300}
    (repo / ".earshot" / "settings.local.json").write_text(json.dumps(settings))
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__slow", {"seconds": 30})]),
        anthropic.text_turn("too slow"),
    )
    run_prompt(fake_provider, repo, "--allow", "mcp__py")
    (result,) = tool_results(fake_provider.requests[-1].json())
    assert result["is_error"] is True
    assert "mcpToolTimeoutMs" in json.dumps(result["content"])


def test_a_servers_progress_is_a_tool_progress_record_while_the_call_runs(
    fake_provider: FakeProvider, repo: Path, tmp_path: Path
) -> None:
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__steps", {"count": 2})]),
        anthropic.text_turn("all steps done"),
    )
    records: list[Record] = []
    with subprocess.Popen(
        [sys.executable, "-m", "earshot", "--model", MODEL, "-p", "go", *STREAM, *ALLOW],
        cwd=repo,
        env=env(fake_provider),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:  # the server waits for go-N until its report was read
            record = json.loads(line)
            records.append(record)
            if record["type"] == "tool_progress":
                (tmp_path / f"go-{int(record['progress'])}").write_text("go")
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    kinds = [r["type"] for r in records]
    progress = [r for r in records if r["type"] == "tool_progress"]
    assert [(r["call_id"], r["message"], r["progress"], r["total"]) for r in progress] == [
        ("c1", "step 1 of 2", 1, 2),
        ("c1", "step 2 of 2", 2, 2),
    ]
    assert kinds.index("permission") < kinds.index("tool_progress")
    assert len(kinds) - kinds[::-1].index("tool_progress") <= kinds.index("tool_result")
    assert records[-1]["text"] == "all steps done"
