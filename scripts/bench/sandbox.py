#!/usr/bin/env python3
"""What the OS sandbox adds to a shell command: the bash tool running ``true`` confined by
bubblewrap and unconfined, interleaved, in one run; prints medians and the ratio.

Usage::

    .venv/bin/python scripts/bench/sandbox.py [--calls 100]

Each call goes through the real ``bash`` tool (spawn, process group, output reading), so the
difference is what a user pays per command. Linux with ``bwrap`` on PATH.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

from earshot.core.sandbox import SandboxConfig, find_backend, open_sandbox
from earshot.core.tools.base import ToolContext
from earshot.core.tools.bash import TOOL
from earshot.core.tools.state import ToolState


async def _time(ctx: ToolContext) -> float:
    start = time.perf_counter()
    await TOOL.execute(TOOL.input_type(command="true"), ctx)
    return (time.perf_counter() - start) * 1000


async def main(calls: int) -> int:
    backend = find_backend()
    if backend is None or backend.kind != "bwrap":
        print("sandbox.py: needs bubblewrap (bwrap) on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        await anyio.run_process(["git", "init", "-q", str(project)])
        confined = ToolState()
        confined.sandbox = open_sandbox(project, SandboxConfig(), backend=backend)
        plain = ToolState()
        plain.sandbox = open_sandbox(project, SandboxConfig(mode="off"))
        contexts = {
            "sandboxed": ToolContext(cwd=project, state=confined),
            "unconfined": ToolContext(cwd=project, state=plain),
        }
        times: dict[str, list[float]] = {name: [] for name in contexts}
        for ctx in contexts.values():  # warm up both (and the sandbox's one-off probe)
            await _time(ctx)
        for _ in range(calls):
            for name, ctx in contexts.items():
                times[name].append(await _time(ctx))
    sandboxed = statistics.median(times["sandboxed"])
    unconfined = statistics.median(times["unconfined"])
    print(f"bash `true`, {calls} calls each, interleaved (median ms)")
    print(f"  unconfined  {unconfined:7.2f}")
    print(
        f"  sandboxed   {sandboxed:7.2f}   (+{sandboxed - unconfined:.2f} ms, "
        f"{sandboxed / unconfined:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    sys.exit(anyio.run(main, parser.parse_args().calls))
