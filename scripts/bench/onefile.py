#!/usr/bin/env python3
"""Start-up of the single file against the folder build it unpacks, in one run.

Times, interleaved so a noisy machine affects each alike (medians over --runs):

- ``--version``;
- a headless turn (``-p``) against the fake provider (instant answers);
- ``earshot acp``: the time to its ``initialize`` reply;

for the folder build (``dist/earshot/earshot``), the single file after its first run (warm:
its cache already holds the unpacked folder), with ``--source`` an installed ``earshot`` (a
source install: its venv's console script; byte-compiled by a first run) and, with ``--plain``,
any other executable to compare (say a plain PyInstaller onefile build). Each run's CPU time
(user + system, of the process and what it waits for) is printed beside the wall time: on a
shared machine it moves less with the neighbours. Then the single file's first run:
``--version`` with an empty cache dir, ``--cold-runs`` times, against its warm ``--version``.

Usage (from the repository root, after scripts/build):

    .venv/bin/python scripts/bench/onefile.py [--runs 15] [--cold-runs 5]
        [--folder dist/earshot/earshot] [--single dist/earshot-onefile] [--plain PATH]
        [--source .venv/bin/earshot]
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider, anthropic  # noqa: E402

EXE = ".exe" if os.name == "nt" else ""
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}},
    }
)


Sample = tuple[float, float]  # (wall seconds, CPU seconds)


def _cpu(process: subprocess.Popen[bytes]) -> float:
    """Wait for ``process``; its CPU time (POSIX; 0 where os.wait4 is missing)."""
    if not hasattr(os, "wait4"):
        process.wait()
        return 0.0
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def _wall(cmd: list[str], env: dict[str, str], cwd: Path) -> Sample:
    start = time.perf_counter()
    process = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    assert process.stderr is not None
    stderr = process.stderr.read()
    cpu = _cpu(process)
    wall = time.perf_counter() - start
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({process.returncode}): {stderr.decode()}")
    return wall, cpu


def _acp_reply(cmd: list[str], env: dict[str, str], cwd: Path) -> Sample:
    """Seconds from start to the initialize reply (what an editor waits for), and the CPU
    time of the whole run (the reply, then stdin closed)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode() + b"\n")
    process.stdin.flush()
    line = process.stdout.readline()
    wall = time.perf_counter() - start
    process.stdin.close()
    cpu = _cpu(process)
    process.stdout.close()
    if b'"result"' not in line:
        raise SystemExit(f"{' '.join(cmd)}: no initialize reply: {line!r}")
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--folder", default=str(ROOT / "dist" / "earshot" / f"earshot{EXE}"))
    parser.add_argument("--single", default=str(ROOT / "dist" / f"earshot-onefile{EXE}"))
    parser.add_argument("--plain", help="another executable to time beside them")
    parser.add_argument("--source", help="an installed earshot (a source install) beside them")
    args = parser.parse_args()
    builds = {"folder": args.folder, "single file": args.single}
    if args.source:
        builds["source"] = args.source
    if args.plain:
        builds["plain"] = args.plain
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        work.mkdir()
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(
            {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "EARSHOT_CACHE_DIR": str(Path(tmp) / "cache"),
                "ANTHROPIC_API_KEY": "bench-key",
                "ANTHROPIC_BASE_URL": fake.base_url,
            }
        )

        def turn(exe: str) -> Sample:
            fake.script(anthropic.text_turn("Hello there.", chunks=3))
            model = "anthropic/claude-sonnet-4-6"
            return _wall([exe, "--model", model, "-p", "hi"], env, work)

        cases: dict[str, Callable[[str], Sample]] = {
            "--version": lambda exe: _wall([exe, "--version"], env, work),
            "headless turn": turn,
            "acp initialize": lambda exe: _acp_reply([exe, "acp"], env, work),
        }
        for case in cases.values():  # the single file's first run, and the file cache
            for exe in builds.values():
                case(exe)
        samples: dict[tuple[str, str], list[Sample]] = {}
        for _ in range(args.runs):
            for case_name, case in cases.items():
                for build, exe in builds.items():
                    samples.setdefault((case_name, build), []).append(case(exe))

        cold: list[float] = []
        warm: list[float] = []
        for n in range(args.cold_runs):
            cold_env = {**env, "EARSHOT_CACHE_DIR": str(Path(tmp) / f"cold{n}")}
            cold.append(_wall([args.single, "--version"], cold_env, work)[0])
            warm.append(_wall([args.single, "--version"], cold_env, work)[0])

    print(f"runs: {args.runs}; medians in ms; ratio against the folder build")
    for what, index in (("wall", 0), ("CPU", 1)):
        print(f"{what:<16}" + "".join(f"{b:>22}" for b in builds))
        for case_name in cases:
            base = statistics.median(x[index] for x in samples[(case_name, "folder")]) or 1e-9
            cells = []
            for build in builds:
                median = statistics.median(x[index] for x in samples[(case_name, build)])
                cells.append(f"{median * 1000:8.1f} ({median / base:4.2f}x)")
            print(f"{case_name:<16}" + "".join(f"{c:>22}" for c in cells))
    c, w = statistics.median(cold), statistics.median(warm)
    print(
        f"single file first run (--version, empty cache, {args.cold_runs} runs): "
        f"median {c * 1000:.0f} ms, then {w * 1000:.0f} ms warm: first run costs "
        f"{(c - w) * 1000:.0f} ms more"
    )
    size = Path(args.single).stat().st_size / 1e6
    print(f"single file: {size:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
