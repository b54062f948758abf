#!/usr/bin/env python3
"""Time from spawning ``earshot acp`` to its reply to ``initialize``.

Each run starts a fresh server, writes one ``initialize`` request and waits for the reply
line; beside it, in the same run and interleaved, ``python -c`` answering the same request
from a script that imports nothing (the floor of spawning a Python process and a pipe round
trip). Medians and the ratio; nothing here is a test.

Usage (from the repository root)::

    .venv/bin/python scripts/bench/acp_init.py [--runs 9] [--earshot PATH]
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

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
INITIALIZE = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
ECHO = (
    "import sys; sys.stdin.buffer.readline(); "
    'sys.stdout.write(\'{"jsonrpc":"2.0","id":1,"result":{}}\\n\'); sys.stdout.flush()'
)


def answer_ms(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    """Milliseconds from spawn to the first reply line on stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=30)
    if b'"result"' not in line:
        raise SystemExit(f"{cmd[0]}: no initialize reply: {line[:200]!r}")
    return elapsed * 1000


def measure(earshots: dict[str, str], runs: int) -> dict[str, float]:
    """Median ms per earshot executable (by name) and for ``python`` (the floor)."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {
            **ENV,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "ANTHROPIC_API_KEY": "bench-key",
        }
        cmds = {"python": [sys.executable, "-c", ECHO]}
        cmds.update({name: [path, "acp"] for name, path in earshots.items()})
        samples: dict[str, list[float]] = {name: [] for name in cmds}
        for n in range(runs + 1):  # the first round warms caches
            for name, cmd in cmds.items():
                value = answer_ms(cmd, env, tmp)
                if n:
                    samples[name].append(value)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--earshot", default=str(Path(sys.executable).with_name("earshot")))
    args = parser.parse_args()
    found = measure({"earshot": args.earshot}, args.runs)
    floor = found["python"]
    print(f"runs: {args.runs}; python answering the same line: median {floor:.1f} ms")
    took = found["earshot"]
    print(f"acp initialize answered: median {took:.1f} ms ({took / floor:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
