#!/usr/bin/env python3
"""What each effort level costs on the fake provider's scripted reasoning.

Runs ``earshot -p PROMPT --effort LEVEL --output-format json`` for every level on one model
of each wire, against the fake provider's thinking model (``tests/fake_provider/thinking.py``:
it reasons as many tokens as the request's effort asks), and prints a table of what was sent,
the reasoning and output tokens earshot counted, and the USD it priced them at with the
catalog's prices. Not a timing: the numbers are the fake's, the pipeline is earshot's.

Usage (from the repository root):

    .venv/bin/python scripts/bench/effort_tokens.py [--models anthropic/claude-sonnet-4-6 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider  # noqa: E402
from tests.fake_provider.thinking import thinking_turn  # noqa: E402

LEVELS = ("off", "low", "medium", "high", "max")
MODELS = (
    "anthropic/claude-sonnet-4-6",
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-5.4",
    "openai/o3",
    "google/gemini-3.1-pro-preview",
    "google/gemini-2.5-flash",
    "groq/openai/gpt-oss-120b",
)
ENV = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "google": ("GEMINI_API_KEY", "GEMINI_BASE_URL"),
    "groq": ("GROQ_API_KEY", "GROQ_BASE_URL"),
}


def measure(fake: FakeProvider, home: Path, model: str, level: str) -> dict[str, object]:
    key, base = ENV[model.partition("/")[0]]
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        key: "bench-key",
        base: fake.base_url,
    }
    fake.script(thinking_turn())
    cmd = [sys.executable, "-m", "earshot", "-p", "Think.", "--model", model]
    cmd += ["--effort", level, "--output-format", "stream-json"]
    done = subprocess.run(cmd, cwd=home, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr}")
    records = [json.loads(line) for line in done.stdout.splitlines()]
    init = next(r for r in records if r["type"] == "init")
    result = records[-1]
    return {
        "sent": init["effort"]["sent"] or "nothing",
        **result["usage"],
        "cost": result["total_cost_usd"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    print("| model | level | sent | reasoning tokens | output tokens | USD |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        home = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=home, check=True)
        for model in args.models:
            for level in LEVELS:
                row = measure(fake, home, model, level)
                print(
                    f"| {model} | {level} | {row['sent']} | {row['reasoning_tokens']} "
                    f"| {row['output_tokens']} | {row['cost']:.6f} |"
                )


if __name__ == "__main__":
    main()
