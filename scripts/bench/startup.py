#!/usr/bin/env python3
"""Start-up wall time of `earshot --version` (and `--help`) against `python -c pass`.

Both are measured in the same run, interleaved, so a noisy machine affects them alike;
report the medians and the ratio. Usage:

    .venv/bin/python scripts/bench/startup.py [--runs 20] [--earshot PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# An installed earshot has bytecode caches; a PYTHONDONTWRITEBYTECODE environment would
# make every run recompile the sources and measure something no user sees.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=ENV)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    default = shutil.which("earshot") or str(Path(sys.executable).with_name("earshot"))
    parser.add_argument("--earshot", default=default, help="the earshot executable to time")
    args = parser.parse_args()
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "earshot --version": [args.earshot, "--version"],
        "earshot --help": [args.earshot, "--help"],
        "earshot providers": [args.earshot, "providers"],
    }
    for cmd in commands.values():  # warm the file cache
        _time(cmd)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            samples[name].append(_time(cmd))
    base = statistics.median(samples["python -c pass"])
    print(f"runs: {args.runs}, python: {sys.version.split()[0]}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:<20} median {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
