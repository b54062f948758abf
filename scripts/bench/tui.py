#!/usr/bin/env python3
"""The interactive UI in a pseudo-terminal against the fake provider.

Measures:

- prompt ready: from launching ``earshot`` to the input box and status line on screen,
  median over --runs launches, beside ``python -c pass`` timed the same way;
- render cost: bytes written to the terminal and frames drawn per streamed token, at
  turn 10 and at the last turn of a --turns session (each measured turn streams 40 deltas
  10 ms apart); flat means the cost does not grow with the transcript;
- peak RSS of the earshot process after the session (VmHWM, Linux).

Nothing here is a test: compare across machines by the ratios, not the raw numbers.

Usage (from the repository root)::

    .venv/bin/python scripts/bench/tui.py [--runs 5] [--turns 300] [--ready-only]
        [--before SRC]

``--ready-only`` stops after the prompt-ready figures (``run_all.py`` reads them).
``--before SRC`` times the prompt of another checkout too (``SRC`` is its ``src``
directory, e.g. from ``git archive main src | tar -x -C /tmp/before``, run with this
checkout's interpreter and packages), launches interleaved with this one's, so both
medians come from the same minutes of a busy machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider  # noqa: E402
from tests.tui.terminal import (  # noqa: E402
    MODEL,
    Terminal,
    TurnCost,
    earshot_env,
    scripted_turn,
)


def _env(base_url: str, home: Path) -> dict[str, str]:
    env = earshot_env(base_url)
    for name in list(env):
        if name.endswith("_API_KEY") and name != "ANTHROPIC_API_KEY":
            del env[name]
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # time what an install runs: cached bytecode
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    return env


def _repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return repo


@dataclass
class Ready:
    """Median seconds to a prompt ready for typing and to the session open (banner and
    full status line), per source tree (``None``: this checkout)."""

    ready: dict[Path | None, float]
    opened: dict[Path | None, float]
    floor: float
    """``python -c pass``, timed the same way."""


def prompt_ready(runs: int, root: Path, fake: FakeProvider, before: Path | None = None) -> Ready:
    repo = _repo(root)
    env = _env(fake.base_url, root / "home")
    trees: list[Path | None] = [None] if before is None else [before, None]
    ready: dict[Path | None, list[float]] = {tree: [] for tree in trees}
    opened: dict[Path | None, list[float]] = {tree: [] for tree in trees}
    floor: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        floor.append(time.perf_counter() - start)
        for tree in trees:
            tree_env = env if tree is None else {**env, "PYTHONPATH": str(tree)}
            start = time.perf_counter()
            with Terminal(["--model", MODEL], cwd=repo, env=tree_env) as term:
                term.wait_for(lambda: MODEL in term.display() and "›" in term.display(), "prompt")
                ready[tree].append(time.perf_counter() - start)
                term.wait_ready()
                opened[tree].append(time.perf_counter() - start)
                term.exit()
    return Ready(
        {tree: statistics.median(times) for tree, times in ready.items()},
        {tree: statistics.median(times) for tree, times in opened.items()},
        statistics.median(floor),
    )


def _peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def session(turns: int, root: Path, fake: FakeProvider) -> tuple[TurnCost, TurnCost, float]:
    repo = _repo(root)
    env = _env(fake.base_url, root / "home")
    measured = {min(10, turns), turns}
    costs: dict[int, TurnCost] = {}
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        for index in range(1, turns + 1):
            if index in measured:
                costs[index] = scripted_turn(term, fake, index, tokens=40, delay=0.01, quiet=0.3)
            else:
                scripted_turn(term, fake, index)
        rss = _peak_rss_mb(term.proc.pid)
        term.exit()
    return costs[min(10, turns)], costs[turns], rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--ready-only", action="store_true", help="only the prompt-ready time")
    parser.add_argument(
        "--before", type=Path, help="another checkout's src directory, timed beside this one"
    )
    args = parser.parse_args()
    before: Path | None = args.before.resolve() if args.before else None
    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        root = Path(tmp)
        (root / "home").mkdir()
        timed = prompt_ready(args.runs, root, fake, before)
        if before is not None:
            print(
                f"before ({before}): ready {timed.ready[before] * 1000:.0f} ms, "
                f"open {timed.opened[before] * 1000:.0f} ms"
            )
        print(
            f"prompt ready: {timed.ready[None] * 1000:.0f} ms, "
            f"session open: {timed.opened[None] * 1000:.0f} ms "
            f"(python -c pass {timed.floor * 1000:.0f} ms)"
        )
        if args.ready_only:
            return
        early, late, rss = session(args.turns, root, fake)
    for name, cost in ((f"turn {min(10, args.turns)}", early), (f"turn {args.turns}", late)):
        print(
            f"{name}: {cost.bytes_per_token:.1f} bytes/token, "
            f"{cost.frames_per_token:.2f} frames/token ({cost.bytes} bytes, {cost.frames} frames, "
            f"{cost.tokens} tokens)"
        )
    print(f"bytes/token ratio late/early: {late.bytes_per_token / early.bytes_per_token:.2f}")
    print(f"peak RSS after {args.turns} turns: {rss:.0f} MB")


if __name__ == "__main__":
    main()
