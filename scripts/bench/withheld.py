#!/usr/bin/env python3
"""Time grep and glob over a tree with and without ``Read`` deny rules; print medians in ms.

Usage::

    .venv/bin/python scripts/bench/withheld.py [--runs 7] [--dirs 50] [--files 50]

Builds a temporary tree of ``dirs * files`` small files, then times, interleaved, a
``grep`` for a pattern that matches nothing and a ``glob`` of ``**/*.py`` through the real
tools with a real gate: once with no deny rule, once with three ``Read`` deny rules (every
entry is then checked before it is opened or listed, and grep uses its Python engine).
Prints the medians and the ratio with/without.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from earshot.core.permissions import PermissionGate, RuleSet
from earshot.core.permissions.rules import parse_rule
from earshot.core.tools import glob, grep
from earshot.core.tools.base import ToolContext
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONValue

DENY = ("Read(*.pem)", "Read(./.env)", "Read(~/.ssh/**)")


def _context(root: Path, deny: tuple[str, ...]) -> ToolContext:
    rules = tuple(parse_rule(t, "deny", scope="user", source="bench", base=root) for t in deny)
    gate = PermissionGate(RuleSet(rules=rules), "ask", root)
    return ToolContext(cwd=root, state=ToolState(), guard=gate)


async def _once(tool: str, ctx: ToolContext) -> float:
    module = grep if tool == "grep" else glob
    args: dict[str, JSONValue] = (
        {"pattern": "no such text", "path": "."} if tool == "grep" else {"pattern": "**/*.py"}
    )
    start = time.perf_counter()
    await module.TOOL.prepare(args, ctx).run()
    return (time.perf_counter() - start) * 1000.0


async def _time(root: Path, runs: int, files: int) -> None:
    contexts = {"none": _context(root, ()), "deny": _context(root, DENY)}
    for tool in ("grep", "glob"):
        times: dict[str, list[float]] = {"none": [], "deny": []}
        for _ in range(runs):
            for name, ctx in contexts.items():
                times[name].append(await _once(tool, ctx))
        none, deny = (statistics.median(times[k]) for k in ("none", "deny"))
        print(
            f"{tool:5} {files} files: no deny rule {none:7.1f} ms, "
            f"{len(DENY)} Read deny rules {deny:7.1f} ms, ratio {deny / none:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dirs", type=int, default=50)
    parser.add_argument("--files", type=int, default=50)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        for d in range(opts.dirs):
            (root / f"d{d}/sub").mkdir(parents=True)
            for f in range(opts.files):
                (root / f"d{d}/sub/f{f}.py").write_text("x = 1\n" * 20)
        anyio.run(_time, root, opts.runs, opts.dirs * opts.files)


if __name__ == "__main__":
    main()
