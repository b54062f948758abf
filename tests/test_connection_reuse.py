"""Consecutive model requests reuse one connection: a finished answer's body is read to its
end, so the connection goes back to the pool instead of being closed (over TLS, a new one
costs a handshake before every step of a turn)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest

from earshot.providers import _preconnect
from earshot.providers.http import connect_early
from earshot.providers.stream import collect
from earshot.providers.target import WireName
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.test_stream_faults import FAST, WIRES, ask, target, text_reply
from tests.wire.streams import finish_of, texts


@pytest.mark.parametrize("wire", WIRES)
def test_three_answers_in_a_row_come_over_one_connection(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    for n in range(3):
        fake_provider.script(text_reply(wire, f"answer {n}"))

    async def go() -> list[str]:
        answers = []
        for _ in range(3):
            events = await collect(ask(), target(fake_provider, wire), retry=FAST)
            assert finish_of(events).reason != "aborted"
            answers.append(texts(events))
        return answers

    assert anyio.run(go) == ["answer 0", "answer 1", "answer 2"]
    assert fake_provider.connections == 1


def test_a_headless_turn_of_tool_calls_uses_one_connection(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(
        *(
            anthropic.tool_calls_turn([ToolCallSpec(f"c{n}", "ls", {"path": "."})])
            for n in range(3)
        ),
        anthropic.text_turn("listed"),
    )
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake_provider.base_url,
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "--model", "anthropic/claude-sonnet-4-6", "-p", "ls"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("listed\n")
    assert len(fake_provider.requests) == 4
    assert fake_provider.connections == 1


def _accepted(fake: FakeProvider, count: int) -> bool:
    """Whether the fake has accepted ``count`` connections (waiting up to 10 s for it)."""
    for _ in range(1000):
        if fake.connections >= count:
            return True
        time.sleep(0.01)
    return False


def test_the_connection_opened_early_carries_the_first_request(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(text_reply("anthropic-messages", "over the early connection"))
    connect_early(fake_provider.base_url)
    assert _accepted(fake_provider, 1)  # connected before any request or client exists

    async def go() -> str:
        events = await collect(ask(), target(fake_provider, "anthropic-messages"), retry=FAST)
        return texts(events)

    assert anyio.run(go) == "over the early connection"
    assert fake_provider.connections == 1


def test_nothing_is_opened_early_when_a_proxy_is_configured(
    fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    connect_early(fake_provider.base_url)
    url = urlsplit(fake_provider.base_url)
    early = _preconnect.pending(url.hostname or "", url.port or 80)
    assert early is not None
    assert _preconnect.wait_for(early, 10)
    assert _preconnect.take(early) is None
    assert fake_provider.connections == 0
