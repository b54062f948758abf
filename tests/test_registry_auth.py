"""Providers are data; targets take their URL and key from the right place; keys stay hidden."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from earshot._base.jsonfile import JSONFileError
from earshot.providers.auth import AuthStore, auth_path
from earshot.providers.errors import ProviderError
from earshot.providers.registry import (
    PROVIDERS,
    ProviderSettings,
    UnknownProviderError,
    get_provider,
    resolve_target,
)
from earshot.providers.target import Secret

REQUIRED = {
    "anthropic",
    "openai",
    "google",
    "google-vertex",
    "amazon-bedrock",
    "azure",
    "openrouter",
    "groq",
    "mistral",
    "xai",
    "deepseek",
    "together",
    "fireworks",
    "cerebras",
    "moonshot",
    "zai",
    "github-models",
    "ollama",
    "lmstudio",
    "openai-compatible",
}


def test_registry_has_every_promised_provider_once() -> None:
    ids = [spec.id for spec in PROVIDERS]
    assert len(ids) == len(set(ids))
    assert set(ids) >= REQUIRED
    assert len(ids) >= 19


def test_every_provider_names_its_wire_and_key_source() -> None:
    for spec in PROVIDERS:
        assert spec.wire
        assert spec.env or not spec.key_required, spec.id
        assert spec.base_url_vars[0] == spec.id.upper().replace("-", "_") + "_BASE_URL"


def test_base_url_from_env_beats_settings_beats_default() -> None:
    spec = get_provider("openai")
    settings = ProviderSettings(base_url="http://proxy.local/v1/")
    default = resolve_target(spec, "gpt-x", info=None, env={"OPENAI_API_KEY": "k"})
    assert default.base_url == "https://api.openai.com/v1"
    configured = resolve_target(
        spec, "gpt-x", info=None, settings=settings, env={"OPENAI_API_KEY": "k"}
    )
    assert configured.base_url == "http://proxy.local/v1"
    from_env = resolve_target(
        spec,
        "gpt-x",
        info=None,
        settings=settings,
        env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
    )
    assert from_env.base_url == "http://127.0.0.1:9/v1"


def test_gemini_honours_its_sdk_base_url_variable() -> None:
    target = resolve_target(
        get_provider("google"),
        "gemini-x",
        info=None,
        env={"GEMINI_API_KEY": "k", "GEMINI_BASE_URL": "http://127.0.0.1:5"},
    )
    assert target.base_url == "http://127.0.0.1:5"


def test_missing_key_names_the_env_var_and_the_login_command() -> None:
    with pytest.raises(ProviderError) as info:
        resolve_target(get_provider("anthropic"), "claude-x", info=None, env={})
    assert info.value.kind == "auth"
    assert "ANTHROPIC_API_KEY" in info.value.message
    assert "earshot auth login anthropic" in info.value.message


def test_env_key_wins_over_stored_key_and_local_servers_need_none() -> None:
    spec = get_provider("groq")
    target = resolve_target(
        spec, "m", info=None, stored_key="stored", env={"GROQ_API_KEY": "from-env"}
    )
    assert target.api_key == Secret("from-env")
    assert resolve_target(spec, "m", info=None, stored_key="stored", env={}).api_key == Secret(
        "stored"
    )
    local = resolve_target(get_provider("ollama"), "qwen3:8b", info=None, env={})
    assert local.api_key is None
    assert local.base_url == "http://localhost:11434/v1"


def test_generic_compatible_provider_requires_a_base_url() -> None:
    spec = get_provider("openai-compatible")
    with pytest.raises(ProviderError, match="OPENAI_COMPATIBLE_BASE_URL"):
        resolve_target(spec, "m", info=None, env={})
    target = resolve_target(
        spec, "m", info=None, settings=ProviderSettings(base_url="http://10.0.0.2:8000/v1"), env={}
    )
    assert target.wire == "openai-chat"


def test_unknown_provider_suggests_close_ids() -> None:
    with pytest.raises(UnknownProviderError) as info:
        get_provider("antropic")
    assert "anthropic" in info.value.suggestions
    assert "anthropic" in str(info.value)


def test_keys_never_appear_in_reprs() -> None:
    target = resolve_target(
        get_provider("xai"), "grok", info=None, env={"XAI_API_KEY": "xai-secret-value-123"}
    )
    assert "xai-secret-value-123" not in repr(target)
    assert "xai-secret-value-123" not in str(target.api_key)
    assert target.api_key is not None and target.api_key.reveal() == "xai-secret-value-123"


def test_auth_store_writes_a_private_file_and_round_trips() -> None:
    store = AuthStore()
    assert store.path == auth_path()
    assert store.get("anthropic") is None
    store.set("anthropic", "sk-ant-one")
    store.set("groq", "gsk-two")
    assert store.get("anthropic") == "sk-ant-one"
    assert store.providers() == ["anthropic", "groq"]
    if sys.platform != "win32":
        assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert store.remove("anthropic")
    assert not store.remove("anthropic")
    assert json.loads(store.path.read_text())["keys"] == {
        "groq": {"type": "api_key", "key": "gsk-two"}
    }


def test_malformed_auth_file_is_reported_with_position_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    original = b'{\n  "version": 1,\n  "keys": {"groq": {"key": "x"},}\n}\n'
    path.write_bytes(original)
    store = AuthStore(path)
    with pytest.raises(JSONFileError) as info:
        store.set("anthropic", "new")
    assert str(info.value).startswith(f"{path}:3:")
    assert path.read_bytes() == original
