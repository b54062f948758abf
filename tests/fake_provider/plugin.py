"""Pytest plugin: the ``fake_provider`` fixture, a started ``FakeProvider`` closed after the
test. Loaded from ``tests/conftest.py`` via ``pytest_plugins``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_provider._server import FakeProvider


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider
