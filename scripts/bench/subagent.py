"""The overhead of starting a subagent, and the bytes the new tools add to every request.

    .venv/bin/python scripts/bench/subagent.py [--runs 200] [--transcript]

Times a turn whose model calls ``task`` once (the child answers at once) against the same
three model calls without a child (a cheap tool call, then one more turn), both with a
scripted model (no HTTP): the difference is what a child costs earshot itself (building the
agent, its tools, its turn, the live events, the record). With ``--transcript`` both record
to a session file in a temp dir, so the child's transcript branch is counted too. Prints
medians in ms, and the JSON size of the ``task`` and ``declare_scope`` tool definitions.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from earshot.core.config.agents import BUILTIN_AGENT
from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.model import ScriptedModel, call, calls
from earshot.core.loop.subagent import Subagents
from earshot.core.permissions import PermissionGate
from earshot.core.permissions.rules import RuleSet
from earshot.core.session import SessionStore
from earshot.core.tools import scope, task
from earshot.core.tools.registry import BUILTIN
from earshot.providers.target import Secret, Target


def _target() -> Target:
    return Target(
        provider="anthropic",
        wire="anthropic-messages",
        base_url="http://127.0.0.1:9",
        model="m",
        auth="x-api-key",
        api_key=Secret("k"),
    )


async def _turn(cwd: Path, child: bool, store: SessionStore | None) -> float:
    if child:
        first = calls(call("t1", "task", description="d", prompt="p"))
    else:  # the same two parent calls around a cheap tool, then one call as the child's
        first = calls(call("t1", "declare_scope", goal="g", paths=["src/**"]))
    model = ScriptedModel.of(first, "child", "done") if child else ScriptedModel.of(first, "a")
    gate = PermissionGate(RuleSet(), "yolo", cwd)
    session = store.create(model="anthropic/m") if store is not None else None
    agent = Agent(
        AgentConfig(target=_target(), tools=list(BUILTIN), cwd=cwd),
        AgentPorts(gate=gate, model=model, transcript=session),
    )
    children = Subagents(agent, [BUILTIN_AGENT], lambda ref: _target(), transcript=session)
    agent.add_tool(children.tool())
    agent.spawn = children.spawn
    start = time.perf_counter()
    async for _ in agent.run_turn("go"):
        pass
    if not child:  # the baseline makes a second call as the child's turn would
        agent.model = ScriptedModel.of("b")
        async for _ in agent.run_turn("again"):
            pass
    elapsed = (time.perf_counter() - start) * 1000.0
    if session is not None:
        session.close()
    if child and len(model.requests) != 3:
        raise SystemExit(f"the child did not run: {len(model.requests)} model calls")
    return elapsed


async def _main(runs: int, transcript: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        store = SessionStore(cwd, cwd / "data") if transcript else None
        with_child: list[float] = []
        without: list[float] = []
        for _ in range(runs):
            with_child.append(await _turn(cwd, True, store))
            without.append(await _turn(cwd, False, store))
    a, b = statistics.median(with_child), statistics.median(without)
    print(
        f"turn with one subagent: {a:.2f} ms; the same calls without it: {b:.2f} ms; "
        f"child: {a - b:.2f} ms"
    )
    for name, spec in (
        ("task", task.make_tool([(BUILTIN_AGENT.name, BUILTIN_AGENT.description)]).spec()),
        ("declare_scope", scope.TOOL.spec()),
    ):
        size = len(
            json.dumps(
                {
                    "name": spec.name,
                    "description": spec.description,
                    "input_schema": spec.input_schema,
                }
            )
        )
        print(f"{name} definition: {size} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--transcript", action="store_true")
    args = parser.parse_args()
    anyio.run(_main, args.runs, args.transcript)


if __name__ == "__main__":
    main()
