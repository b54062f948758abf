#!/usr/bin/env python3
"""Every benchmark in scripts/bench/, for every build at hand, in one table.

Builds, each a column when present:

    pure       the source install running this script (``.venv``): earshot as pure Python
    compiled   a venv holding the mypyc-compiled wheel (default ``build/temp.venv``, which
               ``scripts/build`` makes)
    onedir     the frozen binary ``dist/earshot/earshot``
    onefile    ``dist/earshot-onefile``
    hello      ``dist/hello/hello``: a frozen hello-world from the same PyInstaller
               (``scripts/build --baseline``), the start-up floor for the frozen builds
    before     ``--before PATH``: an earshot executable of another commit, for a before and
               after in one run; when a ``python`` sits beside it (a venv), the per-build
               scripts run for it too

Start-up (``--version``, ``--help``, and the first request of a headless run reaching the
fake provider) is timed here, interleaved across the builds so a noisy machine affects them
alike. The other scripts run for each Python build in turn: ``sse_throughput``, ``decide``
and ``sessions`` for ``--rounds`` rounds (each figure is the best of its rounds: on a shared
machine the best is the least disturbed), ``headless`` and ``startup`` once. Their printed
figures are read back into the table; ``--raw`` prints their whole output too. Nothing here
is a test: compare ratios across machines, not raw numbers.

Usage (from the repository root)::

    .venv/bin/python scripts/bench/run_all.py [--runs 15] [--rounds 3] [--quick] [--raw]
                     [--compiled PYTHON] [--frozen DIR] [--before EARSHOT]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "scripts" / "bench"
EXE = ".exe" if os.name == "nt" else ""
BIN = "Scripts" if os.name == "nt" else "bin"
# An installed earshot has bytecode caches; PYTHONDONTWRITEBYTECODE would recompile each run.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
MODEL = "anthropic/claude-sonnet-4-6"


@dataclass
class Build:
    name: str
    earshot: str
    python: str | None = None  # None for frozen builds and the hello-world


@dataclass
class Table:
    columns: list[str]
    rows: list[tuple[str, dict[str, str], str]] = field(default_factory=list)

    def add(self, metric: str, values: dict[str, str], note: str = "") -> None:
        self.rows.append((metric, values, note))

    def render(self) -> str:
        head = ["benchmark", *self.columns, "compare"]
        body = [[m, *(v.get(c, "-") for c in self.columns), n] for m, v, n in self.rows]
        widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
        lines = []
        for n, row in enumerate([head, *body]):
            cells = [row[0].ljust(widths[0])]
            cells += [
                cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:-1], strict=True)
            ]
            lines.append("  ".join([*cells, row[-1]]).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines)


def _ratio(a: float | None, b: float | None, label: str) -> str:
    return f"{label} {a / b:.2f}x" if a and b else ""


def _venv_earshot(python: str) -> str:
    return str(Path(python).with_name(f"earshot{EXE}"))


def _is_compiled(python: str) -> bool:
    probe = (
        "import importlib, earshot._compiled as c\n"
        "print(all(c.is_compiled(importlib.import_module(m)) for m in c.COMPILED))\n"
    )
    done = subprocess.run(
        [python, "-c", probe], capture_output=True, text=True, check=False, cwd="/", env=ENV
    )
    return done.stdout.strip() == "True"


def find_builds(args: argparse.Namespace) -> list[Build]:
    builds = [Build("pure", _venv_earshot(sys.executable), sys.executable)]
    compiled = Path(args.compiled)
    if compiled.is_file() and _is_compiled(str(compiled)):
        builds.append(Build("compiled", _venv_earshot(str(compiled)), str(compiled)))
    else:
        print(
            f"run_all: no compiled build at {compiled} (make one: scripts/build)", file=sys.stderr
        )
    frozen = Path(args.frozen)
    for name, path in (
        ("onedir", frozen / "earshot" / f"earshot{EXE}"),
        ("onefile", frozen / f"earshot-onefile{EXE}"),
        ("hello", frozen / "hello" / f"hello{EXE}"),
    ):
        if path.is_file():
            builds.append(Build(name, str(path)))
    if args.before:
        python = Path(args.before).with_name(f"python{EXE}")
        builds.insert(0, Build("before", args.before, str(python) if python.is_file() else None))
    return builds


def _wall(cmd: list[str], env: dict[str, str] = ENV, cwd: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env, cwd=cwd
    )
    return time.perf_counter() - start


def startup(builds: list[Build], runs: int) -> dict[str, dict[str, float]]:
    """Median ms of ``--version`` and ``--help`` per build, interleaved."""
    cases = [(b, arg) for b in builds for arg in ("--version", "--help")]
    for build, arg in cases:  # warm caches
        _wall([build.earshot, arg])
    samples: dict[tuple[str, str], list[float]] = {(b.name, a): [] for b, a in cases}
    for _ in range(runs):
        for build, arg in cases:
            samples[(build.name, arg)].append(_wall([build.earshot, arg]))
    out: dict[str, dict[str, float]] = {"--version": {}, "--help": {}}
    for (name, arg), values in samples.items():
        out[arg][name] = statistics.median(values) * 1000
    return out


FLOORS = ("anyio-httpx", "anyio-httpcore", "anyio-asyncio", "asyncio")
"""``first_request_floor.py``'s programs: the same kind of request sent with httpx (what
earshot used before its own client), with httpcore, over asyncio streams with anyio and
msgspec loaded (earshot's direct path), and with asyncio alone."""


def first_request(
    builds: list[Build], runs: int
) -> tuple[dict[str, float], dict[str, int], dict[str, float]]:
    """Median ms from spawning ``earshot -p`` to the fake provider receiving its request, and
    the size in bytes of that request's body, per build; and the same median for each of
    the floor programs (``FLOORS``), interleaved with the builds."""
    sys.path.insert(0, str(ROOT))
    from tests.fake_provider import FakeProvider, anthropic

    agents = [b for b in builds if b.name != "hello"]
    commands = {b.name: [b.earshot, "--model", MODEL, "-p", "hello"] for b in agents}
    floor_script = str(BENCH / "first_request_floor.py")
    commands |= {f"floor {f}": [sys.executable, floor_script, f] for f in FLOORS}
    samples: dict[str, list[float]] = {name: [] for name in commands}
    sizes: dict[str, int] = {}
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        work = Path(tmp) / "work"
        work.mkdir()
        env = {
            **ENV,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "ANTHROPIC_API_KEY": "bench-key",
            "ANTHROPIC_BASE_URL": fake.base_url,
        }
        for n in range(runs + 1):  # the first round warms caches
            for name, command in commands.items():
                fake.script(anthropic.text_turn("hi", chunks=1))
                before = len(fake.requests)
                start = time.perf_counter()
                subprocess.run(
                    command,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    check=True,
                    env=env,
                    cwd=work,
                )
                if n:
                    samples[name].append(fake.requests[before].received_at - start)
                if not name.startswith("floor "):
                    sizes[name] = len(fake.requests[before].body)
    medians = {name: statistics.median(v) * 1000 for name, v in samples.items()}
    floors = {f: medians.pop(f"floor {f}") for f in FLOORS}
    return medians, sizes, floors


def python_floor(runs: int) -> float:
    """Median ms of ``python -I -c pass``: the interpreter's own start, the floor."""
    cmd = [sys.executable, "-I", "-c", "pass"]
    _wall(cmd)
    return statistics.median(_wall(cmd) for _ in range(runs)) * 1000


def request_split() -> str:
    """How the first request divides: system prompt and tool definitions (bytes, compact
    JSON), as this source tree builds them."""
    import msgspec

    from earshot.core.config.prompt import system_prompt
    from earshot.core.tools.registry import builtin_tools

    tools = builtin_tools()
    system = system_prompt(cwd=ROOT)
    specs = msgspec.json.encode([t.spec() for t in tools])
    return f"system {len(system.encode()) / 1000:.1f} KB, tools {len(specs) / 1000:.1f} KB"


def run_script(python: str, script: str, *args: str) -> str:
    done = subprocess.run(
        [python, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=ENV,
    )
    if done.returncode != 0:
        return f"FAILED ({done.returncode}): {done.stderr.strip()[-500:]}"
    return done.stdout


# Per script: metric -> (pattern of its figure in the script's output, higher is better).
PATTERNS: dict[str, dict[str, tuple[str, bool]]] = {
    "sse": {"SSE decode (MB/s)": (r"decoder\s+([\d.,]+) MB/s", True)},
    "decide": {
        "decide(), 5-command line (µs)": (r"decide, 5-command line\s+median\s+([\d.,]+)", False),
        "decide(), 1-command line (µs)": (r"decide, 1-command line\s+median\s+([\d.,]+)", False),
        "rule matching alone (µs)": (r"rule matching alone\s+median\s+([\d.,]+)", False),
        "decide(), edit path (µs)": (r"decide, edit in src/\s+median\s+([\d.,]+)", False),
    },
    "sessions": {
        "session load (ms)": (r"load [\d,]+ entries \([^)]*\): (\d+) ms", False),
        "session append median (µs)": (r"append \(\d+ B lines\): median (\d+)", False),
        "session append p99 (µs)": (r"p99 (\d+) µs", False),
        "undo snapshot, incremental (ms)": (
            r"incremental \(10 changed, 1 new\) median (\d+)",
            False,
        ),
    },
    "tui": {"TUI prompt ready (ms)": (r"prompt ready: (\d+) ms", False)},
    "headless": {
        "headless one turn (ms)": (r"one turn\s+median\s+(\d+)", False),
        "headless tool-call session (ms)": (r"-call session\s+median\s+(\d+)", False),
        "gap, tool result -> next request (ms)": (r"gap: median ([\d.]+)", False),
        "gap without the OS sandbox (ms)": (r"gap without the OS sandbox: median ([\d.]+)", False),
        "peak RSS, one turn (MB)": (r"one turn.*peak RSS (\d+)", False),
    },
}


def grab(pattern: str, text: str) -> float | None:
    found = re.search(pattern, text)
    return float(found.group(1).replace(",", "")) if found else None


def _fmt(value: float | None, digits: int = 1) -> str:
    return "?" if value is None else f"{value:,.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="start-up runs per build")
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer runs")
    parser.add_argument("--raw", action="store_true", help="print every script's output too")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the in-process benches")
    parser.add_argument(
        "--compiled", default=str(ROOT / "build" / "temp.venv" / BIN / f"python{EXE}")
    )
    parser.add_argument(
        "--frozen", default=str(ROOT / "dist"), help="where scripts/build put binaries"
    )
    parser.add_argument(
        "--before",
        help="another earshot executable (an install of an older commit) timed as a column "
        "of its own in the start-up, first-request and ACP rows",
    )
    parser.add_argument(
        "--startup-only", action="store_true", help="only the rows timed across every build"
    )
    parser.add_argument(
        "--scripts",
        default="sse,decide,sessions,tui,headless",
        help="the per-build scripts to run (comma-separated; default all)",
    )
    args = parser.parse_args(argv)
    runs = 3 if args.quick else args.runs
    builds = find_builds(args)
    pythons = [b for b in builds if b.python is not None]
    names = [b.name for b in builds]
    table = Table(columns=names)
    raw: list[str] = []

    times = startup(builds, runs)
    for arg in ("--version", "--help"):
        row = times[arg]
        note = _ratio(row.get("onedir"), row.get("hello"), "onedir/hello")
        table.add(f"start-up {arg} (ms)", {k: _fmt(v) for k, v in row.items()}, note)
    floor = python_floor(runs)
    table.add("baseline: python -I -c pass (ms)", {"pure": _fmt(floor)}, "same run")
    firsts, sizes, floors = first_request(builds, max(2, runs // 3))
    table.add(
        "headless first request sent (ms)",
        {k: _fmt(v) for k, v in firsts.items()},
        " ".join(
            x
            for x in (
                _ratio(firsts.get("onedir"), firsts.get("pure"), "onedir/pure"),
                _ratio(firsts.get("pure"), floor, "pure/python"),
                _ratio(firsts.get("pure"), firsts.get("before"), "pure/before"),
            )
            if x
        ),
    )
    for libs, ms in floors.items():
        table.add(
            f"floor: the request sent by {libs} alone (ms)",
            {"pure": _fmt(ms)},
            " ".join(
                x
                for x in (
                    _ratio(firsts.get("pure"), ms, "pure/floor"),
                    f"earshot adds {firsts['pure'] - ms:,.1f} ms" if "pure" in firsts else "",
                )
                if x
            ),
        )
    table.add(
        "first request body (KB)",
        {k: _fmt(v / 1000) for k, v in sizes.items()},
        request_split(),
    )
    sys.path.insert(0, str(BENCH))
    from acp_init import measure

    agents = {b.name: b.earshot for b in builds if b.name != "hello"}
    acp = measure(agents, max(3, runs // 2))
    table.add(
        "acp initialize answered (ms)",
        {k: _fmt(v) for k, v in acp.items() if k in agents},
        f"python answering the same line {acp['python']:.1f} ms",
    )

    if args.startup_only:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, start-up runs {runs}")
        print(table.render())
        return 0
    sse_args = ["--mb", "4", "--runs", "3"] if args.quick else []
    decide_args = ["--runs", "5", "--loops", "300"] if args.quick else []
    session_args = (
        ["--entries", "10000", "--appends", "500", "--files", "500", "--runs", "2"]
        if args.quick
        else ["--files", "2000", "--runs", "3"]
    )
    headless_args = ["--runs", "2", "--steps", "5"] if args.quick else []
    tui_args = ["--ready-only", "--runs", "3" if args.quick else "5"]
    scripts = {
        "sse": ("sse_throughput.py", sse_args),
        "decide": ("decide.py", decide_args),
        "sessions": ("sessions.py", session_args),
        "tui": ("tui.py", tui_args),
        "headless": ("headless.py", headless_args),
    }
    wanted = {name.strip() for name in args.scripts.split(",")}
    scripts = {key: value for key, value in scripts.items() if key in wanted}
    # Each script runs for every build in turn, round after round, so load from elsewhere on
    # the machine falls on all builds alike; each figure is the best of its rounds.
    found: dict[str, dict[str, float | None]] = {b.name: {} for b in pythons}
    for key, (script, script_args) in scripts.items():
        rounds = 1 if key == "headless" and not args.quick else args.rounds
        for n in range(rounds):
            for build in pythons:
                assert build.python is not None
                text = run_script(build.python, script, *script_args)
                raw.append(f"== {script} ({build.name}, round {n + 1}) ==\n{text}")
                for metric, (pattern, higher_is_better) in PATTERNS[key].items():
                    value = grab(pattern, text)
                    old = found[build.name].get(metric)
                    if old is None or (value is not None and (value > old) == higher_is_better):
                        found[build.name][metric] = value
    for build in pythons:
        assert build.python is not None
        text = run_script(
            build.python, "startup.py", "--runs", str(runs), "--earshot", build.earshot
        )
        raw.append(f"== startup.py ({build.name}) ==\n{text}")
    metrics = list(next(iter(found.values())))
    for metric in metrics:
        values = {name: found[name][metric] for name in found}
        pure, compiled = values.get("pure"), values.get("compiled")
        if PATTERNS["sse"].get(metric, ("", False))[1]:
            note = _ratio(compiled, pure, "compiled/pure")
        else:
            note = _ratio(pure, compiled, "pure/compiled")  # >1: compiled is faster
        note = " ".join(x for x in (note, _ratio(pure, values.get("before"), "pure/before")) if x)
        digits = 0 if "(ms)" in metric and "gap" not in metric else 1
        table.add(metric, {k: _fmt(v, digits) for k, v in values.items()}, note)

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, start-up runs {runs}")
    print(table.render())
    if args.raw:
        print("\n" + "\n".join(raw))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
