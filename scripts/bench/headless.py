#!/usr/bin/env python3
"""End-to-end cost of `earshot -p` against the fake provider with instant responses.

Measures, each as a median over --runs runs, beside `python -c pass` timed in the same run:

- one-turn wall time (a plain answer) and its peak RSS;
- a 20-tool-call session (each call `bash true`, yolo mode) and its peak RSS;
- the gap between the fake provider finishing a response and receiving the next request
  (earshot's own overhead per loop step: parse, gate, run `true`, build the next request),
  with the OS sandbox as configured (bubblewrap on Linux when installed) and without it
  (``--sandbox off``: what the sandbox's namespaces cost each command is the difference).

With ``--before OTHER/src`` the source tree of another checkout runs too, interleaved run by
run with this one (same venv, same fake provider): a before and after in one run.

Usage (from the repository root):

    .venv/bin/python scripts/bench/headless.py [--runs 7] [--steps 20] [--before OTHER/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider, SSEReply, ToolCallSpec, anthropic  # noqa: E402

ENV_DROP = ("PYTHONDONTWRITEBYTECODE",)


CPU: list[float] = []
"""CPU seconds (user and system) of each child ``_run`` waited for, with the processes it
ran and waited for (bash, git, bubblewrap): less disturbed by a busy machine than wall time."""


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process (its CPU goes to ``CPU``)."""
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
    CPU.append(usage.ru_utime + usage.ru_stime)
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


@dataclass
class _Figures:
    """What one build measured over the runs."""

    turn: list[tuple[float, float]] = field(default_factory=list)
    loop: list[tuple[float, float]] = field(default_factory=list)
    turn_cpu: list[float] = field(default_factory=list)
    loop_cpu: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    bare_gaps: list[float] = field(default_factory=list)


def _gaps(
    fake: FakeProvider, cmd: list[str], replies: list[SSEReply], cwd: Path, env: dict[str, str]
) -> tuple[tuple[float, float], list[float]]:
    """Run a tool-call session; its wall time and RSS, and its response-to-request gaps."""
    first, replied_before = len(fake.requests), len(fake.replied_at)
    fake.script(*replies, anthropic.text_turn("done", chunks=1))
    measured = _run(cmd, cwd, env)
    requests = fake.requests[first:]
    replies_at = fake.replied_at[replied_before:]
    return measured, [requests[i + 1].received_at - replies_at[i] for i in range(len(requests) - 1)]


def _report(label: str, figures: _Figures, base: float, steps: int) -> None:
    t_wall = statistics.median(w for w, _ in figures.turn)
    t_rss = max(r for _, r in figures.turn)
    l_wall = statistics.median(w for w, _ in figures.loop)
    l_rss = max(r for _, r in figures.loop)
    gaps, bare = sorted(figures.gaps), sorted(figures.bare_gaps)
    print(
        f"{label}one turn          median {t_wall * 1000:7.0f} ms  ({t_wall / base:4.1f}x)  "
        f"peak RSS {t_rss:.0f} MB"
    )
    print(
        f"{label}{steps}-call session  median {l_wall * 1000:7.0f} ms  ({l_wall / base:4.1f}x)  "
        f"peak RSS {l_rss:.0f} MB"
    )
    print(
        f"{label}response -> next request gap: median {statistics.median(gaps) * 1000:.1f} ms, "
        f"p90 {gaps[int(len(gaps) * 0.9)] * 1000:.1f} ms over {len(gaps)} steps"
    )
    turn_cpu, loop_cpu = statistics.median(figures.turn_cpu), statistics.median(figures.loop_cpu)
    print(
        f"{label}CPU (earshot and what it ran): one turn {turn_cpu * 1000:.0f} ms, {steps}-call "
        f"session {loop_cpu * 1000:.0f} ms, {(loop_cpu - turn_cpu) / steps * 1000:.1f} ms a step"
    )
    print(
        f"{label}response -> next request gap without the OS sandbox: median "
        f"{statistics.median(bare) * 1000:.1f} ms, p90 {bare[int(len(bare) * 0.9)] * 1000:.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument(
        "--before",
        type=Path,
        help="the src/ directory of another checkout: its earshot runs interleaved with this "
        "one (put first on PYTHONPATH, same venv and fake provider), printed as before:",
    )
    args = parser.parse_args()
    earshot = str(Path(sys.executable).with_name("earshot"))
    builds: dict[str, str | None] = {"": None}
    if args.before is not None:
        builds = {"before: ": str(args.before.resolve()), "after:  ": None}
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
        envs = {
            label: env if src is None else {**env, "PYTHONPATH": src}
            for label, src in builds.items()
        }
        model = ["--model", "anthropic/claude-sonnet-4-6"]
        one_turn = [earshot, *model, "-p", "hello"]
        session = [earshot, *model, "-p", "run true", "--permission-mode", "yolo"]
        unconfined = [*session, "--sandbox", "off"]
        baseline = [sys.executable, "-c", "pass"]
        for build_env in envs.values():  # warm caches (bytecode, file cache)
            fake.script(anthropic.text_turn("hi", chunks=1))
            _run(one_turn, work, build_env)
        base: list[float] = []
        figures = {label: _Figures() for label in builds}
        replies = [
            anthropic.tool_calls_turn([ToolCallSpec(f"c{i}", "bash", {"command": "true"})])
            for i in range(args.steps)
        ]
        for _ in range(args.runs):
            base.append(_run(baseline, work, env)[0])
            for label, build_env in envs.items():
                got = figures[label]
                fake.script(anthropic.text_turn("Hello there.", chunks=3))
                got.turn.append(_run(one_turn, work, build_env))
                got.turn_cpu.append(CPU[-1])
                measured, gaps = _gaps(fake, session, replies, work, build_env)
                got.loop.append(measured)
                got.loop_cpu.append(CPU[-1])
                got.gaps += gaps
                got.bare_gaps += _gaps(fake, unconfined, replies, work, build_env)[1]
    system_tokens, tool_tokens = prompt_sizes(ROOT)
    b = statistics.median(base)
    print(f"runs: {args.runs}; python -c pass median {b * 1000:.0f} ms")
    for label, got in figures.items():
        _report(label, got, b, args.steps)
    print(
        f"system prompt ~{system_tokens} tokens; tool definitions ~{tool_tokens} tokens "
        "(about 4 characters a token)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
