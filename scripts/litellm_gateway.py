#!/usr/bin/env python3
"""earshot through a real LiteLLM proxy, on every path a user would configure. Not in CI.

::

    earshot -p ... --> LiteLLM proxy (127.0.0.1, its own venv) --> the fake provider (127.0.0.1)

The proxy comes from PyPI (``litellm[proxy]``), installed on first use into its own venv
(``--venv``, default ``/tmp/earshot-litellm/venv``); nothing else leaves the machine: every
model in the proxy's config points at the project's fake provider on loopback, which
answers in whichever wire the proxy calls it with (``RoutingFake``), and LiteLLM is told to
use its bundled price map.

Paths (one table row each)::

    openai-compatible   --model openai-compatible/gw-gpt, OPENAI_COMPATIBLE_BASE_URL
    openai responses    --model openai/gpt-5.4, OPENAI_BASE_URL
    openai chat         the same with settings providers.openai.wire = "openai-chat"
    anthropic messages  --model anthropic/claude-sonnet-4-6, ANTHROPIC_BASE_URL
    gemini              --model google/gemini-2.5-flash, GEMINI_BASE_URL

The ``openai-compatible`` row carries a ``models`` entry for ``gw-gpt`` (context, output
limit, prices), as docs/providers.md shows.

Columns: a plain answer; a five-step tool session (four ``read`` calls, then the answer, each
request's tool results paired as the wire requires); usage reported; cost from the catalog
or the ``models`` entry; whether an upstream 400 and a wrong key read as ``<provider>:
<message>``; what no key at all says (and how many times earshot asked); and, against an
upstream that answers 503, how many requests earshot sent the proxy and how many the proxy
sent upstream, with earshot's default retries and with ``EARSHOT_MAX_RETRIES=0`` (the proxy
retries ``--proxy-retries`` times on its own). ``--verbose`` prints every error message as
earshot showed it.

Usage (from the repository root)::

    .venv/bin/python scripts/litellm_gateway.py [--venv DIR] [--proxy-retries 2]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from earshot.providers.types import JSONValue  # noqa: E402
from tests.fake_provider import (  # noqa: E402
    FakeProvider,
    RawReply,
    RecordedRequest,
    Reply,
    SSEReply,
    ToolCallSpec,
    Wire,
    anthropic,
    assert_tool_results_paired,
    detect_wire,
    gemini,
    openai_chat,
    openai_responses,
)

MASTER_KEY = "sk-gateway-master-0123456789"
UPSTREAM_KEY = "sk-upstream-fake-0123456789"
STEPS = 5
ANSWER = "The notes say alpha and beta."
# The model-alias entry docs/providers.md shows for a gateway model the catalog lacks.
ALIAS: JSONValue = {
    "context": 400000,
    "max_output": 128000,
    "cost": {"input": 1.25, "output": 10, "cache_read": 0.125},
}


class RoutingFake(FakeProvider):
    """The fake provider answering every request in the wire it arrived on, by ``mode``:
    ``text`` a plain answer; ``tools`` a ``read`` call until ``STEPS - 1`` calls have been
    answered, then the answer; ``bad`` a 400; ``down`` a 503."""

    mode = "text"
    problems: list[str]

    def _take(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
        wire = detect_wire(request)
        if wire is None:
            return RawReply.json(404, {"error": {"message": f"no route {request.path}"}})
        answered = 0
        try:
            answered = assert_tool_results_paired(request, wire)
        except AssertionError as exc:
            self.problems.append(str(exc))
        fake = BUILDERS[wire]
        match self.mode:
            case "bad":
                return fake.error(400, "Invalid value for 'temperature': must be <= 2.")
            case "down":
                return fake.error(503, "The upstream is overloaded.")
            case "tools" if answered < STEPS - 1:
                call = ToolCallSpec(f"call_{answered + 1}", "read", {"path": "notes.txt"})
                return fake.tools([call])
            case _:
                return fake.text(ANSWER)


@dataclass(frozen=True)
class Builders:
    """One wire's reply builders from the fake provider."""

    text: Callable[[str], SSEReply]
    tools: Callable[[list[ToolCallSpec]], SSEReply]
    error: Callable[[int, str], RawReply]


BUILDERS: dict[Wire, Builders] = {
    "anthropic": Builders(anthropic.text_turn, anthropic.tool_calls_turn, anthropic.error_reply),
    "openai_chat": Builders(
        openai_chat.text_turn, openai_chat.tool_calls_turn, openai_chat.error_reply
    ),
    "openai_responses": Builders(
        openai_responses.text_turn,
        openai_responses.tool_calls_turn,
        openai_responses.error_reply,
    ),
    "gemini": Builders(gemini.text_turn, gemini.tool_calls_turn, gemini.error_reply),
}


@dataclass
class Path_:
    name: str
    model: str
    env: dict[str, str]
    key_var: str
    settings: dict[str, JSONValue] = field(default_factory=dict)


def proxy_config(upstream: str, retries: int) -> str:
    """The proxy's YAML (JSON is YAML): each model earshot asks for, routed to the fake."""
    names = ["gw-gpt", "gpt-5.4", "claude-sonnet-4-6", "gemini-2.5-flash"]
    config: JSONValue = {
        "model_list": [
            {
                "model_name": name,
                "litellm_params": {
                    "model": "openai/fake-model",
                    "api_base": f"{upstream}/v1",
                    "api_key": UPSTREAM_KEY,
                },
            }
            for name in names
        ],
        "litellm_settings": {"num_retries": retries, "request_timeout": 30},
        "general_settings": {"master_key": MASTER_KEY},
    }
    return json.dumps(config, indent=2)


def ensure_proxy(venv: Path) -> Path:
    exe = venv / "bin" / "litellm"
    if not exe.exists():
        print(f"installing litellm[proxy] into {venv} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "-q", "litellm[proxy]"]
        subprocess.run(pip, check=True)
    return exe


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_proxy(exe: Path, config: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # the bundled price map: no download
        "LITELLM_TELEMETRY": "False",
        "NO_PROXY": "127.0.0.1,localhost",
        "PYTHONUNBUFFERED": "1",  # the access log is read to count earshot's attempts
    }
    cmd = [str(exe), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(cmd, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    url = f"http://127.0.0.1:{port}/health/liveliness"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the proxy exited ({process.returncode}); see {log}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the proxy did not come up in 180 s; see {log}")


@dataclass
class Outcome:
    code: int
    result: dict[str, JSONValue]
    stderr: str


def run_earshot(
    path: Path_, work: Path, home: Path, *, key: str | None, extra: dict[str, str] | None = None
) -> Outcome:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_BASE_URL")) and not k.startswith("EARSHOT_")
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local/state"),
        **path.env,
        **(extra or {}),
    )
    if key is not None:
        env[path.key_var] = key
    settings = work / ".earshot" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps(path.settings))
    cmd = [sys.executable, "-m", "earshot", "--model", path.model, "-p", "Read notes.txt"]
    done = subprocess.run(
        [*cmd, "--output-format", "json"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    result: dict[str, JSONValue] = json.loads(lines[-1]) if lines else {}
    return Outcome(done.returncode, result, done.stderr.strip())


def gateway_hits(log: Path) -> int:
    """Requests the proxy has logged so far (uvicorn's access log: one line per request)."""
    return sum('"POST ' in line for line in log.read_text(errors="replace").splitlines())


def error_text(outcome: Outcome) -> str:
    error = outcome.result.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return outcome.stderr or "(no error)"


def shown_well(message: str, provider: str) -> bool:
    """``<provider>: <message>``, no JSON blob."""
    return message.startswith(f"{provider}: ") and "{" not in message


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/earshot-litellm/venv"))
    parser.add_argument("--proxy-retries", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print every error message")
    args = parser.parse_args()
    exe = ensure_proxy(args.venv)
    fake = RoutingFake()
    fake.problems = []
    tmp = Path(tempfile.mkdtemp(prefix="earshot-litellm-"))
    config = tmp / "config.yaml"
    config.write_text(proxy_config(fake.base_url, args.proxy_retries))
    port = free_port()
    log = tmp / "proxy.log"
    proxy = start_proxy(exe, config, port, log)
    gateway = f"http://127.0.0.1:{port}"
    paths = [
        Path_(
            "openai-compatible",
            "openai-compatible/gw-gpt",
            {"OPENAI_COMPATIBLE_BASE_URL": f"{gateway}/v1"},
            "OPENAI_COMPATIBLE_API_KEY",
            {"models": {"openai-compatible": {"gw-gpt": ALIAS}}},
        ),
        Path_(
            "OPENAI_BASE_URL responses",
            "openai/gpt-5.4",
            {"OPENAI_BASE_URL": f"{gateway}/v1"},
            "OPENAI_API_KEY",
        ),
        Path_(
            "OPENAI_BASE_URL chat",
            "openai/gpt-5.4",
            {"OPENAI_BASE_URL": f"{gateway}/v1"},
            "OPENAI_API_KEY",
            {"providers": {"openai": {"wire": "openai-chat"}}},
        ),
        Path_(
            "ANTHROPIC_BASE_URL messages",
            "anthropic/claude-sonnet-4-6",
            {"ANTHROPIC_BASE_URL": gateway},
            "ANTHROPIC_API_KEY",
        ),
        Path_(
            "GEMINI_BASE_URL",
            "google/gemini-2.5-flash",
            {"GEMINI_BASE_URL": gateway},
            "GEMINI_API_KEY",
        ),
    ]
    headers = [
        "PATH",
        "TEXT",
        f"TOOLS({STEPS})",
        "USAGE",
        "COST",
        "400 READS",
        "BAD KEY",
        "NO KEY",
        "503: TRIES -> UPSTREAM",
        "WITH EARSHOT_MAX_RETRIES=0",
    ]
    rows: list[list[str]] = []
    messages: list[str] = []
    try:
        for path in paths:
            work = tmp / path.name.replace(" ", "-")
            home = work / "home"
            home.mkdir(parents=True)
            subprocess.run(["git", "init", "-q"], cwd=work, check=True)
            (work / "notes.txt").write_text("alpha\nbeta\n")
            provider = path.model.split("/", 1)[0]

            fake.mode = "text"
            text = run_earshot(path, work, home, key=MASTER_KEY)
            text_ok = text.code == 0 and text.result.get("text") == ANSWER

            fake.mode = "tools"
            before = len(fake.requests)
            tools = run_earshot(path, work, home, key=MASTER_KEY)
            calls = len(fake.requests) - before
            tools_ok = tools.code == 0 and tools.result.get("text") == ANSWER and calls == STEPS
            usage = tools.result.get("usage")
            usage_ok = isinstance(usage, dict) and all(
                isinstance(usage.get(k), int) and int(str(usage.get(k))) > 0
                for k in ("input_tokens", "output_tokens")
            )
            cost = tools.result.get("total_cost_usd")
            cost_text = f"${cost:.4f}" if isinstance(cost, float | int) else "unknown"

            fake.mode = "bad"
            bad = run_earshot(path, work, home, key=MASTER_KEY)
            bad_message = error_text(bad)
            messages.append(f"{path.name} / upstream 400: {bad_message}")

            wrong = run_earshot(path, work, home, key="sk-wrong-key-0123456789")
            wrong_message = error_text(wrong)
            messages.append(f"{path.name} / wrong key: {wrong_message}")

            if provider == "openai-compatible":
                hits = gateway_hits(log)
                nokey = run_earshot(path, work, home, key=None)
                nokey_message = error_text(nokey)
                messages.append(f"{path.name} / no key: {nokey_message}")
                named = "names var" if path.key_var in nokey_message else "NO"
                nokey_cell = f"{named}, {gateway_hits(log) - hits} attempt(s)"
            else:
                nokey_cell = "n/a"

            fake.mode = "down"
            before, hits = len(fake.requests), gateway_hits(log)
            run_earshot(path, work, home, key=MASTER_KEY)
            default_tries = f"{gateway_hits(log) - hits} -> {len(fake.requests) - before}"
            before, hits = len(fake.requests), gateway_hits(log)
            down = run_earshot(path, work, home, key=MASTER_KEY, extra={"EARSHOT_MAX_RETRIES": "0"})
            zero_tries = f"{gateway_hits(log) - hits} -> {len(fake.requests) - before}"
            messages.append(f"{path.name} / upstream 503: {error_text(down)}")

            rows.append(
                [
                    path.name,
                    "ok" if text_ok else f"FAIL {text.code}",
                    "ok" if tools_ok else f"FAIL ({calls} calls)",
                    "ok" if usage_ok else "FAIL",
                    cost_text,
                    "ok" if shown_well(bad_message, provider) else "RAW",
                    "ok" if shown_well(wrong_message, provider) else "RAW",
                    nokey_cell,
                    default_tries,
                    zero_tries,
                ]
            )
    finally:
        proxy.terminate()
        try:
            proxy.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proxy.kill()
        fake.close()
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    for line in [headers, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    print()
    for problem in fake.problems:
        print(f"tool-result pairing problem: {problem}")
    for message in messages if args.verbose else messages[:0]:
        print(message)
    print(f"(proxy log: {log}; proxy retries per attempt: {args.proxy_retries})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
