#!/usr/bin/env python3
"""In-process cost of one model request: ``providers.stream.collect`` against the fake
provider answering at once (a short streamed text answer over a kept-alive connection),
repeated, with an abort event set up as the loop does. What the HTTP client, the abort
handling and the stream driver add to every step of a turn, without the rest of earshot.

With ``--before OTHER/src`` the source tree of another checkout runs too (same venv),
alternating with this one: a before and after in one run.

Usage (from the repository root):

    .venv/bin/python scripts/bench/request_roundtrip.py [--requests 300] [--rounds 5]
        [--before OTHER/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import statistics, sys, time
import anyio
from tests.fake_provider import FakeProvider, anthropic
from earshot.providers.stream import collect
from earshot.providers.target import Secret, Target
from earshot.providers.types import Message, ModelRequest, TextPart

count = int(sys.argv[1])
with FakeProvider() as fake:
    target = Target(provider="anthropic", wire="anthropic-messages", base_url=fake.base_url,
                    model="m", auth="x-api-key", api_key=Secret("bench-key"))
    fake.script(*[anthropic.text_turn("hello there", chunks=4) for _ in range(count)])

    async def go() -> list[float]:
        times = []
        for _ in range(count):
            request = ModelRequest(
                model="m", messages=[Message(role="user", parts=[TextPart(text="hi")])]
            )
            request.abort = anyio.Event()
            start = time.perf_counter()
            await collect(request, target)
            times.append(time.perf_counter() - start)
        return times

    cpu = time.process_time()
    times = anyio.run(go)
    cpu = time.process_time() - cpu
    assert fake.connections == 1, fake.connections
    print(statistics.median(times[10:]) * 1000, cpu / count * 1000)
"""


def _once(src: Path, count: int) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{ROOT}")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(count)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", help="the src directory of another checkout")
    args = parser.parse_args()
    trees = {"after": ROOT / "src"}
    if args.before:
        trees = {"before": Path(args.before), **trees}
    walls: dict[str, list[float]] = {name: [] for name in trees}
    cpus: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, src in trees.items():
            wall, cpu = _once(src, args.requests)
            walls[name].append(wall)
            cpus[name].append(cpu)
    for name in trees:
        print(
            f"{name:6}  per request: median {statistics.median(walls[name]):.2f} ms wall, "
            f"{statistics.median(cpus[name]):.2f} ms CPU (medians of {args.rounds} rounds of "
            f"{args.requests})"
        )
    if args.before:
        ratio = statistics.median(walls["after"]) / statistics.median(walls["before"])
        print(f"after/before wall {ratio:.2f}x")


if __name__ == "__main__":
    main()
