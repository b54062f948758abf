#!/usr/bin/env python3
"""End-to-end cost of `earshot -p` against the fake provider with instant responses.

Measures, each as a median over --runs runs, beside `python -c pass` timed in the same run:

- one-turn wall time (a plain answer) and its peak RSS;
- a 20-tool-call session (each call `bash true`, yolo mode) and its peak RSS;
- the gap between the fake provider finishing a response and receiving the next request
  (earshot's own overhead per loop step: parse, gate, run `true`, build the next request).

Usage (from the repository root):

    .venv/bin/python scripts/bench/headless.py [--runs 7] [--steps 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic  # noqa: E402

ENV_DROP = ("PYTHONDONTWRITEBYTECODE",)


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        err = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{' '.join(cmd)} failed ({process.returncode}): {err}")
    if process.stderr:
        process.stderr.close()
    rss_mb = usage.ru_maxrss / 1024.0 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    return wall, rss_mb


def prompt_sizes(cwd: Path) -> tuple[int, int]:
    """Estimated tokens of the system prompt and of the tool definitions sent with it."""
    import msgspec

    from earshot.core.config.prompt import estimate_tokens, git_summary, system_prompt
    from earshot.core.tools.registry import builtin_tools

    tools = builtin_tools()
    system = system_prompt(cwd=cwd, git=git_summary(cwd))
    specs = msgspec.json.encode([t.spec() for t in tools]).decode()
    return estimate_tokens(system), estimate_tokens(specs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    earshot = str(Path(sys.executable).with_name("earshot"))
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        work.mkdir()
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ENV_DROP}
        env.update(
            {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "ANTHROPIC_API_KEY": "bench-key",
                "ANTHROPIC_BASE_URL": fake.base_url,
            }
        )
        model = ["--model", "anthropic/claude-sonnet-4-6"]
        one_turn = [earshot, *model, "-p", "hello"]
        session = [earshot, *model, "-p", "run true", "--permission-mode", "yolo"]
        baseline = [sys.executable, "-c", "pass"]
        # warm caches (bytecode, file cache)
        fake.script(anthropic.text_turn("hi", chunks=1))
        _run(one_turn, work, env)
        base: list[float] = []
        turn: list[tuple[float, float]] = []
        loop: list[tuple[float, float]] = []
        gaps: list[float] = []
        for _ in range(args.runs):
            base.append(_run(baseline, work, env)[0])
            fake.script(anthropic.text_turn("Hello there.", chunks=3))
            turn.append(_run(one_turn, work, env))
            first = len(fake.requests)
            replies = [
                anthropic.tool_calls_turn([ToolCallSpec(f"c{i}", "bash", {"command": "true"})])
                for i in range(args.steps)
            ]
            fake.script(*replies, anthropic.text_turn("done", chunks=1))
            replied_before = len(fake.replied_at)
            loop.append(_run(session, work, env))
            requests = fake.requests[first:]
            replies_at = fake.replied_at[replied_before:]
            gaps += [requests[i + 1].received_at - replies_at[i] for i in range(len(requests) - 1)]
    system_tokens, tool_tokens = prompt_sizes(ROOT)
    b = statistics.median(base)
    t_wall = statistics.median(w for w, _ in turn)
    t_rss = max(r for _, r in turn)
    l_wall = statistics.median(w for w, _ in loop)
    l_rss = max(r for _, r in loop)
    print(f"runs: {args.runs}; python -c pass median {b * 1000:.0f} ms")
    print(
        f"one turn          median {t_wall * 1000:7.0f} ms  ({t_wall / b:4.1f}x)  "
        f"peak RSS {t_rss:.0f} MB"
    )
    print(
        f"{args.steps}-call session  median {l_wall * 1000:7.0f} ms  ({l_wall / b:4.1f}x)  "
        f"peak RSS {l_rss:.0f} MB"
    )
    print(
        f"response -> next request gap: median {statistics.median(gaps) * 1000:.1f} ms, "
        f"p90 {sorted(gaps)[int(len(gaps) * 0.9)] * 1000:.1f} ms over {len(gaps)} steps"
    )
    print(
        f"system prompt ~{system_tokens} tokens; tool definitions ~{tool_tokens} tokens "
        "(about 4 characters a token)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
