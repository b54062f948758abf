"""Fixtures for sessions built through AgentSession.open against the fake provider."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider


@pytest.fixture
def repo_env(tmp_path: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git work tree whose sessions talk to the fake provider as Anthropic."""
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_provider.base_url)
    return work
