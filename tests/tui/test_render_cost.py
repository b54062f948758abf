"""A long session costs no more to draw than a short one: bytes written and frames drawn
per streamed token at turn 300 stay within a small factor of turn 10 (the live region is
repainted, the scrollback never is). A count of bytes, not a timing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider
from tests.tui.terminal import MODEL, Terminal, TurnCost, earshot_env, scripted_turn

TURNS = 300
MEASURED = {10, TURNS}


@pytest.mark.timeout(600)
def test_render_cost_per_token_stays_flat_over_300_turns(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    costs: dict[int, TurnCost] = {}
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as term:
        term.wait_ready()
        for index in range(1, TURNS + 1):
            if index in MEASURED:
                costs[index] = scripted_turn(
                    term, fake_provider, index, tokens=40, delay=0.01, quiet=0.3
                )
            else:
                scripted_turn(term, fake_provider, index)
        assert term.exit() == 0
    early, late = costs[10], costs[TURNS]
    assert late.bytes_per_token <= 1.5 * early.bytes_per_token + 20, (early, late)
    assert late.frames_per_token <= 1.5 * early.frames_per_token + 0.25, (early, late)
    assert len(fake_provider.requests) == TURNS
