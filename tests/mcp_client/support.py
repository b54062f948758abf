"""Shared pieces of the MCP tests: real servers, real earshot processes, the fake provider."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fake_provider import FakeProvider

MODEL = "anthropic/claude-sonnet-4-6"
PY_SERVER = Path(__file__).with_name("py_server.py")
Record = dict[str, Any]
"""A JSON object as the tests read it (an earshot.v1 record, a request body)."""


def env(fake: FakeProvider, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def earshot(
    fake: FakeProvider, cwd: Path, *args: str, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env(fake),
        timeout=timeout,
        check=False,
    )


def run_prompt(fake: FakeProvider, cwd: Path, *args: str) -> list[Record]:
    done = earshot(fake, cwd, "--model", MODEL, "-p", "go", "--output-format", "stream-json", *args)
    assert done.returncode in (0, 1), done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def stdio_server(markers: Path) -> dict[str, object]:
    return {
        "command": sys.executable,
        "args": [str(PY_SERVER)],
        "env": {"MARKER_DIR": str(markers)},
    }


def write_mcp_json(root: Path, servers: dict[str, object]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def write_local(root: Path, servers: dict[str, object]) -> None:
    (root / ".earshot").mkdir(exist_ok=True)
    (root / ".earshot" / "settings.local.json").write_text(json.dumps({"mcpServers": servers}))


def tool_names(request: Mapping[str, Any]) -> list[str]:
    tools = request.get("tools")
    assert isinstance(tools, list)
    return [t["name"] for t in tools if isinstance(t, dict)]


def tool_results(request: Mapping[str, Any]) -> list[Record]:
    messages = request["messages"]
    assert isinstance(messages, list)
    found: list[Record] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            found += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def http_server(markers: Path) -> Iterator[str]:
    """The Python server on streamable HTTP; its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(PY_SERVER), "http", str(port)],
        env={**os.environ, "MARKER_DIR": str(markers)},
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


EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"
NPM_DIR = Path(__file__).resolve().parents[2] / "build" / "temp.npm"


def everything_server() -> Path:
    """The Node reference server from npm (``.ci/run`` installs it into build/temp.npm;
    installed here from the registry when it is not there yet)."""
    script = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything"
    entry = script / "dist" / "index.js"
    if not entry.is_file():
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--silent",
                "--prefix",
                str(NPM_DIR),
                EVERYTHING,
            ],
            check=True,
            timeout=600,
        )
    return entry
