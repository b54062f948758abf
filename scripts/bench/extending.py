#!/usr/bin/env python3
"""What skills and hooks cost: system-prompt bytes for N skills, and the latency a no-op
PreToolUse hook adds to one tool call.

Usage::

    .venv/bin/python scripts/bench/extending.py [--skills 20] [--runs 30]

Prints the bytes ``prompt_section`` adds for ``--skills`` skills whose descriptions are a
typical 100-160 characters, and the median time of a ``read`` tool batch with no hooks and
with one ``true`` hook (a real ``bash -c`` process), and the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from earshot._base.json import JSONObject
from earshot.core.config.settings import Settings
from earshot.core.extend import skills
from earshot.core.extend.hooks import Hook, Hooks
from earshot.core.loop._execute import ToolBatch
from earshot.core.permissions import PermissionGate, load_rules
from earshot.core.tools.base import ToolContext
from earshot.core.tools.registry import builtin_tools
from earshot.core.tools.state import ToolState
from earshot.providers.types import ToolCallPart


def skill_bytes(count: int, root: Path) -> int:
    for i in range(count):
        folder = root / ".earshot" / "skills" / f"skill-{i:02d}"
        folder.mkdir(parents=True)
        description = (
            f"Use when working on area {i} of the project: generates, checks and explains "
            "its files following the team's conventions and release checklist."
        )
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: {description}\n---\n" + "body\n" * 200
        )
    found, problems = skills.discover(root, home=root / "nohome")
    assert len(found) == count and not problems, problems
    return len(skills.prompt_section(found).encode()) + 2  # and the "\n\n" joining it


async def one_batch(root: Path, hooks: Hooks | None) -> float:
    gate = PermissionGate(load_rules(Settings()), "yolo", root)
    ctx = ToolContext(cwd=root, state=ToolState())
    batch = ToolBatch(
        tools={t.name: t for t in builtin_tools(("read",))},
        ctx=ctx,
        gate=gate,
        approve=None,
        hooks=hooks,
        hook_base={"session_id": "bench", "cwd": str(root)},
    )
    args: JSONObject = {"path": "notes.txt"}
    start = time.perf_counter()
    async for _ in batch.run([ToolCallPart(id="r1", name="read", input=args)]):
        pass
    return (time.perf_counter() - start) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=20)
    parser.add_argument("--runs", type=int, default=30)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        print(f"system prompt bytes added by {ns.skills} skills: {skill_bytes(ns.skills, root)}")
        (root / "notes.txt").write_text("alpha\n" * 100)
        noop = Hooks([Hook("PreToolUse", "", "true", 60.0, "user")])
        bare: list[float] = []
        hooked: list[float] = []
        for _ in range(ns.runs):
            bare.append(asyncio.run(one_batch(root, None)))
            hooked.append(asyncio.run(one_batch(root, noop)))
        b, h = statistics.median(bare), statistics.median(hooked)
        print(f"read call, no hook:      median {b:.2f} ms")
        print(f"read call, no-op hook:   median {h:.2f} ms")
        print(f"added by one no-op hook: {h - b:.2f} ms")


if __name__ == "__main__":
    main()
