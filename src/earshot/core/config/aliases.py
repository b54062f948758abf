"""Model aliases, and what a model reference without a provider means.

::

    ALIASES                 alias -> (provider, the family's model id pattern)
    alias_target(a, cat)    the newest catalog model of the family, as provider/model
    expand_ref(ref, cat)    ``ref`` as provider/model: an alias resolved; a bare model id
                            refused with the provider/model refs it exists under

An alias names a family, not a model: it resolves against the catalog in use (the vendored
snapshot, a refreshed cache, settings' overrides) to the family's newest model by release
date, leaving out dated snapshots (``claude-haiku-4-5-20251001``) and models the catalog
marks deprecated (unless nothing else matches). So ``sonnet`` follows the catalog, and the
resolved ``provider/model`` is what a session records and shows.
"""

from __future__ import annotations

import re

from earshot.providers.catalog import ModelCatalog, UnknownModelError
from earshot.providers.models import ModelInfo
from earshot.providers.registry import PROVIDERS

ALIASES: dict[str, tuple[str, str]] = {
    "sonnet": ("anthropic", r"claude-sonnet-\d+(-\d+)?"),
    "opus": ("anthropic", r"claude-opus-\d+(-\d+)?"),
    "haiku": ("anthropic", r"claude-haiku-\d+(-\d+)?"),
    "gpt": ("openai", r"gpt-\d+(\.\d+)?"),
    "gpt-mini": ("openai", r"gpt-\d+(\.\d+)?-mini"),
    "codex": ("openai", r"gpt-\d+(\.\d+)?-codex"),
    "gemini": ("google", r"gemini-\d+(\.\d+)?-pro(-preview)?"),
    "flash": ("google", r"gemini-\d+(\.\d+)?-flash(-preview)?"),
    "grok": ("xai", r"grok-\d+(\.\d+)?"),
    "deepseek": ("deepseek", r"deepseek-v\d+(\.\d+)?-pro"),
    "kimi": ("moonshot", r"kimi-k\d+(\.\d+)?"),
    "glm": ("zai", r"glm-\d+(\.\d+)?"),
}
"""alias -> (provider, a pattern the whole model id must match). docs/models.md lists them."""

_DATED = re.compile(r"-\d{8}$")
_NUMBER = re.compile(r"\d+")


def _newest_first(info: ModelInfo) -> tuple[bool, str, tuple[int, ...]]:
    deprecated = (info.status or "") == "deprecated"
    version = tuple(int(n) for n in _NUMBER.findall(info.id))
    return (not deprecated, info.release_date or "", version)


def alias_target(alias: str, catalog: ModelCatalog) -> str | None:
    """``provider/model`` for ``alias`` (any case), or None when it is not an alias or the
    catalog has no model of its family."""
    entry = ALIASES.get(alias.strip().lower())
    if entry is None:
        return None
    provider, pattern = entry
    family = [
        info
        for info in catalog.models(provider)
        if re.fullmatch(pattern, info.id) and not _DATED.search(info.id)
    ]
    if not family:
        return None
    return max(family, key=_newest_first).ref


def _homes(model: str, catalog: ModelCatalog) -> list[str]:
    """``provider/model`` refs with exactly this model id, the providers in registry order
    (a model's own vendor before the clouds and routers that resell it)."""
    order = {spec.id: index for index, spec in enumerate(PROVIDERS)}
    found = [p for p in catalog.providers() if catalog.get(p, model) is not None]
    return [f"{p}/{model}" for p in sorted(found, key=lambda p: order.get(p, len(order)))]


def expand_ref(ref: str, catalog: ModelCatalog) -> str:
    """``ref`` itself when it names a provider; the model an alias stands for; otherwise
    ``UnknownModelError``, suggesting the ``provider/model`` refs a bare model id exists
    under (or close ones) and the aliases."""
    ref = ref.strip()
    if "/" in ref:
        return ref
    target = alias_target(ref, catalog)
    if target is not None:
        return target
    suggestions = _homes(ref, catalog) or catalog.suggest(ref)
    aliases = f"Aliases: {', '.join(sorted(ALIASES))}."
    if suggestions:
        first, *more = suggestions[:3]
        also = f" (also {', '.join(more)})" if more else ""
        message = f"model {ref!r} needs its provider: did you mean {first}{also}? {aliases}"
    else:
        message = (
            f"model {ref!r} needs its provider, as provider/model (for example "
            f"anthropic/claude-sonnet-4-6). {aliases}"
        )
    raise UnknownModelError(ref, message, suggestions)


__all__ = ["ALIASES", "alias_target", "expand_ref"]
