"""From ``provider/model`` to a ready ``Target``: registry + catalog + settings + keys.

Errors, each a complete message for a person:

- ``UnknownProviderError`` / ``UnknownModelError``: with the closest known names;
- ``ProviderError("auth")``: the key is missing; names the env var and ``earshot auth login``;
- ``CatalogError``: a malformed ``provider/model`` reference or a bad model override.

A reference without a provider is an alias (``sonnet``: ``config.aliases``) or refused with
the ``provider/model`` refs that model id exists under.

A provider whose models are whatever the user runs (Ollama, LM Studio, a generic
OpenAI-compatible server) accepts any model id; the catalog's facts apply when it has them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from earshot._base.errors import UserError
from earshot.core.config.aliases import expand_ref
from earshot.core.config.settings import Settings
from earshot.providers.auth import AuthStore
from earshot.providers.catalog import ModelCatalog, parse_ref
from earshot.providers.registry import PROVIDERS, get_provider, key_from_env, resolve_target
from earshot.providers.target import Target
from earshot.providers.types import JSONValue


def load_catalog(settings: Settings) -> ModelCatalog:
    overrides: dict[str, JSONValue] = {
        provider: {model: dict(fields) for model, fields in models.items()}
        for provider, models in settings.models.items()
    }
    return ModelCatalog.load(overrides or None)


def target_for(
    ref: str,
    *,
    settings: Settings,
    catalog: ModelCatalog,
    auth: AuthStore | None = None,
    env: Mapping[str, str] | None = None,
) -> Target:
    ref = expand_ref(ref, catalog)
    provider, model = parse_ref(ref)
    spec = get_provider(provider)
    provider_settings = settings.provider(provider)
    # An Azure deployment is named by its owner; settings map it to the catalog model.
    catalog_model = provider_settings.deployments.get(model, model) if provider_settings else model
    info = catalog.get(provider, catalog_model)
    if info is None and not spec.open_models:
        catalog.lookup(ref)  # raises UnknownModelError with the closest matches
    environ = os.environ if env is None else env
    stored = (auth or AuthStore()).get(provider)
    return resolve_target(
        spec,
        model,
        info=info,
        stored_key=stored,
        settings=provider_settings,
        env=environ,
        wire_setting=_model_wire(settings, provider, model),
    )


def _model_wire(settings: Settings, provider: str, model: str) -> str | None:
    """``models.<provider>.<model>.wire`` from settings (or its older alias ``shape``), when
    set: an Azure deployment's API is chosen by its own name, not its catalog model's."""
    fields = settings.models.get(provider, {}).get(model, {})
    value = fields.get("wire")
    if isinstance(value, str):
        return value
    shape = fields.get("shape")
    return {"completions": "openai-chat", "responses": "openai-responses"}.get(str(shape))


# The model earshot picks for a provider when the user named none: a strong, current
# coding model the provider serves. Checked against the catalog by a test.
DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.4",
    "google": "gemini-3.1-pro-preview",
    "openrouter": "anthropic/claude-sonnet-5",
    "groq": "openai/gpt-oss-120b",
    "mistral": "mistral-medium-latest",
    "xai": "grok-4.3",
    "deepseek": "deepseek-v4-pro",
    "together": "zai-org/GLM-5.2",
    "fireworks": "accounts/fireworks/models/glm-5p2",
    "cerebras": "gpt-oss-120b",
    "moonshot": "kimi-k2.6",
    "zai": "glm-5.2",
    "github-models": "openai/gpt-4.1",
}


class NoModelError(UserError):
    """No model was named and no provider has a key to pick a default from."""


def default_model_ref(
    settings: Settings,
    *,
    auth: AuthStore | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """The model to use when ``--model`` was not given: ``EARSHOT_MODEL``, then settings'
    ``model``, then the default model of the first provider (registry order) with a key."""
    environ = os.environ if env is None else env
    named = environ.get("EARSHOT_MODEL", "").strip()
    if named:
        return named
    if settings.model:
        return settings.model
    stored = set((auth or AuthStore()).providers())
    for spec in PROVIDERS:
        if spec.id in DEFAULT_MODELS and (key_from_env(spec, environ) or spec.id in stored):
            return f"{spec.id}/{DEFAULT_MODELS[spec.id]}"
    raise NoModelError(
        "no model chosen and no provider key found: set a key such as ANTHROPIC_API_KEY "
        "(or run `earshot auth login PROVIDER`), or pass --model provider/model"
    )


MAX_CATALOG_MODELS = 40


def model_choices(current: str, settings: Settings, catalog: ModelCatalog) -> list[str]:
    """Models to offer: ``current``, the settings' one, the default model of each provider
    with a key, then the current provider's catalog models."""
    refs = [current]
    if settings.model:
        refs.append(settings.model)
    stored = set(AuthStore().providers())
    for spec in PROVIDERS:
        if spec.id in DEFAULT_MODELS and (key_from_env(spec, os.environ) or spec.id in stored):
            refs.append(f"{spec.id}/{DEFAULT_MODELS[spec.id]}")
    provider, _ = parse_ref(current)
    models = sorted(catalog.models(provider), key=lambda info: info.id)
    refs += [f"{provider}/{info.id}" for info in models[:MAX_CATALOG_MODELS]]
    return list(dict.fromkeys(refs))


__all__ = [
    "DEFAULT_MODELS",
    "MAX_CATALOG_MODELS",
    "NoModelError",
    "default_model_ref",
    "load_catalog",
    "model_choices",
    "target_for",
]
