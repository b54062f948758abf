#!/usr/bin/env python3
"""One-turn `earshot -p` wall time with and without a cloud model, against loopback fakes.

Times, interleaved, each as a median over --runs runs beside `python -c pass`:

- anthropic   an API-key model (the baseline: no cloud code is loaded)
- bedrock     Amazon Bedrock with keys in the environment (SigV4 per request)
- vertex      Vertex AI Gemini with a service-account file (RS256 JWT, token exchange)
- azure       Azure OpenAI with an api-key and endpoint

Every fake answers instantly; the difference to the baseline is what the cloud path costs
at start-up (importing its modules, resolving credentials, signing).

Usage (from the repository root):

    .venv/bin/python scripts/bench/cloud_startup.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fake_cloud.aws import FakeAws, text_reply  # noqa: E402
from tests.fake_cloud.azure import API_KEY, FakeAzure  # noqa: E402
from tests.fake_cloud.google import FakeGoogle  # noqa: E402
from tests.fake_provider import FakeProvider, anthropic, gemini, openai_chat  # noqa: E402


def _wall(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr}")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    earshot = str(Path(sys.executable).with_name("earshot"))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        work.mkdir()
        home = Path(tmp) / "home"
        home.mkdir()
        base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GOOGLE_"))}
        base.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
        base["XDG_DATA_HOME"] = str(home / ".data")
        base["AWS_EC2_METADATA_DISABLED"] = "true"
        fake = FakeProvider()
        aws, google, azure = FakeAws(), FakeGoogle(), FakeAzure()
        aws.extra_keys["AKIDBENCH"] = "bench/secret"
        key_file = google.service_account_file(Path(tmp) / "sa.json", project="bench")
        cases: dict[str, tuple[str, dict[str, str]]] = {
            "anthropic": (
                "anthropic/claude-sonnet-4-6",
                {
                    "ANTHROPIC_API_KEY": "sk-ant-bench-0123456789",
                    "ANTHROPIC_BASE_URL": fake.base_url,
                },
            ),
            "bedrock": (
                "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                {
                    "AWS_ACCESS_KEY_ID": "AKIDBENCH",
                    "AWS_SECRET_ACCESS_KEY": "bench/secret",
                    "AMAZON_BEDROCK_BASE_URL": aws.base_url,
                },
            ),
            "vertex": (
                "google-vertex/gemini-2.5-pro",
                {
                    "GOOGLE_APPLICATION_CREDENTIALS": str(key_file),
                    "GOOGLE_VERTEX_BASE_URL": google.base_url,
                },
            ),
            "azure": (
                "azure/my-4o",
                {"AZURE_OPENAI_API_KEY": API_KEY, "AZURE_OPENAI_ENDPOINT": azure.base_url},
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in ["python -c pass", *cases]}
        try:
            for _ in range(args.runs):
                times["python -c pass"].append(_wall([sys.executable, "-c", "pass"], work, base))
                for name, (model, extra) in cases.items():
                    fake.script(anthropic.text_turn("ok"))
                    aws.streams.append(text_reply("ok"))
                    google.replies.append(gemini.text_turn("ok"))
                    azure.replies.append(openai_chat.text_turn("ok"))
                    cmd = [earshot, "--model", model, "-p", "hi"]
                    times[name].append(_wall(cmd, work, {**base, **extra}))
        finally:
            fake.close()
            aws.close()
            google.close()
            azure.close()
    baseline = statistics.median(times["anthropic"])
    for name, values in times.items():
        median = statistics.median(values)
        ratio = f"  x{median / baseline:.2f} of anthropic" if name in cases else ""
        print(f"{name:<16} median {median * 1000:7.1f} ms{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
