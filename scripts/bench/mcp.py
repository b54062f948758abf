#!/usr/bin/env python3
"""What MCP servers cost `earshot -p`, against the fake provider.

Measures, as medians over --runs runs, beside `python -c pass` timed in the same run:

- start -> first model request, and one-turn wall time, with 0 MCP servers, with 2 stdio
  servers (the Python test server, twice), and with 0 servers for another earshot
  (--baseline PATH, e.g. main's venv) so "no start-up cost without servers" is a ratio;
- the bytes of the first model request with one server of 100 tools (MANY_TOOLS=100),
  with the tool search on (the default: 100 tools is over the 40-tool line) and off
  (mcpToolSearch false).

Usage (from the repository root):

    .venv/bin/python scripts/bench/mcp.py [--runs 7] [--baseline /work/main/.venv/bin/earshot]
        [--earshot dist/earshot/earshot]    (the frozen folder build instead of this venv's)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider, anthropic  # noqa: E402

SERVER = ROOT / "tests" / "mcp_client" / "py_server.py"
MODEL = ["--model", "anthropic/claude-sonnet-4-6"]


def _server(env: dict[str, str] | None = None) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVER)], "env": env or {}}


def _configure(work: Path, servers: dict[str, object], search: bool = True) -> None:
    (work / ".earshot").mkdir(exist_ok=True)
    data: dict[str, object] = {"mcpServers": servers}
    if not search:
        data["mcpToolSearch"] = False
    (work / ".earshot" / "settings.local.json").write_text(json.dumps(data))


def _turn(fake: FakeProvider, earshot: str, work: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds of one turn, and seconds from launch to the first model request."""
    fake.script(anthropic.text_turn("hi", chunks=1))
    before = len(fake.requests)
    start = time.perf_counter()
    done = subprocess.run(
        [earshot, *MODEL, "-p", "hello"], cwd=work, env=env, capture_output=True, check=False
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"earshot failed: {done.stderr.decode()}")
    return wall, fake.requests[before].received_at - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", help="another earshot executable (0 servers)")
    parser.add_argument(
        "--earshot", help="the earshot executable to measure (default: this venv's)"
    )
    args = parser.parse_args()
    earshot = (
        str(Path(args.earshot).resolve())
        if args.earshot
        else str(Path(sys.executable).with_name("earshot"))
    )
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(
            {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_STATE_HOME": str(home / ".local/state"),
                "ANTHROPIC_API_KEY": "bench-key",
                "ANTHROPIC_BASE_URL": fake.base_url,
            }
        )
        dirs = {name: Path(tmp) / name for name in ("none", "two", "many", "many_off")}
        for path in dirs.values():
            path.mkdir()
            subprocess.run(["git", "init", "-q"], cwd=path, check=True)
        _configure(dirs["two"], {"one": _server(), "two": _server()})
        many = _server({"MANY_TOOLS": "100"})
        _configure(dirs["many"], {"big": many})
        _configure(dirs["many_off"], {"big": many}, search=False)
        cases = [("0 servers", earshot, dirs["none"]), ("2 servers", earshot, dirs["two"])]
        if args.baseline:
            cases.insert(0, ("0 servers, baseline", args.baseline, dirs["none"]))
        for _, exe, work in cases:
            _turn(fake, exe, work, env)  # warm caches
        base: list[float] = []
        timings: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            base.append(time.perf_counter() - start)
            for name, exe, work in cases:
                timings[name].append(_turn(fake, exe, work, env))
        sizes = {}
        for name in ("many", "many_off"):
            before = len(fake.requests)
            _turn(fake, earshot, dirs[name], env)
            body = fake.requests[before].json()
            tools = body.get("tools")
            count = len(tools) if isinstance(tools, list) else 0
            sizes[name] = (len(fake.requests[before].body), count)
    b = statistics.median(base)
    print(f"runs: {args.runs}; python -c pass median {b * 1000:.0f} ms")
    for name, rows in timings.items():
        wall = statistics.median(w for w, _ in rows)
        first = statistics.median(f for _, f in rows)
        print(
            f"{name:<22} start -> first request {first * 1000:6.0f} ms ({first / b:4.1f}x); "
            f"one turn {wall * 1000:6.0f} ms ({wall / b:4.1f}x)"
        )
    on, off = sizes["many"], sizes["many_off"]
    print(f"100 MCP tools, tool search on:  first request {on[0]:,} bytes, {on[1]} tools")
    print(f"100 MCP tools, tool search off: first request {off[0]:,} bytes, {off[1]} tools")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
