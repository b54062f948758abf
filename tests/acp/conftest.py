"""Fixtures for driving a real ``earshot acp`` process: a git repo to work in, and the
server's stderr log (printed when a test fails)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "notes.txt").write_text("alpha\nbeta\n")
    return work.resolve()


@pytest.fixture
def log(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "earshot-acp.log"
    yield path
    if path.exists():
        print(path.read_text(errors="replace"))
