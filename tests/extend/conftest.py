"""What the extension tests share: a git repository holding ``notes.txt`` and a user's home,
both in the test's temp dir, and a helper that writes an extension's file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "notes.txt").write_text("alpha\nbeta\n")
    return work


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    place = tmp_path / "home"
    (place / ".config").mkdir(parents=True, exist_ok=True)
    return {"HOME": str(place), "XDG_CONFIG_HOME": str(place / ".config")}


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, making its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def tool_names(fake: FakeProvider, index: int) -> list[str]:
    """The tools request ``index`` offered the model, in its order."""
    tools = fake.requests[index].json()["tools"]
    assert isinstance(tools, list)
    return [str(t["name"]) for t in tools if isinstance(t, dict)]
