"""Session and undo speed: load of a large session, append latency, snapshot time.

- load: a session file of ``--entries`` entries (a mix of prompts, assistant messages with
  reasoning and tool calls, tool results of a few hundred bytes), read and parsed into its
  tree, then its history rebuilt; median of ``--runs``.
- append: ``--appends`` assistant messages appended one after another through the write
  queue (each one ``write`` to the OS, no fsync); median and 99th percentile per append.
- snapshot: a tree of ``--files`` small files in a fresh git repository; the first
  snapshot (everything hashed) and incremental ones after changing 10 files (median of
  ``--runs``), then one undo.

Each figure is printed with a baseline timed in the same run (plain JSON decoding of the
same lines, a bare ``os.write`` of the same line, ``git add -A`` of the same tree): compare
the ratios across machines, not the raw numbers.

Aims (issue 5): load under 1 s, append under 100 µs, incremental snapshot under 300 ms.

Usage (from the repository root):

    .venv/bin/python scripts/bench/sessions.py [--entries 100000] [--appends 5000]
                                               [--files 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
import msgspec

from earshot.core.session import SessionStore, read_transcript
from earshot.core.session.codec import encode_line, now_iso
from earshot.core.session.entries import Header, MessageEntry
from earshot.core.undo import Undo
from earshot.providers.types import (
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

PROSE = "The function returns the parsed value; the caller checks it before use. " * 3


def _entries(count: int) -> list[MessageEntry]:
    entries: list[MessageEntry] = []
    parent: str | None = None
    stamp = now_iso()
    for n in range(count):
        kind = n % 4
        if kind == 0:
            message = Message(role="user", parts=[TextPart(text=f"step {n}: {PROSE[:120]}")])
        elif kind == 1:
            message = Message(
                role="assistant",
                parts=[
                    ReasoningPart(
                        text=PROSE, provider_metadata={"anthropic": {"signature": "s" * 80}}
                    ),
                    TextPart(text=PROSE),
                    ToolCallPart(id=f"call_{n}", name="read", input={"path": f"src/m{n}.py"}),
                ],
            )
        elif kind == 2:
            message = Message(
                role="tool",
                parts=[
                    ToolResultPart(
                        call_id=f"call_{n - 1}", name="read", content=[TextPart(text=PROSE * 2)]
                    )
                ],
            )
        else:
            message = Message(role="assistant", parts=[TextPart(text=PROSE)])
        entry_id = f"{n:012x}"
        usage = Usage(input=1200, output=300) if message.role == "assistant" else None
        entries.append(
            MessageEntry(
                id=entry_id, parent_id=parent, timestamp=stamp, message=message, usage=usage
            )
        )
        parent = entry_id
    return entries


def bench_load(root: Path, count: int, runs: int) -> None:
    path = root / "big.jsonl"
    header = Header(version=1, id="bench", timestamp=now_iso(), cwd=str(root), earshot_version="0")
    path.write_bytes(encode_line(header) + b"".join(encode_line(e) for e in _entries(count)))
    size_mb = path.stat().st_size / 1e6
    parse_times: list[float] = []
    history_times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        transcript = read_transcript(path)
        middle = time.perf_counter()
        history = transcript.tree.history()
        end = time.perf_counter()
        parse_times.append(middle - start)
        history_times.append(end - middle)
    assert len(history) == count and not transcript.problems
    baseline: list[float] = []
    untyped = msgspec.json.Decoder()
    for _ in range(runs):
        start = time.perf_counter()
        rows = [untyped.decode(line) for line in path.read_bytes().split(b"\n") if line]
        baseline.append(time.perf_counter() - start)
        del rows
    total = statistics.median(p + h for p, h in zip(parse_times, history_times, strict=True))
    floor = statistics.median(baseline)
    print(
        f"load {count:,} entries ({size_mb:.1f} MB): {total * 1000:.0f} ms median "
        f"(read+parse+tree {statistics.median(parse_times) * 1000:.0f} ms, "
        f"history {statistics.median(history_times) * 1000:.0f} ms); baseline (each line to "
        f"untyped JSON) {floor * 1000:.0f} ms, ratio {total / floor:.1f}"
    )


def bench_append(root: Path, count: int) -> None:
    store = SessionStore(root, root / "data")
    message = Message(role="assistant", parts=[TextPart(text=PROSE * 2)])

    async def run() -> list[float]:
        samples: list[float] = []
        with store.create(model="bench/model") as session:
            for _ in range(count):
                start = time.perf_counter()
                await session.append_message(
                    message, usage=Usage(input=1, output=2), cost_usd=0.001
                )
                samples.append(time.perf_counter() - start)
            start = time.perf_counter()
            await session.end_turn()
            samples.append(-(time.perf_counter() - start))
        return samples

    samples = anyio.run(run)
    fsync = -samples.pop()
    samples.sort()
    line = encode_line(
        MessageEntry(id="x" * 12, parent_id=None, timestamp=now_iso(), message=message)
    )
    raw: list[float] = []
    fd = os.open(root / "raw.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        for _ in range(count):
            start = time.perf_counter()
            os.write(fd, line)
            raw.append(time.perf_counter() - start)
    finally:
        os.close(fd)
    median = statistics.median(samples)
    p99 = samples[int(len(samples) * 0.99)]
    floor = statistics.median(raw)
    print(
        f"append ({len(line)} B lines): median {median * 1e6:.0f} µs, p99 {p99 * 1e6:.0f} µs "
        f"over {count:,}; baseline (os.write of the line) {floor * 1e6:.0f} µs, ratio "
        f"{median / floor:.1f}; end_turn fsync {fsync * 1000:.1f} ms"
    )


def bench_snapshot(root: Path, files: int, runs: int) -> None:
    tree = root / "tree"
    for n in range(files):
        path = tree / f"pkg{n % 100:02d}" / f"sub{n % 7}" / f"module_{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# module {n}\n" + PROSE + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True, env=env)
    undo = Undo(tree, "0190a000-0000-7000-8000-00000000bench", root / "data")
    start = time.perf_counter()
    anyio.run(undo.snapshot, "first")
    first = time.perf_counter() - start
    incremental: list[float] = []
    for run in range(runs):
        for n in range(10):
            (tree / f"pkg{n:02d}" / f"sub{n % 7}" / f"module_{n}.py").write_text(f"# run {run}\n")
        (tree / f"new_{run}.py").write_text("x = 1\n")
        start = time.perf_counter()
        anyio.run(undo.snapshot, f"batch {run}")
        incremental.append(time.perf_counter() - start)
    start = time.perf_counter()
    result = anyio.run(undo.undo)
    restore = time.perf_counter() - start
    assert result.ok, result.message
    first_add, again_add = _git_add_baseline(root, tree, env)
    print(
        f"snapshot of {files:,} files: first {first * 1000:.0f} ms, incremental (10 changed, "
        f"1 new) median {statistics.median(incremental) * 1000:.0f} ms; undo of one batch "
        f"{restore * 1000:.0f} ms; baseline (git add -A into a fresh repo: first, again) "
        f"{first_add * 1000:.0f} ms, {again_add * 1000:.0f} ms"
    )


def _git_add_baseline(root: Path, tree: Path, env: dict[str, str]) -> tuple[float, float]:
    """Plain ``git add -A && git write-tree`` over the same tree, twice."""
    other = {**env, "GIT_DIR": str(root / "baseline.git"), "GIT_WORK_TREE": str(tree)}
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True, env=other)
    times: list[float] = []
    for _ in range(2):
        start = time.perf_counter()
        subprocess.run(["git", "add", "-A"], cwd=tree, check=True, env=other)
        subprocess.run(["git", "write-tree"], cwd=tree, check=True, env=other, capture_output=True)
        times.append(time.perf_counter() - start)
    return times[0], times[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--appends", type=int, default=5_000)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="earshot-bench-") as tmp:
        root = Path(tmp)
        bench_load(root, args.entries, args.runs)
        bench_append(root, args.appends)
        bench_snapshot(root, args.files, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
