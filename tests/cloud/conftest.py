"""Fixtures for the cloud tests: each cloud's fake server, and clean credential caches."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from earshot.providers.cloud import aws, google
from tests.fake_cloud.aws import FakeAws
from tests.fake_cloud.azure import FakeAzure
from tests.fake_cloud.google import FakeGoogle


@pytest.fixture(autouse=True)
def _fresh_credential_caches() -> Iterator[None]:
    aws.clear_cache()
    google.clear_cache()
    yield
    aws.clear_cache()
    google.clear_cache()


@pytest.fixture
def fake_aws() -> Iterator[FakeAws]:
    fake = FakeAws()
    try:
        yield fake
    finally:
        fake.close()


@pytest.fixture
def fake_google() -> Iterator[FakeGoogle]:
    fake = FakeGoogle()
    try:
        yield fake
    finally:
        fake.close()


@pytest.fixture
def fake_azure() -> Iterator[FakeAzure]:
    fake = FakeAzure()
    try:
        yield fake
    finally:
        fake.close()
