"""``ModelCatalog``: what earshot knows about each model, merged from three layers.

::

    vendored snapshot   earshot/providers/data/catalog.json, built by scripts/fetch_catalog.py
      < live refresh    $XDG_CACHE_HOME/earshot/catalog.json, written by ``refresh``; each of
                        its models replaces the snapshot's record whole; missing, unreadable
                        or corrupt means ignored (noted in ``ModelCatalog.warnings``)
      < overrides       settings: provider -> model id -> partial ``ModelInfo`` fields, merged
                        field by field (``cost`` key by key); an override for a model or
                        provider the catalog lacks creates it

Loading never touches the network; ``refresh`` is the only function that does, and it is
called by whoever schedules it, never at load time. This module imports neither httpx nor the
pruning code (which reads the provider registry) until ``refresh`` runs.

Errors::

    CatalogError            bad override, malformed ``provider/model`` reference, failed refresh
      UnknownModelError     ``lookup`` of a model the catalog lacks; carries ``suggestions``
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from earshot._base.errors import UserError
from earshot.providers._catalog_file import (
    FORMAT_VERSION,
    CatalogFile,
    CatalogProvider,
    decode_catalog,
    encode_catalog,
)
from earshot.providers.models import Cost, ModelInfo
from earshot.providers.types import JSONValue

if TYPE_CHECKING:
    import httpx

MODELS_DEV_URL = "https://models.dev/api.json"


class CatalogError(UserError):
    """A catalog problem the user can fix; the message names what and where."""


class UnknownModelError(CatalogError):
    """``lookup`` found no such model. ``suggestions`` are close ``provider/model`` refs."""

    def __init__(self, ref: str, message: str, suggestions: list[str]) -> None:
        super().__init__(message)
        self.ref = ref
        self.suggestions = suggestions


def parse_ref(ref: str) -> tuple[str, str]:
    """Split ``provider/model`` at the first slash (model ids may contain slashes:
    ``openrouter/anthropic/claude-sonnet-4.5``). Raises ``CatalogError`` when either part is
    missing."""
    provider, sep, model = ref.partition("/")
    if not sep or not provider or not model:
        raise CatalogError(
            f"model reference {ref!r} must be provider/model, "
            "for example anthropic/claude-sonnet-4-5"
        )
    return provider, model


def default_cache_path() -> Path:
    """Where ``refresh`` writes and ``ModelCatalog.load`` reads the live catalog:
    ``$XDG_CACHE_HOME/earshot/catalog.json``, else ``~/.cache/earshot/catalog.json``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "earshot" / "catalog.json"


class ModelCatalog:
    """An immutable view of the merged catalog. Build one with ``load``."""

    def __init__(
        self,
        models: Iterable[ModelInfo],
        *,
        provider_names: Mapping[str, str] | None = None,
        warnings: Iterable[str] = (),
    ) -> None:
        self._by_provider: dict[str, dict[str, ModelInfo]] = {}
        for info in models:
            self._by_provider.setdefault(info.provider, {})[info.id] = info
        self._by_name = dict(provider_names or {})
        self._undecoded: dict[str, msgspec.Raw] = {}
        """Providers of the snapshot not decoded yet (see ``_of_snapshot``)."""
        self.warnings: tuple[str, ...] = tuple(warnings)
        """Why a layer was skipped (a corrupt cache, say); empty when all went well."""

    @classmethod
    def _of_snapshot(cls, warnings: Iterable[str]) -> ModelCatalog:
        """The snapshot alone, each provider decoded when first asked for: a session looks
        up one model, and decoding all of them took a few ms of every start."""
        catalog = cls((), warnings=warnings)
        catalog._undecoded = dict(_snapshot_providers())
        return catalog

    def _decode(self, provider: str) -> None:
        raw = self._undecoded.pop(provider, None)
        if raw is not None:
            decoded = msgspec.json.decode(raw, type=CatalogProvider)
            self._by_name[provider] = decoded.name
            for info in decoded.models:
                self._by_provider.setdefault(info.provider, {})[info.id] = info

    @property
    def _models(self) -> dict[str, dict[str, ModelInfo]]:
        for provider in list(self._undecoded):
            self._decode(provider)
        return self._by_provider

    @property
    def _names(self) -> dict[str, str]:
        for provider in list(self._undecoded):
            self._decode(provider)
        return self._by_name

    @classmethod
    def load(
        cls,
        overrides: Mapping[str, JSONValue] | None = None,
        *,
        cache_path: Path | None = None,
        use_cache: bool = True,
    ) -> ModelCatalog:
        """Snapshot, then the refresh cache (``cache_path``, default ``default_cache_path()``)
        unless ``use_cache`` is false, then ``overrides``. Raises ``CatalogError`` for a bad
        override; never for a bad cache."""
        warnings: list[str] = []
        cached: CatalogFile | None = None
        if use_cache:
            path = cache_path if cache_path is not None else default_cache_path()
            cached = _read_cache(path, warnings)
        if cached is None and not overrides:
            return cls._of_snapshot(warnings)
        snapshot = _snapshot()
        models = {(m.provider, m.id): m for p in snapshot.providers.values() for m in p.models}
        names = {pid: p.name for pid, p in snapshot.providers.items()}
        if cached is not None:
            for pid, provider in cached.providers.items():
                names[pid] = provider.name or names.get(pid, pid)
                models.update(((m.provider, m.id), m) for m in provider.models)
        if overrides:
            models.update(((m.provider, m.id), m) for m in _apply_overrides(models, overrides))
        return cls(models.values(), provider_names=names, warnings=warnings)

    def get(self, provider: str, model: str) -> ModelInfo | None:
        self._decode(provider)
        return self._by_provider.get(provider, {}).get(model)

    def models(self, provider: str | None = None) -> list[ModelInfo]:
        """Every model, or one provider's, sorted by provider then id."""
        if provider is not None:
            return sorted(self._models.get(provider, {}).values(), key=_model_key)
        return sorted((m for ms in self._models.values() for m in ms.values()), key=_model_key)

    def providers(self) -> list[str]:
        return sorted(self._models)

    def provider_name(self, provider: str) -> str:
        """The display name (``OpenAI``), or the id when the catalog has none."""
        return self._names.get(provider) or provider

    def refs(self) -> list[str]:
        return [m.ref for m in self.models()]

    def __len__(self) -> int:
        return sum(len(ms) for ms in self._models.values())

    def lookup(self, ref: str) -> ModelInfo:
        """The model ``provider/model`` names. Raises ``UnknownModelError`` (with close
        matches in its message and ``suggestions``) when there is none."""
        provider, sep, model = ref.partition("/")
        info = self.get(provider, model) if sep else None
        if info is not None:
            return info
        import difflib  # only to suggest near names

        suggestions = self.suggest(ref)
        hint = f" Did you mean {_or_list(suggestions)}?" if suggestions else ""
        if not sep or not provider or not model:
            message = f"model reference {ref!r} must be provider/model.{hint}"
        elif provider not in self._models:
            near = difflib.get_close_matches(provider, self.providers(), n=3, cutoff=0.5)
            if near and not suggestions:
                hint = f" Did you mean provider {_or_list(near)}?"
            message = (
                f"unknown provider {provider!r} in {ref!r}.{hint} "
                f"Known providers: {', '.join(self.providers())}."
            )
        else:
            message = (
                f"unknown model {ref!r}.{hint} A model the catalog lacks can be declared "
                f"in settings as a model override for provider {provider!r}."
            )
        raise UnknownModelError(ref, message, suggestions)

    def suggest(self, ref: str, n: int = 3) -> list[str]:
        """Up to ``n`` known refs close to ``ref``, best first. A ref without a provider is
        matched against model ids; one with an unknown provider against close providers."""
        import difflib  # only to suggest near names

        provider, sep, model = ref.partition("/")
        if not sep:
            return self._close_models(ref, list(self._models), n)
        if provider in self._models:
            found = self._close_models(model, [provider], n)
            return found or difflib.get_close_matches(ref, self.refs(), n=n, cutoff=0.6)
        near = difflib.get_close_matches(provider, self.providers(), n=3, cutoff=0.5)
        found = self._close_models(model, near, n) if near else []
        return found or difflib.get_close_matches(ref, self.refs(), n=n, cutoff=0.6)

    def _close_models(self, model: str, providers: list[str], n: int) -> list[str]:
        """Refs in ``providers`` whose model id is close to ``model``: exact ids first, then
        difflib matches, then ids containing ``model``."""
        import difflib  # only to suggest near names

        by_id: dict[str, list[str]] = {}
        for pid in providers:
            for mid in self._models.get(pid, {}):
                by_id.setdefault(mid, []).append(f"{pid}/{mid}")
        needle = model.lower()
        ids = list(by_id)
        ranked = [mid for mid in ids if mid == model]
        ranked += difflib.get_close_matches(model, ids, n=n, cutoff=0.6)
        ranked += sorted((mid for mid in ids if needle and needle in mid.lower()), key=len)
        out: list[str] = []
        for mid in ranked:
            for r in by_id[mid]:
                if r not in out:
                    out.append(r)
        return out[:n]


# --- layers --------------------------------------------------------------------------------


@functools.cache
def _snapshot() -> CatalogFile:
    return decode_catalog(_snapshot_bytes())


class _Providers(msgspec.Struct):
    """A catalog file with each provider left encoded."""

    providers: dict[str, msgspec.Raw] = {}


@functools.cache
def _snapshot_providers() -> dict[str, msgspec.Raw]:
    return msgspec.json.decode(_snapshot_bytes(), type=_Providers).providers


def _snapshot_bytes() -> bytes:
    # Read beside this module (an install, the frozen build's folder) without loading
    # importlib.resources and zipfile on every start; through them only from an archive.
    beside = Path(__file__).with_name("data") / "catalog.json"
    try:
        return beside.read_bytes()
    except OSError:
        import importlib.resources

        return (
            importlib.resources.files("earshot.providers.data")
            .joinpath("catalog.json")
            .read_bytes()
        )


def _read_cache(path: Path, warnings: list[str]) -> CatalogFile | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.append(f"model catalog cache {path} is unreadable ({exc}); ignored")
        return None
    try:
        cached = decode_catalog(data)
    except msgspec.DecodeError as exc:
        warnings.append(f"model catalog cache {path} is corrupt ({exc}); ignored")
        return None
    if cached.format != FORMAT_VERSION:
        warnings.append(f"model catalog cache {path} has format {cached.format}; ignored")
        return None
    for pid, provider in cached.providers.items():
        if any(m.provider != pid for m in provider.models):
            warnings.append(f"model catalog cache {path} is inconsistent; ignored")
            return None
    return cached


_FIXED_FIELDS = frozenset({"id", "provider"})
_AT_PATH = r"^(?P<what>.*?) - at `\$\.?(?P<path>[^`]*)`$"


@functools.cache
def _fields_of(kind: type[msgspec.Struct]) -> frozenset[str]:
    # Read with the first model override (it resolves the annotations), not at start-up.
    return frozenset(f.name for f in msgspec.structs.fields(kind))


def _apply_overrides(
    models: Mapping[tuple[str, str], ModelInfo], overrides: Mapping[str, JSONValue]
) -> list[ModelInfo]:
    """The overridden and created models. Raises ``CatalogError`` naming the provider, model
    and field of the first bad entry."""
    out: list[ModelInfo] = []
    for provider, entries in overrides.items():
        if not isinstance(entries, dict):
            raise CatalogError(
                f"model overrides for provider {provider!r} must be an object mapping model "
                f"ids to fields, not {_json_type(entries)}"
            )
        for model, fields in entries.items():
            out.append(_override_one(models.get((provider, model)), provider, model, fields))
    return out


def _override_one(
    base: ModelInfo | None, provider: str, model: str, fields: JSONValue
) -> ModelInfo:
    where = f"model override {provider}/{model}"
    if not isinstance(fields, dict):
        raise CatalogError(f"{where} must be an object of fields, not {_json_type(fields)}")
    for key, value in fields.items():
        _check_key(where, key, _fields_of(ModelInfo) - _FIXED_FIELDS, "")
        if key == "cost" and isinstance(value, dict):
            for cost_key, tier in value.items():
                _check_key(where, cost_key, _fields_of(Cost), "cost.")
                if cost_key == "context_over_200k" and isinstance(tier, dict):
                    for tier_key in tier:
                        _check_key(where, tier_key, _fields_of(Cost), "cost.context_over_200k.")
    merged: dict[str, object] = (
        {"id": model, "provider": provider} if base is None else msgspec.to_builtins(base)
    )
    _deep_merge(merged, fields)
    try:
        return msgspec.convert(merged, ModelInfo)
    except msgspec.ValidationError as exc:
        match = re.match(_AT_PATH, str(exc), re.DOTALL)
        if match is None:
            raise CatalogError(f"{where}: {exc}") from exc
        what = match["what"][:1].lower() + match["what"][1:]
        raise CatalogError(f"{where}: field {match['path']!r}: {what}") from exc


def _check_key(where: str, key: str, allowed: frozenset[str], prefix: str) -> None:
    if key in allowed:
        return
    import difflib  # only to suggest near names

    if prefix == "" and key in _FIXED_FIELDS:
        raise CatalogError(f"{where}: field {key!r} cannot be overridden (it is the settings key)")
    near = difflib.get_close_matches(key, sorted(allowed), n=1)
    hint = f"; did you mean {prefix}{near[0]!r}?" if near else ""
    raise CatalogError(
        f"{where}: unknown field {prefix}{key!r}{hint} (known: {', '.join(sorted(allowed))})"
    )


def _deep_merge(target: dict[str, object], fields: Mapping[str, JSONValue]) -> None:
    """Merge ``fields`` into ``target``: objects merge key by key, anything else replaces."""
    for key, value in fields.items():
        current = target.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            merged = dict(current)
            _deep_merge(merged, value)
            target[key] = merged
        else:
            target[key] = value


def _json_type(value: JSONValue) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list():
            return "an array"
        case _:
            return "an object"


def _model_key(info: ModelInfo) -> tuple[str, str]:
    return (info.provider, info.id)


def _or_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


# --- live refresh --------------------------------------------------------------------------


async def refresh(
    client: httpx.AsyncClient, url: str = MODELS_DEV_URL, cache_path: Path | None = None
) -> int:
    """Fetch models.dev's ``api.json`` from ``url``, prune it as the vendored snapshot is
    pruned, and write it atomically to ``cache_path`` (default ``default_cache_path()``).
    Returns the number of models written. Raises ``CatalogError`` on an HTTP failure, a body
    that is not models.dev's shape, or one with no supported models; the old cache is then
    left as it was. The next ``ModelCatalog.load`` picks the new cache up."""
    import anyio.to_thread
    import httpx

    path = cache_path if cache_path is not None else default_cache_path()
    try:
        response = await client.get(url, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise CatalogError(f"catalog refresh from {url} failed: {exc}") from exc
    return await anyio.to_thread.run_sync(_store, response.content, url, path)


def _store(body: bytes, url: str, path: Path) -> int:
    from earshot.providers._catalog_prune import prune

    try:
        catalog = prune(body)
    except msgspec.DecodeError as exc:
        raise CatalogError(f"catalog refresh from {url}: not a models.dev catalog ({exc})") from exc
    count = catalog.model_count()
    if count == 0:
        raise CatalogError(f"catalog refresh from {url}: no supported models; cache unchanged")
    try:
        _write_atomic(path, encode_catalog(catalog))
    except OSError as exc:
        raise CatalogError(f"catalog refresh: cannot write {path}: {exc}") from exc
    return count


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # only a refresh writes

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".catalog-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = [
    "MODELS_DEV_URL",
    "CatalogError",
    "ModelCatalog",
    "UnknownModelError",
    "default_cache_path",
    "parse_ref",
    "refresh",
]
