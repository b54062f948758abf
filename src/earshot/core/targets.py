"""From ``provider/model`` to a ready ``Target``: registry + catalog + settings + keys.

Errors, each a complete message for a person:

- ``UnknownProviderError`` / ``UnknownModelError``: with the closest known names;
- ``ProviderError("auth")``: the key is missing; names the env var and ``earshot auth login``;
- ``CatalogError``: a malformed ``provider/model`` reference or a bad model override.

A provider whose models are whatever the user runs (Ollama, LM Studio, a generic
OpenAI-compatible server) accepts any model id; the catalog's facts apply when it has them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from earshot.core.settings import Settings
from earshot.providers.auth import AuthStore
from earshot.providers.catalog import ModelCatalog, parse_ref
from earshot.providers.registry import get_provider, resolve_target
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
    provider, model = parse_ref(ref)
    spec = get_provider(provider)
    info = catalog.get(provider, model)
    if info is None and not spec.open_models:
        catalog.lookup(ref)  # raises UnknownModelError with the closest matches
    environ = os.environ if env is None else env
    stored = (auth or AuthStore()).get(provider)
    return resolve_target(
        spec,
        model,
        info=info,
        stored_key=stored,
        settings=settings.provider(provider),
        env=environ,
    )


__all__ = ["load_catalog", "target_for"]
