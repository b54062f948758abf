"""What a session sends stays cacheable: the prefix every provider caches (tool definitions,
then the system prompt) is the same bytes in every request of a session, even as the
working tree changes under it, and the conversation only grows at the end. A prefix that
moved would make every request pay the full input price again."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic

MODEL = "anthropic/claude-sonnet-4-6"


def _value_bytes(body: bytes, key: str) -> bytes:
    """The raw bytes of one top-level member's value, as sent (not re-encoded)."""
    decoder = json.JSONDecoder()
    text = body.decode()
    start = text.index(f'"{key}":') + len(key) + 3
    while text[start] in " \t\n":
        start += 1
    _, end = decoder.raw_decode(text, start)
    return text[start:end].encode()


def _uncached(value: object) -> object:
    """``value`` without Anthropic's ``cache_control`` markers, which move to the newest
    messages on each call and are not part of the cached content."""
    if isinstance(value, dict):
        return {k: _uncached(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_uncached(v) for v in value]
    return value


def test_the_cached_prefix_is_identical_across_a_sessions_requests(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    calls = [
        ToolCallSpec("c1", "bash", {"command": "echo one > a.txt"}),
        ToolCallSpec("c2", "write", {"path": "b.txt", "content": "two\n"}),
        ToolCallSpec("c3", "bash", {"command": "git add -A && mkdir -p sub && echo 3 > sub/c"}),
    ]
    fake_provider.script(
        *(anthropic.tool_calls_turn([call]) for call in calls), anthropic.text_turn("done")
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "earshot",
            "--model",
            MODEL,
            "-p",
            "go",
            "--permission-mode",
            "yolo",
        ],
        capture_output=True,
        text=True,
        cwd=repo,
        env={
            **os.environ,
            "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
            "ANTHROPIC_BASE_URL": fake_provider.base_url,
        },
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (repo / "sub" / "c").exists()
    bodies = [r.body for r in fake_provider.requests]
    assert len(bodies) == 4
    for key in ("tools", "system"):
        first = _value_bytes(bodies[0], key)
        assert all(_value_bytes(body, key) == first for body in bodies[1:]), key
    histories = [_uncached(json.loads(body)["messages"]) for body in bodies]
    for before, after in itertools.pairwise(histories):
        assert isinstance(before, list)
        assert isinstance(after, list)
        assert after[: len(before)] == before
