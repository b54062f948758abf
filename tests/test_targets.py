"""Choosing and resolving the model a session talks to."""

from __future__ import annotations

import pytest

from earshot.core.config.settings import Settings
from earshot.core.config.targets import (
    DEFAULT_MODELS,
    NoModelError,
    default_model_ref,
    load_catalog,
    target_for,
)
from earshot.providers.auth import AuthStore
from earshot.providers.catalog import UnknownModelError
from earshot.providers.errors import ProviderError


def test_every_default_model_is_in_the_catalog_and_calls_tools() -> None:
    catalog = load_catalog(Settings())
    for provider, model in DEFAULT_MODELS.items():
        info = catalog.get(provider, model)
        assert info is not None, f"{provider}/{model}"
        assert info.tool_call, f"{provider}/{model}"


def test_default_model_order_env_then_settings_then_first_keyed_provider() -> None:
    assert default_model_ref(Settings(), env={"EARSHOT_MODEL": "groq/x"}) == "groq/x"
    assert default_model_ref(Settings(model="openai/gpt-5.4"), env={}) == "openai/gpt-5.4"
    picked = default_model_ref(Settings(), env={"GEMINI_API_KEY": "k", "XAI_API_KEY": "k"})
    assert picked == f"google/{DEFAULT_MODELS['google']}"


def test_stored_keys_count_when_choosing_a_default() -> None:
    AuthStore().set("deepseek", "k")
    assert default_model_ref(Settings(), env={}) == f"deepseek/{DEFAULT_MODELS['deepseek']}"


def test_no_model_and_no_key_says_how_to_fix_it() -> None:
    with pytest.raises(NoModelError, match="ANTHROPIC_API_KEY"):
        default_model_ref(Settings(), env={})


def test_target_for_resolves_catalog_models_and_open_providers() -> None:
    settings = Settings()
    catalog = load_catalog(settings)
    target = target_for(
        "anthropic/claude-sonnet-4-6",
        settings=settings,
        catalog=catalog,
        env={"ANTHROPIC_API_KEY": "k"},
    )
    assert target.info is not None
    assert target.wire == "anthropic-messages"
    local = target_for("ollama/my-finetune:7b", settings=settings, catalog=catalog, env={})
    assert local.info is None
    assert local.model == "my-finetune:7b"


def test_target_for_rejects_typos_and_missing_keys() -> None:
    settings = Settings()
    catalog = load_catalog(settings)
    with pytest.raises(UnknownModelError) as info:
        target_for("anthropic/claude-sonet-4-6", settings=settings, catalog=catalog, env={})
    assert "anthropic/claude-sonnet-4-6" in info.value.suggestions
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        target_for("anthropic/claude-sonnet-4-6", settings=settings, catalog=catalog, env={})
