#!/usr/bin/env python3
"""Where the gap between a tool result and the next model request goes, segment by segment.

Copies ``src/`` (and ``--before``'s) to a temporary directory, puts a timing point in the
copy at each anchor of ``POINTS`` (one line, recording ``time.perf_counter()``), runs a
``--steps`` session of ``bash true`` calls against the fake provider with the copy first on
PYTHONPATH (as ``headless.py`` does), and reads the points against the fake provider's own
times (``perf_counter`` is the same monotonic clock in both processes). Prints the median of
each segment per build, the builds interleaved ``--runs`` times. The repository is never
changed.

Anchors are source text: when one is gone (the code moved), the script names it; move the
point in ``POINTS``.

Usage (from the repository root)::

    .venv/bin/python scripts/bench/gap_profile.py [--steps 30] [--runs 2] [--sandbox off]
        [--before OTHER/src]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic  # noqa: E402

_AGENT = "earshot/core/loop/agent.py"
_BASH = "earshot/core/tools/bash.py"
_STREAM = "earshot/providers/stream.py"
_ATTEMPT = "earshot/providers/_attempt.py"

POINTS: list[tuple[str, str, str, bool]] = [
    # (file, anchor, name of the segment that ends there, after the anchor's line)
    (_AGENT, "turn.finish = event", "the reply parsed (Finish event)", False),
    (_AGENT, "batch = ToolBatch(", "the reply appended, the batch starts", False),
    (_BASH, "notes: list[str] = []\n    timeout_ms", "the call gated, bash starts", False),
    (_BASH, "collected = _Collected()\n    try:", "the process started (fork, exec)", False),
    (_BASH, "outcome = await _wait(process, timeout_s, ctx.abort)", "the process exited", True),
    (_BASH, "return _Run(outcome, process.returncode", "its pipes closed", False),
    (_AGENT, 'await self._append(pt.Message(role="tool"', "the result built", False),
    (_AGENT, 'if self._abort.is_set():\n            turn.stop("aborted")', "appended", False),
    (_AGENT, "turn.request = request", "the next request built", False),
    (_STREAM, "url = request_url(call.url, call.params)", "its body encoded", False),
    (_ATTEMPT, "await exchange.start()", "sending", False),
]
_FIRST, _LAST = "the reply sent by the fake", "the request received by the fake"

_TRACE = """import atexit, os, time
_T = []
def t(label):
    _T.append((label, time.perf_counter()))
def _dump():
    path = os.environ.get("EARSHOT_GAP_TRACE")
    if path:
        with open(path, "w") as f:
            f.writelines(f"{v!r} {label}\\n" for label, v in _T)
atexit.register(_dump)
"""


def instrument(src: Path, into: Path) -> Path:
    """A copy of ``src`` with the timing points in; exits naming an anchor it lacks."""
    copy = into / "src"
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "earshot" / "_gap_trace.py").write_text(_TRACE)
    for index, (file, anchor, _, after) in enumerate(POINTS):
        path = copy / file
        text = path.read_text()
        at = text.find(anchor)
        if at < 0:
            raise SystemExit(f"gap_profile: {src / file} has no {anchor!r}: move the point")
        start = text.rindex("\n", 0, at) + 1
        indent = re.match(r"\s*", text[start:])
        line = (
            f"{indent.group(0) if indent else ''}import earshot._gap_trace as _g; _g.t({index})\n"
        )
        if after:
            end = text.index("\n", at + len(anchor)) + 1
            text = text[:end] + line + text[end:]
        else:
            text = text[:start] + line + text[start:]
        path.write_text(text)
    return copy


def segments(trace: Path, replied: list[float], received: list[float]) -> dict[int, list[float]]:
    """Per segment (the index of the point that ends it; -1 the fake's receipt), each step's
    milliseconds; the first two steps (start-up) and the last are left out."""
    points = [
        (float(t), int(i))
        for t, i in (line.split() for line in trace.read_text().split("\n") if line)
    ]
    events = sorted([*points, *((t, -2) for t in replied), *((t, -1) for t in received)])
    out: dict[int, list[float]] = {}
    steps: list[list[tuple[float, int]]] = []
    current: list[tuple[float, int]] | None = None
    for at, index in events:
        if index == -2:
            current = [(at, index)]
        elif current is not None:
            current.append((at, index))
            if index == -1:
                steps.append(current)
                current = None
    for step in steps[2:-1]:
        for (start, _), (end, index) in itertools.pairwise(step):
            out.setdefault(index, []).append((end - start) * 1000)
        out.setdefault(-3, []).append((step[-1][0] - step[0][0]) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--sandbox", default="off", help="auto, required or off")
    parser.add_argument("--before", type=Path, help="the src/ directory of another checkout")
    args = parser.parse_args()
    earshot = str(Path(sys.executable).with_name("earshot"))
    sources = {"after": ROOT / "src"}
    if args.before is not None:
        sources = {"before": args.before.resolve(), **sources}
    figures: dict[str, dict[int, list[float]]] = {name: {} for name in sources}
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        copies = {name: instrument(src, base / name) for name, src in sources.items()}
        work, home = base / "repo", base / "home"
        work.mkdir()
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            ANTHROPIC_API_KEY="bench-key",
            ANTHROPIC_BASE_URL=fake.base_url,
        )
        command = [earshot, "--model", "anthropic/claude-sonnet-4-6", "-p", "run true"]
        command += ["--permission-mode", "yolo", "--sandbox", args.sandbox]
        calls = [
            anthropic.tool_calls_turn([ToolCallSpec(f"c{i}", "bash", {"command": "true"})])
            for i in range(args.steps)
        ]
        for _ in range(args.runs):
            for name, copy in copies.items():
                trace = base / f"{name}.trace"
                first, replied_before = len(fake.requests), len(fake.replied_at)
                fake.script(*calls, anthropic.text_turn("done", chunks=1))
                run_env = {**env, "PYTHONPATH": str(copy), "EARSHOT_GAP_TRACE": str(trace)}
                done = subprocess.run(command, cwd=work, env=run_env, capture_output=True)
                if done.returncode != 0:
                    raise SystemExit(f"{name}: earshot failed: {done.stderr.decode()[-2000:]}")
                received = [r.received_at for r in fake.requests[first:]]
                found = segments(trace, fake.replied_at[replied_before:], received)
                for index, values in found.items():
                    figures[name].setdefault(index, []).extend(values)
    names = [*(label for _, _, label, _ in POINTS), _LAST]
    print(f"ms a step, median; {args.steps} steps x {args.runs} runs, sandbox {args.sandbox}")
    print(f"{'segment, from the one before to':42}" + "".join(f"{n:>10}" for n in sources))
    for index, label in [*enumerate(names[:-1]), (-1, _LAST), (-3, "total")]:
        cells = [figures[n].get(index) for n in sources]
        shown = "".join(f"{statistics.median(c):10.2f}" if c else f"{'-':>10}" for c in cells)
        print(f"{label:42}{shown}")
    print(f"(the first segment starts at {_FIRST})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
