#!/usr/bin/env python3
"""earshot beside Codex, pi and Claude Code, each against the same fake provider.

Installs the peers from npm at the versions pinned in ``PEERS`` into a cache outside the
repository, gives each agent a fresh HOME there whose config points it at the fake provider
(``tests/fake_provider``, on loopback, answering at once) and turns off whatever would reach
the network, then runs every agent in turn, round after round: one turn, ``--steps``
sequential ``true`` calls through the agent's own shell tool, and one turn with its process
tree sampled for RSS. Prints one table of medians. scripts/bench/README.md has the set-up
of each agent and what each row measures. Run by hand; never in CI.

Usage (from the repository root)::

    .venv/bin/python scripts/bench/peers.py [--runs 5] [--steps 20] [--agents ...]
                     [--frozen PATH] [--before PATH] [--cache DIR] [--claude-model M]
                     [--show-requests]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts" / "bench")]

from peers_setup import NAMES, Agent, install_peers, make_agents, make_work  # noqa: E402

from tests.fake_provider import (  # noqa: E402
    FakeProvider,
    RawReply,
    RecordedRequest,
    Reply,
    ToolCallSpec,
    anthropic,
    openai_responses,
)

TIMEOUT = 300.0


@dataclass
class Samples:
    first_ms: list[float] = field(default_factory=list)
    turn_s: list[float] = field(default_factory=list)
    turn_cpu: list[float] = field(default_factory=list)
    tools_cpu: list[float] = field(default_factory=list)
    tools_s: list[float] = field(default_factory=list)
    gaps_ms: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    first_kb: list[float] = field(default_factory=list)
    last_kb: list[float] = field(default_factory=list)
    tools_offered: int = 0
    other_requests: list[int] = field(default_factory=list)
    error: str = ""


# --- what the fake provider sees --------------------------------------------------------


def _body(request: RecordedRequest) -> dict[str, object]:
    try:
        value = json.loads(request.body)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool_names(request: RecordedRequest) -> list[str]:
    tools = _body(request).get("tools")
    if not isinstance(tools, list):
        return []
    return [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]


def _is_main(agent: Agent, request: RecordedRequest) -> bool:
    return agent.tool in _tool_names(request)


def _text_reply(agent: Agent, text: str) -> Reply:
    if agent.wire == "responses":
        return openai_responses.text_turn(text, chunks=3)
    return anthropic.text_turn(text, chunks=3)


def _tool_reply(agent: Agent, n: int) -> Reply:
    call = ToolCallSpec(f"call_{n:02d}", agent.tool, dict(agent.tool_args))
    if agent.wire == "responses":
        return openai_responses.tool_calls_turn([call])
    return anthropic.tool_calls_turn([call])


def _side_reply(agent: Agent, request: RecordedRequest) -> Reply:
    if request.method == "POST" and request.path.endswith(("/messages", "/responses")):
        return _text_reply(agent, "ok")
    return RawReply.json(404, {"error": {"type": "not_found_error", "message": "not here"}})


def _text_of(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(_text_of(v.get("text")) for v in value if isinstance(v, dict))
    return ""


def _tool_results(agent: Agent, request: RecordedRequest) -> tuple[int, int, str]:
    """Tool results in a request's history, how many are marked as errors, the last one's
    text."""
    body = _body(request)
    results = errors = 0
    last = ""
    if agent.wire == "responses":
        items = body.get("input")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                results += 1
                last = _text_of(item.get("output"))
        return results, errors, last
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results += 1
                errors += block.get("is_error") is True
                last = _text_of(block.get("content"))
    return results, errors, last


# --- running one agent once -------------------------------------------------------------


def _tree_rss(root: int) -> int:
    """Sum of RSS (bytes) over ``root`` and its descendants. A child whose command line is
    still its parent's has forked and not yet exec'd: its pages are the parent's, not counted.
    """
    page = os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [(root, b"")]
    while todo:
        pid, parent_cmdline = todo.pop()
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if cmdline != parent_cmdline:
                total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
            for task in os.listdir(f"/proc/{pid}/task"):
                children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                todo += [(int(child), cmdline) for child in children]
        except (OSError, ValueError):
            continue
    return total


class Run:
    """One agent process: spawned with the prompt, its requests counted from ``before``."""

    def __init__(self, agent: Agent, fake: FakeProvider, work: Path, prompt: str) -> None:
        self.agent, self.fake = agent, fake
        self.before = len(fake.requests)
        self.peak = 0
        self.cpu = 0.0  # user + system seconds of the tree, once it has exited
        self.usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.start = time.perf_counter()
        self.process = subprocess.Popen(
            [*agent.argv, prompt],
            cwd=work,
            env=agent.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait(self, sample_rss: bool = False) -> float:
        stop = threading.Event()
        sampler = threading.Thread(target=self._sample, args=(stop,), daemon=True)
        if sample_rss:
            sampler.start()
        try:
            output, _ = self.process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.communicate()
            raise RuntimeError(f"timed out after {TIMEOUT:.0f} s") from None
        finally:
            stop.set()
        wall = time.perf_counter() - self.start
        # Children reaped by their parents count too; anything left to init does not.
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = sum(getattr(usage, f) - getattr(self.usage, f) for f in ("ru_utime", "ru_stime"))
        if sample_rss:
            sampler.join()
        if self.process.returncode != 0:
            tail = output.decode(errors="replace").strip()[-600:]
            raise RuntimeError(f"exit {self.process.returncode}: {tail}")
        return wall

    def _sample(self, stop: threading.Event) -> None:
        while not stop.wait(0.005):
            self.peak = max(self.peak, _tree_rss(self.process.pid))

    def main_requests(self) -> list[RecordedRequest]:
        return [r for r in self.fake.requests[self.before :] if _is_main(self.agent, r)]

    def other_requests(self) -> int:
        return len(self.fake.requests[self.before :]) - len(self.main_requests())


class Script:
    """Answers an agent's main-loop requests in order and every other request at once."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.replies: deque[Reply] = deque()
        self.lock = threading.Lock()

    def set(self, *replies: Reply) -> None:
        with self.lock:
            self.replies = deque(replies)

    def __call__(self, request: RecordedRequest) -> Reply:
        if not _is_main(self.agent, request):
            return _side_reply(self.agent, request)
        with self.lock:
            if self.replies:
                return self.replies.popleft()
        return RawReply.json(500, {"error": {"type": "api_error", "message": "script ran out"}})


def one_round(
    agent: Agent, fake: FakeProvider, work: Path, steps: int, samples: Samples, show: bool
) -> None:
    script = Script(agent)
    fake.responder = script
    # one turn
    script.set(_text_reply(agent, "Hello there."))
    run = Run(agent, fake, work, "hello")
    wall = run.wait()
    main = run.main_requests()
    if not main:
        raise RuntimeError(f"no request offered the tool {agent.tool!r}: {_seen(fake, run)}")
    samples.first_ms.append((main[0].received_at - run.start) * 1000)
    samples.turn_s.append(wall)
    samples.turn_cpu.append(run.cpu)
    samples.first_kb.append(len(main[0].body) / 1000)
    samples.tools_offered = len(_tool_names(main[0]))
    others = run.other_requests()
    if show:
        _show(agent, fake, run)
    # the tool-call run
    script.set(*(_tool_reply(agent, n) for n in range(steps)), _text_reply(agent, "done"))
    run = Run(agent, fake, work, f"run `true` {steps} times, one call at a time")
    wall = run.wait()
    main = run.main_requests()
    results, errors, _ = _tool_results(agent, main[-1]) if main else (0, 0, "")
    if len(main) != steps + 1 or results != steps or errors:
        raise RuntimeError(
            f"tool run: {len(main)} main requests, {results} tool results ({errors} errors), "
            f"expected {steps + 1} and {steps}; {_seen(fake, run)}"
        )
    sent = {id(request): at for request, at in fake.answered}
    samples.gaps_ms += [
        (later.received_at - sent[id(earlier)]) * 1000 for earlier, later in pairwise(main)
    ]
    samples.tools_s.append(wall)
    samples.tools_cpu.append(run.cpu)
    samples.last_kb.append(len(main[-1].body) / 1000)
    samples.other_requests.append(others + run.other_requests())
    if show:
        _show(agent, fake, run)
    # peak RSS of one turn, sampled
    script.set(_text_reply(agent, "Hello there."))
    run = Run(agent, fake, work, "hello")
    run.wait(sample_rss=True)
    samples.rss_mb.append(run.peak / 2**20)


def _seen(fake: FakeProvider, run: Run) -> str:
    seen = [f"{r.method} {r.path} tools={_tool_names(r)[:12]}" for r in fake.requests[run.before :]]
    return "requests: " + ("; ".join(seen) or "none")


def _show(agent: Agent, fake: FakeProvider, run: Run) -> None:
    for request in fake.requests[run.before :]:
        kind = "main " if _is_main(agent, request) else "other"
        results, errors, last = _tool_results(agent, request)
        print(
            f"  [{agent.key}] {kind} {request.method} {request.path} {len(request.body)} B, "
            f"{len(_tool_names(request))} tools, {results} results ({errors} errors), "
            f"last {last[:160]!r}",
            file=sys.stderr,
        )


# --- the table --------------------------------------------------------------------------


def _median(values: list[float], fmt: str) -> str:
    return format(statistics.median(values), fmt) if values else "-"


ROWS: list[tuple[str, Callable[[Samples], str]]] = [
    ("start -> first model request, ms", lambda s: _median(s.first_ms, ",.0f")),
    ("one-turn headless run, s", lambda s: _median(s.turn_s, ".2f")),
    ("{steps} sequential `bash true` calls, s", lambda s: _median(s.tools_s, ".2f")),
    ("CPU (user + system) of one turn, s", lambda s: _median(s.turn_cpu, ".2f")),
    ("CPU of the {steps} calls, s", lambda s: _median(s.tools_cpu, ".2f")),
    ("median gap between model requests, ms", lambda s: _median(s.gaps_ms, ".1f")),
    ("peak RSS (process tree, one turn), MB", lambda s: _median(s.rss_mb, ".0f")),
    (
        "first request / after {steps} tools, KB",
        lambda s: f"{_median(s.first_kb, '.1f')} / {_median(s.last_kb, '.1f')}",
    ),
    ("tools offered", lambda s: str(s.tools_offered or "-")),
    (
        "other requests per turn + tool run",
        lambda s: _median([float(n) for n in s.other_requests], ".0f"),
    ),
]


def render(agents: list[Agent], results: dict[str, Samples], steps: int) -> str:
    head = ["measure", *(NAMES[a.key] for a in agents)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, cell in ROWS:
        values = [cell(results[a.key]) if not results[a.key].error else "failed" for a in agents]
        lines.append("| " + " | ".join([label.format(steps=steps), *values]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured rounds (after a warm-up)")
    parser.add_argument("--steps", type=int, default=20, help="`true` calls in the tool run")
    parser.add_argument(
        "--agents",
        default="",
        help="comma-separated keys (default: all; `before` only with --before)",
    )
    parser.add_argument("--frozen", default=str(ROOT / "dist" / "earshot" / "earshot"))
    parser.add_argument(
        "--before",
        default="",
        help="another earshot executable (an install of an older commit), a column of its own",
    )
    parser.add_argument(
        "--cache",
        default=str(
            Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "earshot-bench"
        ),
        help="where the peers are installed and the homes and work tree live (outside the repo)",
    )
    parser.add_argument(
        "--claude-model",
        default="",
        help="a --model for Claude Code (default: its own default model; its system prompt "
        "and tool texts differ per model)",
    )
    parser.add_argument("--show-requests", action="store_true", help="list each request seen")
    args = parser.parse_args(argv)
    cache = Path(args.cache).resolve()
    if cache.is_relative_to(ROOT):
        raise SystemExit(f"peers: --cache {cache} is inside the repository; pick another")
    before = Path(args.before) if args.before else None
    default = [k for k in NAMES if k != "before" or before is not None]
    wanted = [k.strip() for k in args.agents.split(",") if k.strip()] or default
    if any(k in wanted for k in ("codex", "codex-native", "pi", "claude")):
        install_peers(cache / "peers")
    work = make_work(cache)
    load = os.getloadavg()
    with FakeProvider() as fake:
        agents, notes = make_agents(
            wanted, cache, Path(args.frozen), fake.base_url, args.claude_model, before
        )
        results = {a.key: Samples() for a in agents}
        for n in range(args.runs + 1):
            order = agents[n % len(agents) :] + agents[: n % len(agents)]
            for agent in order:
                samples = results[agent.key]
                if samples.error:
                    continue
                scratch = Samples()
                try:
                    one_round(
                        agent,
                        fake,
                        work,
                        args.steps,
                        scratch if n == 0 else samples,
                        args.show_requests and n == 0,
                    )
                except (RuntimeError, OSError) as exc:
                    samples.error = str(exc)
                    print(f"peers: {NAMES[agent.key]} failed: {exc}", file=sys.stderr)
            print(f"peers: round {n}/{args.runs} done", file=sys.stderr)
    node = "absent"
    if shutil.which("node"):
        node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
    print(
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f} before and "
        f"{os.getloadavg()[0]:.1f} after; node {node.strip()}; {args.runs} interleaved rounds "
        "after a warm-up, medians; the fake provider on loopback answering at once"
    )
    for agent in agents:
        print(f"  {NAMES[agent.key]}: {' '.join(agent.argv[:1])} -> {agent.version}")
    print()
    print(render(agents, results, args.steps))
    for agent in agents:
        if results[agent.key].error:
            notes.append(f"{NAMES[agent.key]} failed: {results[agent.key].error}")
    for note in notes:
        print(f"note: {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
