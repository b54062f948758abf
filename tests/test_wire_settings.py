"""Which API a provider is spoken to with: the ``wire`` settings, ``shape`` as their older
name, and how settings scopes combine them and the retry count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.core.config.settings import Settings, SettingsError, load_settings
from earshot.core.config.targets import load_catalog, target_for
from earshot.providers.models import ModelInfo
from earshot.providers.registry import ProviderSettings, get_provider, wire_for


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_a_model_wire_beats_its_shape_which_beats_the_provider_wire() -> None:
    openai = get_provider("openai")
    chat = ProviderSettings(wire="openai-chat")
    assert wire_for(openai, None) == "openai-responses"
    assert wire_for(openai, None, chat) == "openai-chat"
    shaped = ModelInfo(id="m", provider="openai", shape="responses")
    assert wire_for(openai, shaped, chat) == "openai-responses"
    both = ModelInfo(id="m", provider="openai", shape="responses", wire="anthropic-messages")
    assert wire_for(openai, both, chat) == "anthropic-messages"


def test_shape_only_chooses_between_the_two_openai_apis() -> None:
    azure = ModelInfo(id="d", provider="azure", shape="completions")
    assert wire_for(get_provider("azure"), azure) == "azure-openai"
    messages = ProviderSettings(wire="anthropic-messages")
    shaped = ModelInfo(id="m", provider="openai-compatible", shape="completions")
    assert wire_for(get_provider("openai-compatible"), shaped, messages) == "anthropic-messages"


def test_the_resolved_target_speaks_the_chosen_wire() -> None:
    settings = Settings(
        providers={"ollama": ProviderSettings(wire="openai-responses")},
        models={"groq": {"openai/gpt-oss-120b": {"wire": "openai-responses"}}},
    )
    catalog = load_catalog(settings)
    local = target_for("ollama/qwen3:8b", settings=settings, catalog=catalog, env={})
    assert local.wire == "openai-responses"
    groq = target_for(
        "groq/openai/gpt-oss-120b", settings=settings, catalog=catalog, env={"GROQ_API_KEY": "k"}
    )
    assert groq.wire == "openai-responses"
    assert groq.info is not None and groq.info.context > 0  # the catalog's facts are kept


def test_a_later_scope_overrides_the_wire_and_the_retry_count(
    tmp_path: Path, hermetic_env: Path
) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    _write(
        hermetic_env / ".config/earshot/settings.json",
        {"maxRetries": 5, "providers": {"openai": {"wire": "openai-chat", "base_url": "u"}}},
    )
    _write(project / ".earshot/settings.local.json", {"maxRetries": 0})
    settings = load_settings(project, env={})
    openai = settings.provider("openai")
    assert openai is not None
    assert (openai.wire, openai.base_url) == ("openai-chat", "u")
    assert settings.max_retries == 0
    _write(
        project / ".earshot/settings.json",
        {"providers": {"openai": {"wire": "openai-responses"}}},
    )
    assert load_settings(project, env={"EARSHOT_MAX_RETRIES": "4"}).max_retries == 4
    relaxed = load_settings(project, env={}).provider("openai")
    assert relaxed is not None and relaxed.wire == "openai-responses"


def test_without_a_setting_the_policy_default_applies(tmp_path: Path) -> None:
    assert load_settings(tmp_path, env={}).max_retries is None


def test_a_bad_wire_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / ".earshot" / "settings.json"
    _write(path, {"providers": {"ollama": {"wire": "openai"}}})
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path, env={})
    assert str(info.value) == (
        f'{path}: "providers.ollama.wire": must be one of anthropic-messages, openai-chat, '
        "openai-responses, google-gemini, google-vertex, amazon-bedrock, azure-openai"
    )
