"""The Node reference server (@modelcontextprotocol/server-everything, from npm) in
`earshot -p`, over stdio and streamable HTTP: discovery, results of every content kind
reaching the next model request, a server prompt as a slash command."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.mcp_client.support import (
    earshot,
    everything_server,
    free_port,
    run_prompt,
    tool_names,
    tool_results,
    write_local,
)


@pytest.fixture(scope="module")
def entry() -> Path:
    return everything_server()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


@pytest.fixture
def http_url(entry: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        ["node", str(entry), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_tools_are_discovered_and_listed(
    fake_provider: FakeProvider, repo: Path, entry: Path
) -> None:
    write_local(repo, {"everything": {"command": "node", "args": [str(entry), "stdio"]}})
    listed = earshot(fake_provider, repo, "mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert (row["name"], row["scope"], row["transport"], row["status"]) == (
        "everything",
        "local",
        "stdio",
        "connected",
    )
    assert row["tools"] > 5
    tools = earshot(fake_provider, repo, "mcp", "tools", "everything", "--json")
    schemas = {t["name"]: t["input_schema"] for t in json.loads(tools.stdout)}
    assert "a" in schemas["mcp__everything__get-sum"]["properties"]


def test_text_image_resource_and_structured_results_reach_the_model(
    fake_provider: FakeProvider, repo: Path, entry: Path
) -> None:
    write_local(repo, {"everything": {"command": "node", "args": [str(entry), "stdio"]}})
    calls = [
        ToolCallSpec("s", "mcp__everything__get-sum", {"a": 2, "b": 3}),
        ToolCallSpec("i", "mcp__everything__get-tiny-image", {}),
        ToolCallSpec("r", "mcp__everything__get-resource-reference", {"resourceId": 2}),
        ToolCallSpec("l", "mcp__everything__get-resource-links", {"count": 1}),
        ToolCallSpec("c", "mcp__everything__get-structured-content", {"location": "Chicago"}),
    ]
    fake_provider.script(anthropic.tool_calls_turn(calls), anthropic.text_turn("seen"))
    run_prompt(fake_provider, repo, "--allow", "mcp__everything")
    first = fake_provider.requests[0].json()
    assert "mcp__everything__get-sum" in tool_names(first)
    results = {r["tool_use_id"]: r for r in tool_results(fake_provider.requests[-1].json())}
    assert "The sum of 2 and 3 is 5" in json.dumps(results["s"])
    image = [b for b in results["i"]["content"] if b["type"] == "image"]
    assert image and image[0]["source"]["media_type"] == "image/png"
    assert "demo://resource/dynamic/text/2" in json.dumps(results["r"])
    assert "resource link" in json.dumps(results["l"])
    assert "temperature" in json.dumps(results["c"])
    assert not any(r.get("is_error") for r in results.values())


def test_a_call_over_streamable_http(
    fake_provider: FakeProvider, repo: Path, http_url: str
) -> None:
    write_local(repo, {"everything": {"type": "http", "url": http_url}})
    fake_provider.script(
        anthropic.tool_calls_turn(
            [ToolCallSpec("e", "mcp__everything__echo", {"message": "over http"})]
        ),
        anthropic.text_turn("echoed"),
    )
    run_prompt(fake_provider, repo, "--allow", "mcp__everything__echo")
    results = tool_results(fake_provider.requests[-1].json())
    assert "over http" in json.dumps(results[-1]["content"])


def test_a_server_prompt_is_a_slash_command(
    fake_provider: FakeProvider, repo: Path, entry: Path
) -> None:
    write_local(repo, {"everything": {"command": "node", "args": [str(entry), "stdio"]}})
    fake_provider.script(anthropic.text_turn("ok"))
    done = earshot(
        fake_provider,
        repo,
        "--model",
        "anthropic/claude-sonnet-4-6",
        "-p",
        "/mcp__everything__simple-prompt",
    )
    assert done.returncode == 0, done.stderr
    sent = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "simple prompt" in sent.lower()


def test_progress_notifications_become_tool_progress_records(
    fake_provider: FakeProvider, repo: Path, entry: Path
) -> None:
    write_local(repo, {"everything": {"command": "node", "args": [str(entry), "stdio"]}})
    call = ToolCallSpec(
        "p1", "mcp__everything__trigger-long-running-operation", {"duration": 3, "steps": 3}
    )
    fake_provider.script(anthropic.tool_calls_turn([call]), anthropic.text_turn("done"))
    records = run_prompt(fake_provider, repo, "--allow", "mcp__everything")
    progress = [r for r in records if r["type"] == "tool_progress"]
    # a report a second before the next one and the result: never overtaken
    assert {"call_id": "p1", "message": "", "progress": 1, "total": 3} in [
        {k: r[k] for k in ("call_id", "message", "progress", "total")} for r in progress
    ]
    (result,) = tool_results(fake_provider.requests[-1].json())
    assert "Long running operation completed" in json.dumps(result["content"])
