"""Fixtures for the session and undo tests: a store under the test's temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.session import SessionStore


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(project: Path, data: Path) -> SessionStore:
    return SessionStore(project, data)
