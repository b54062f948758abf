"""Hermetic test environment: no provider keys, no proxies, HOME and XDG dirs in a temp dir.

Code under test never mutates ``os.environ``; tests change it only through ``monkeypatch``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest_plugins = ["tests.fake_provider.plugin"]
# Real bubblewrap runs on Linux only; elsewhere the sandbox is tested as data.
collect_ignore = [] if sys.platform.startswith("linux") else ["test_sandbox_cli.py"]

_CLEARED_SUFFIXES = ("_API_KEY", "_BASE_URL", "_AUTH_TOKEN", "_API_TOKEN")
_CLEARED = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "GITHUB_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "EARSHOT_MODEL",
)
# Cloud SDK variables (credentials, profiles, regions, endpoints) are cleared by prefix.
_CLEARED_PREFIXES = ("EARSHOT_", "AWS_", "GOOGLE_", "GCE_", "CLOUDSDK_", "AZURE_", "OPENAI_")
# Variables that steer the test harness itself, not earshot.
_KEPT = ("EARSHOT_REFERENCE_DIR", "EARSHOT_UPDATE_SNAPSHOTS")


@pytest.fixture(autouse=True)
def hermetic_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name in _KEPT:
            continue
        if (
            name.endswith(_CLEARED_SUFFIXES)
            or name in _CLEARED
            or name.startswith(_CLEARED_PREFIXES)
        ):
            monkeypatch.delenv(name, raising=False)
    # No test may reach a real metadata server: AWS's is switched off, Google's points at a
    # closed loopback port (tests that want one point these at a fake).
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        path = home / sub
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(path))
    return home
