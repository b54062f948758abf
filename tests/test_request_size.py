"""What the first request of a session costs: its body carries the system prompt and the
built-in tools' definitions, and every request of the session resends them, so their size
is paid on every call. `earshot -p` in an empty directory keeps that first body within
10 KB on every wire."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.fake_provider import FakeProvider, anthropic, gemini, openai_chat, openai_responses

BUDGET = 10_000
"""Bytes of the whole HTTP body of the first request."""

WIRES: dict[str, tuple[str, str, ModuleType]] = {
    "anthropic-messages": ("anthropic/claude-sonnet-4-6", "ANTHROPIC", anthropic),
    "openai-responses": ("openai/gpt-5.4", "OPENAI", openai_responses),
    "openai-chat": ("xai/grok-4.3", "XAI", openai_chat),
    "google-gemini": ("google/gemini-3.5-flash", "GEMINI", gemini),
}


@pytest.mark.parametrize("wire", list(WIRES))
def test_the_first_request_with_the_built_in_tools_stays_within_10_kb(
    fake_provider: FakeProvider, tmp_path: Path, wire: str
) -> None:
    model, prefix, replies = WIRES[wire]
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "home"
    fake_provider.script(replies.text_turn("hi"))
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "--model", model, "-p", "hello"],
        capture_output=True,
        text=True,
        cwd=work,
        env={
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            f"{prefix}_API_KEY": "test-key-0123456789",
            f"{prefix}_BASE_URL": fake_provider.base_url,
        },
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    body = fake_provider.requests[0].body
    assert b'"bash"' in body and b'"task"' in body  # the built-in tools were offered
    assert len(body) <= BUDGET, f"{wire}: first request is {len(body):,} bytes"
