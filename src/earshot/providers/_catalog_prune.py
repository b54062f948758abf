"""models.dev ``api.json`` -> earshot's catalog (``CatalogFile``, see ``_catalog_file``).

Shared by ``scripts/fetch_catalog.py`` (which builds the vendored snapshot) and
``catalog.refresh`` (which writes the live-refresh cache), so both produce the same bytes
for the same input. Only the refresh imports this module (it reads the registry, which may
itself import the catalog).

Pruning keeps:

- providers earshot supports (``PROVIDER_IDS`` maps models.dev ids to earshot ids, from the
  registry's ``catalog_id``s);
- chat models: text in, text out. Dropped: models whose outputs lack text (image, audio, video
  and speech generators), whose inputs lack text (transcription), embedding models (models.dev
  lists them with text output, so they are recognised by ``embed`` in the id or name), and
  image generators without tool calling (``gpt-image-*``, ``gemini-*-image``);
- only the fields ``ModelInfo`` carries: limits, prices, input modalities reduced to
  ``vision``/``pdf``, reasoning and its options, interleaved reasoning, tool calling,
  temperature, per-model routing overrides, status, release and knowledge dates.

A provider or model entry that does not decode (a shape models.dev may introduce later) is
skipped, not fatal; an unknown reasoning-option type is dropped from the model's options.
"""

from __future__ import annotations

import msgspec

from earshot.providers._catalog_file import CatalogFile, CatalogProvider
from earshot.providers.models import Cost, ModelInfo, ReasoningOption, WireShape
from earshot.providers.registry import PROVIDERS

#: models.dev provider id -> earshot provider id, for every provider the catalog keeps. Read
#: from the registry's rows (``ProviderSpec.catalog_id``), so a new provider is one row there.
PROVIDER_IDS: dict[str, str] = {
    spec.catalog_id: spec.id for spec in PROVIDERS if spec.catalog_id is not None
}


# --- models.dev's shape (only what earshot reads; everything optional) ---------------------


class _Modalities(msgspec.Struct):
    input: list[str] = []
    output: list[str] = []


class _Limit(msgspec.Struct):
    context: int = 0
    input: int | None = None
    output: int = 0


class _CostTier(msgspec.Struct):
    input: float = 0.0
    output: float = 0.0
    cache_read: float | None = None
    cache_write: float | None = None
    reasoning: float | None = None


class _Cost(_CostTier):
    context_over_200k: _CostTier | None = None


class _Interleaved(msgspec.Struct):
    field: str | None = None


class _ModelProvider(msgspec.Struct):
    npm: str | None = None
    api: str | None = None
    shape: WireShape | None = None


class _DevModel(msgspec.Struct):
    name: str = ""
    reasoning: bool = False
    tool_call: bool = False
    temperature: bool = True
    release_date: str | None = None
    knowledge: str | None = None
    status: str | None = None
    modalities: _Modalities = msgspec.field(default_factory=_Modalities)
    limit: _Limit = msgspec.field(default_factory=_Limit)
    cost: _Cost | None = None
    reasoning_options: list[msgspec.Raw] = []
    interleaved: bool | _Interleaved | None = None
    provider: _ModelProvider | None = None


class _DevProvider(msgspec.Struct):
    name: str = ""
    models: dict[str, msgspec.Raw] = {}


_ModelsDev = dict[str, msgspec.Raw]
_option_decoder = msgspec.json.Decoder(ReasoningOption)


# --- pruning -------------------------------------------------------------------------------


def prune(data: bytes) -> CatalogFile:
    """Prune a models.dev ``api.json`` document to earshot's catalog.

    Raises ``msgspec.DecodeError`` when ``data`` is not a JSON object. A provider entry or a
    model entry that does not decode is skipped.
    """
    document = msgspec.json.decode(data, type=_ModelsDev)
    providers: dict[str, CatalogProvider] = {}
    for dev_id, raw_provider in document.items():
        pid = PROVIDER_IDS.get(dev_id)
        if pid is None:
            continue
        try:
            dev = msgspec.json.decode(raw_provider, type=_DevProvider)
        except msgspec.DecodeError:
            continue
        models: list[ModelInfo] = []
        for model_id, raw_model in dev.models.items():
            try:
                model = msgspec.json.decode(raw_model, type=_DevModel)
            except msgspec.DecodeError:
                continue
            if _is_chat_model(model_id, model):
                models.append(_to_info(pid, model_id, model))
        if models:
            models.sort(key=lambda m: m.id)
            providers[pid] = CatalogProvider(name=dev.name or pid, models=models)
    return CatalogFile(providers=providers)


def _is_chat_model(model_id: str, model: _DevModel) -> bool:
    """Whether a models.dev model is a text chat model earshot can drive."""
    inputs, outputs = model.modalities.input, model.modalities.output
    if "text" not in outputs or "text" not in inputs:
        return False
    if "embed" in model_id.lower() or "embed" in model.name.lower():
        return False
    return not ("image" in outputs and not model.tool_call)


def _to_info(provider: str, model_id: str, model: _DevModel) -> ModelInfo:
    interleaved = model.interleaved
    override = model.provider
    return ModelInfo(
        id=model_id,
        provider=provider,
        name=model.name,
        context=model.limit.context,
        max_output=model.limit.output,
        max_input=model.limit.input,
        cost=_to_cost(model.cost),
        vision="image" in model.modalities.input,
        pdf="pdf" in model.modalities.input,
        reasoning=model.reasoning,
        tool_call=model.tool_call,
        temperature=model.temperature,
        reasoning_options=_options(model.reasoning_options),
        interleaved_field=interleaved.field if isinstance(interleaved, _Interleaved) else None,
        interleaved=interleaved is True or isinstance(interleaved, _Interleaved),
        shape=override.shape if override else None,
        npm=override.npm if override else None,
        api=override.api if override else None,
        status=model.status,
        release_date=model.release_date,
        knowledge=model.knowledge,
    )


def _to_cost(cost: _Cost | None) -> Cost | None:
    if cost is None:
        return None
    tier = cost.context_over_200k
    return Cost(
        input=cost.input,
        output=cost.output,
        cache_read=cost.cache_read,
        cache_write=cost.cache_write,
        reasoning=cost.reasoning,
        context_over_200k=None
        if tier is None
        else Cost(
            input=tier.input,
            output=tier.output,
            cache_read=tier.cache_read,
            cache_write=tier.cache_write,
            reasoning=tier.reasoning,
        ),
    )


def _options(raw: list[msgspec.Raw]) -> list[ReasoningOption]:
    options: list[ReasoningOption] = []
    for item in raw:
        try:
            options.append(_option_decoder.decode(item))
        except msgspec.DecodeError:
            continue
    return options


__all__ = ["PROVIDER_IDS", "prune"]
