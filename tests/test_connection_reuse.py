"""Consecutive model requests reuse one connection: a finished answer's body is read to its
end, so the connection goes back to the pool instead of being closed (over TLS, a new one
costs a handshake before every step of a turn)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from earshot.providers.http import new_client
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
        async with new_client() as client:
            answers = []
            for _ in range(3):
                events = await collect(
                    ask(), target(fake_provider, wire), client=client, retry=FAST
                )
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
