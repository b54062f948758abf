#!/usr/bin/env python3
"""The per-step Python hot paths, timed alone: what a mypyc build could speed up.

Each case runs one piece of the loop's per-step work on a long session and prints its
median CPU time per call (µs), over ``--runs`` rounds of ``--reps`` calls:

- ``encode:<wire>``: a request of a 200-step history (a prompt, then per step an assistant
  message with reasoning, text and a tool call, and a 2 KB tool result) built into the
  bytes sent (``wire.build_call``), for each of the four main wires;
- ``shape``: the context shapers over that history (``context.shape``) and the token
  estimate (``context.estimate``), as the loop runs them before every request;
- ``stream:anthropic``, ``stream:openai-responses``: an answer of 400 text deltas and a tool
  call whose arguments stream in 40 pieces, its SSE events (already framed) through the
  adapter's parser and the ``Assembler`` to the final message;
- ``tree``: a 100,000-entry session's entries into its tree (``Tree.of``), then the branch's
  history (``Tree.history``), as resuming does after decoding the lines.

With ``--compare PY_A PY_B`` it runs itself under both interpreters (each has earshot
installed: a pure install and a mypyc-compiled wheel, say), interleaved round by round, and
prints the median over the rounds of each round's least time, and their ratio, per case.
``--interleaved``, run by a compiled install's interpreter, loads pure copies of the
candidate modules from the ``.py`` files shipped beside the extensions and times both sides
in one process, sample by sample.

On a shared machine CPU time still wanders with the neighbours; instructions do not.
``--calls CASE SIDE N`` runs one case N times (after one warm call) and exits, so
valgrind can count the instructions of N calls less those of none:

    for n in 0 5; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        /tmp/cvenv/bin/python scripts/bench/hotpaths.py --calls encode:gemini pure $n; done

Usage (from the repository root):

    .venv/bin/python scripts/bench/hotpaths.py [--runs 7] [--reps 20] [--only encode,shape]
    .venv/bin/python scripts/bench/hotpaths.py --compare .venv/bin/python /tmp/cvenv/bin/python
    /tmp/cvenv/bin/python scripts/bench/hotpaths.py --interleaved     # one process, both sides
"""

from __future__ import annotations

import argparse
import gc
import importlib.machinery
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from earshot.providers.types import (
    JSONValue,
    Message,
    ModelRequest,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)

STEPS = 200
PROSE = "The function returns the parsed value; the caller checks it before use. "
OUTPUT = "\n".join(f"src/module_{n}.py:{n}: {PROSE}" for n in range(24))  # ~2 KB
MODULES = (
    "earshot.providers.wire._turns",
    "earshot.providers.wire.assemble",
    "earshot.providers.wire.base",
    "earshot.providers.wire.anthropic",
    "earshot.providers.wire.anthropic._request",
    "earshot.providers.wire.openai_responses",
    "earshot.providers.wire.openai_responses._request",
    "earshot.providers.wire.openai_chat._request",
    "earshot.providers.wire.gemini._request",
    "earshot.core.loop.context",
    "earshot.core.session.tree",
    "earshot.providers.sse",
)
WIRES = {
    "anthropic": ("anthropic", "anthropic-messages", "claude-sonnet-4-6"),
    "openai-responses": ("openai", "openai-responses", "gpt-5.4"),
    "openai-chat": ("xai", "openai-chat", "grok-4.3"),
    "gemini": ("google", "google-gemini", "gemini-3.5-flash"),
}


def _history(steps: int) -> list[Message]:
    messages = [Message(role="user", parts=[TextPart(text="Fix the failing test. " * 5)])]
    for n in range(steps):
        metadata: dict[str, JSONValue] = {
            "anthropic": {"signature": "s" * 120},
            "openai": {"item_id": f"rs_{n}", "encrypted_content": "e" * 200},
        }
        call = ToolCallPart(
            id=f"toolu_{n:08d}",
            name="grep",
            input={"pattern": f"def name_{n}", "path": "src", "output_mode": "content"},
            provider_metadata={"google": {"thoughtSignature": "g" * 80}},
        )
        messages.append(
            Message(
                role="assistant",
                parts=[
                    ReasoningPart(text=PROSE * 3, provider_metadata=metadata),
                    TextPart(text=PROSE),
                    call,
                ],
            )
        )
        result = ToolResultPart(call_id=call.id, name="grep", content=[TextPart(text=OUTPUT)])
        messages.append(Message(role="tool", parts=[result]))
    return messages


def _tools() -> list[ToolSpec]:
    from earshot.core.tools._specs import SPECS

    return [spec for _, spec in SPECS.values()]


def _request(model: str, steps: int = STEPS) -> ModelRequest:
    return ModelRequest(
        model=model,
        system="You are earshot, a coding agent. " * 20,
        messages=_history(steps),
        tools=_tools(),
        reasoning_effort="medium",
    )


def _target(provider: str, wire: str, model: str):  # type: ignore[no-untyped-def]  # a bench helper
    from earshot.providers.catalog import ModelCatalog
    from earshot.providers.target import Target

    return Target(
        provider=provider,
        wire=wire,  # type: ignore[arg-type]  # one of the four names in WIRES
        base_url="http://127.0.0.1:9",
        model=model,
        auth="bearer",
        info=ModelCatalog.load(use_cache=False).get(provider, model),
    )


def case_encode(name: str) -> Callable[[], object]:
    from earshot.providers.wire import get_wire

    provider, wire_name, model = WIRES[name]
    target = _target(provider, wire_name, model)
    wire = get_wire(target.wire)
    request = _request(model)
    return lambda: wire.build_call(request, target)


def case_shape() -> Callable[[], object]:
    from earshot.core.loop.context import ContextPolicy, estimate, shape

    request = _request("m")
    policy = ContextPolicy()

    def run() -> object:
        shaped = shape(request.messages, policy)
        return estimate(shaped, system=request.system, tools=request.tools)

    return run


def _anthropic_events() -> list[str]:
    out = [
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 9}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    out += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}
        for w in (PROSE.split() * 40)[:400]
    ]
    out.append({"type": "content_block_stop", "index": 0})
    block = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}
    out.append({"type": "content_block_start", "index": 1, "content_block": block})
    args = json.dumps({"command": "pytest -q tests/" + "x" * 200})
    pieces = [args[i : i + max(1, len(args) // 40)] for i in range(0, len(args), len(args) // 40)]
    out += [
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": p},
        }
        for p in pieces
    ]
    out.append({"type": "content_block_stop", "index": 1})
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 500},
        }
    )
    out.append({"type": "message_stop"})
    return [json.dumps(e) for e in out]


def _responses_events() -> list[str]:
    out: list[dict[str, object]] = [
        {"type": "response.created", "response": {"id": "r"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "msg_1"},
        },
    ]
    out += [
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": w}
        for w in (PROSE.split() * 40)[:400]
    ]
    out.append(
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"type": "message", "id": "msg_1"},
        }
    )
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash"}
    out.append({"type": "response.output_item.added", "output_index": 1, "item": item})
    args = json.dumps({"command": "pytest -q tests/" + "x" * 200})
    step = max(1, len(args) // 40)
    out += [
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "delta": args[i : i + step],
        }
        for i in range(0, len(args), step)
    ]
    out.append(
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**item, "arguments": args},
        }
    )
    usage = {"input_tokens": 9, "output_tokens": 500}
    out.append({"type": "response.completed", "response": {"id": "r", "usage": usage}})
    return [json.dumps(e) for e in out]


def case_stream(name: str) -> Callable[[], object]:
    from earshot.providers.sse import SSEEvent
    from earshot.providers.wire import get_wire

    provider, wire_name, model = WIRES[name]
    target = _target(provider, wire_name, model)
    wire = get_wire(target.wire)
    request = _request(model, steps=1)
    payloads = _anthropic_events() if name == "anthropic" else _responses_events()
    events = [SSEEvent("message", p) for p in payloads]

    def run() -> object:
        parser = wire.parser(request, target)
        out = []
        for event in events:
            out += parser.feed(event)
        out += parser.close()
        assert type(out[-1]).__name__ == "Finish", out[-1]
        return out

    return run


def case_tree() -> Callable[[], object]:
    from earshot.core.session.codec import now_iso
    from earshot.core.session.entries import MessageEntry
    from earshot.core.session.tree import Tree

    stamp = now_iso()
    entries = []
    parent: str | None = None
    history = _history(25_000)
    for n, message in enumerate(history[:100_000]):
        entry_id = f"{n:012x}"
        entries.append(
            MessageEntry(id=entry_id, parent_id=parent, timestamp=stamp, message=message)
        )
        parent = entry_id

    def run() -> object:
        tree, _ = Tree.of(entries)  # type: ignore[arg-type]  # MessageEntry is an Entry
        return tree.history()

    return run


CASES: dict[str, Callable[[], Callable[[], object]]] = {
    **{f"encode:{w}": (lambda w=w: case_encode(w)) for w in WIRES},  # type: ignore[misc]
    "shape": case_shape,
    "stream:anthropic": lambda: case_stream("anthropic"),
    "stream:openai-responses": lambda: case_stream("openai-responses"),
    "tree": case_tree,
}
REPS = {"tree": 1}


def measure(names: list[str], runs: int, reps: int, *, best: bool = False) -> dict[str, float]:
    """Median (``best``: least) CPU µs per call of each case in this interpreter (the
    thread's CPU time: on a shared machine wall time mostly measures the neighbours). The
    collector runs as earshot's entry point sets it (``cli._entry``)."""
    from earshot.cli._entry import GC_THRESHOLD

    gc.set_threshold(GC_THRESHOLD, 10, 10)
    out: dict[str, float] = {}
    for name in names:
        fn = CASES[name]()
        n = REPS.get(name, reps)
        fn()  # warm
        samples = []
        for _ in range(runs):
            gc.collect()
            start = time.thread_time()
            for _ in range(n):
                fn()
            samples.append((time.thread_time() - start) / n)
        out[name] = (min if best else statistics.median)(samples) * 1e6
    return out


class _PureFinder:
    """Imports the modules in ``MODULES`` from their ``.py`` source even where a compiled
    extension sits beside it: the pure side of an in-process comparison."""

    @classmethod
    def find_spec(cls, fullname: str, path: object, target: object = None):  # type: ignore[no-untyped-def]  # the meta-path protocol
        if fullname not in MODULES or fullname == "earshot.providers.sse":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)  # type: ignore[arg-type]  # a package's __path__
        if spec is None or spec.origin is None or spec.origin.endswith(".py"):
            return spec
        from earshot._compiled import source_of

        source = source_of(spec.origin)
        return importlib.util.spec_from_file_location(fullname, source) if source else spec


def _pure_cases(names: list[str]) -> dict[str, Callable[[], object]]:
    """``names``' cases built on pure-Python copies of the candidate modules and of what
    imports them (the wire adapters, the loop's context module, the session tree), loaded
    beside the compiled ones: both sides run in one process, sample by sample."""
    import earshot.providers.wire.anthropic._events
    import earshot.providers.wire.openai_responses._events  # noqa: F401 (kept in sys.modules)

    saved = dict(sys.modules)
    prefixes = ("earshot.providers.wire", "earshot.core.loop.context", "earshot.core.session.tree")
    for name in list(sys.modules):
        # The vendors' event Structs stay shared: msgspec resolves their annotations
        # through sys.modules, which gets the compiled side's modules back below.
        if name.startswith(prefixes) and not name.endswith("._events"):
            del sys.modules[name]
    sys.meta_path.insert(0, _PureFinder)
    try:
        return {name: CASES[name]() for name in names}
    finally:
        sys.meta_path.remove(_PureFinder)
        sys.modules.clear()
        sys.modules.update(saved)


def interleaved(names: list[str], runs: int, reps: int) -> None:
    """Pure copies against this install's compiled modules in one process, alternating
    sample by sample; prints the median CPU µs of each side and their ratio."""
    from earshot.cli._entry import GC_THRESHOLD

    gc.set_threshold(GC_THRESHOLD, 10, 10)
    compiled = {name: CASES[name]() for name in names}
    pure = _pure_cases(names)
    print(f"compiled here: {', '.join(compiled_modules()) or 'nothing'}")
    print(f"{'case':26} {'pure µs':>10} {'compiled':>10}  ratio")
    for name in names:
        n = REPS.get(name, reps)
        sides = {"pure": pure[name], "compiled": compiled[name]}
        samples: dict[str, list[float]] = {"pure": [], "compiled": []}
        for fn in sides.values():
            fn()  # warm
        for _ in range(runs):
            for side, fn in sides.items():
                gc.collect()
                start = time.thread_time()
                for _ in range(n):
                    fn()
                samples[side].append((time.thread_time() - start) / n)
        p = statistics.median(samples["pure"]) * 1e6
        c = statistics.median(samples["compiled"]) * 1e6
        print(f"{name:26} {p:10.1f} {c:10.1f}  {c / p:.2f}")


def compiled_modules() -> list[str]:
    import importlib

    from earshot._compiled import is_compiled

    return [
        m.rsplit(".", 2)[-2] + "." + m.rsplit(".", 1)[-1]
        for m in MODULES
        if is_compiled(importlib.import_module(m))
    ]


def compare(pythons: list[str], names: list[str], runs: int, reps: int) -> None:
    samples: dict[str, dict[str, list[float]]] = {p: {n: [] for n in names} for p in pythons}
    compiled: dict[str, list[str]] = {}
    cmd = [__file__, "--json", "--runs", "3", "--reps", str(reps), "--only", ",".join(names)]
    for _ in range(runs):
        for python in pythons:
            done = subprocess.run([python, *cmd], capture_output=True, text=True, check=True)
            data = json.loads(done.stdout)
            compiled[python] = data["compiled"]
            for name, value in data["times"].items():
                samples[python][name].append(value)
    for python in pythons:
        print(f"{python}: compiled {', '.join(compiled[python]) or 'nothing'}")
    a, b = pythons
    print(f"{'case':26} {'A µs':>10} {'B µs':>10}  B/A")
    for name in names:
        ma = statistics.median(samples[a][name])
        mb = statistics.median(samples[b][name])
        print(f"{name:26} {ma:10.1f} {mb:10.1f}  {mb / ma:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--compare", nargs=2, metavar="PYTHON")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--calls",
        nargs=3,
        metavar=("CASE", "SIDE", "N"),
        help="run CASE (after one warm call) N times on SIDE (pure or compiled) and exit: "
        "for an instruction count, whose N=0 run is subtracted (see the module docstring)",
    )
    parser.add_argument(
        "--interleaved",
        action="store_true",
        help="in a compiled install: pure copies against the compiled modules, one process",
    )
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(CASES)
    if args.calls:
        name, side, count = args.calls
        fn = _pure_cases([name])[name] if side == "pure" else CASES[name]()
        for _ in range(int(count) + 1):
            fn()
        return 0
    if args.interleaved:
        interleaved(names, args.runs, args.reps)
        return 0
    if args.compare:
        compare(args.compare, names, args.runs, args.reps)
        return 0
    times = measure(names, args.runs, args.reps, best=args.json)
    if args.json:
        print(json.dumps({"times": times, "compiled": compiled_modules()}))
        return 0
    print(f"compiled: {', '.join(compiled_modules()) or 'nothing'}")
    for name, value in times.items():
        print(f"{name:26} {value:10.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
