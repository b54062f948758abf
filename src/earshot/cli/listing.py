"""``earshot providers`` and ``earshot models``: plain aligned tables, or JSON for scripts.

JSON field names are part of what scripts rely on: add fields, never rename them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import msgspec

from earshot.core.config.aliases import alias_target
from earshot.core.config.settings import Settings, load_settings, settings_paths
from earshot.core.config.targets import load_catalog
from earshot.providers.auth import AuthStore
from earshot.providers.catalog import ModelCatalog, UnknownModelError
from earshot.providers.models import ModelInfo
from earshot.providers.pricing import prices_for
from earshot.providers.registry import (
    CLOUD_PROVIDERS,
    PROVIDERS,
    ProviderSpec,
    UnknownProviderError,
    base_url_for,
    get_provider,
    key_from_env,
    wire_for,
)
from earshot.providers.types import JSONObject, JSONValue
from earshot.providers.wire import implemented_wires


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def _emit_json(value: JSONValue) -> None:
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(value), indent=2).decode() + "\n")


def _key_source(spec: ProviderSpec, stored: set[str]) -> tuple[bool, str]:
    found = key_from_env(spec, os.environ)
    own = f"env {found[0]}" if found is not None else "auth.json" if spec.id in stored else None
    if own is not None:
        return True, own
    if not spec.key_required:
        return False, "not needed"
    return False, "missing"


def print_providers(*, as_json: bool, cwd: Path | None = None) -> int:
    settings = load_settings(cwd)
    stored = set(AuthStore().providers())
    wires = set(implemented_wires())
    records: list[JSONValue] = []
    rows: list[list[str]] = []
    for spec in PROVIDERS:
        base_url = base_url_for(spec, os.environ, settings.provider(spec.id))
        spec_wire = wire_for(spec, None, settings.provider(spec.id))
        key_set, source = _key_source(spec, stored)
        placement: JSONObject = {}
        if spec.id in CLOUD_PROVIDERS:
            from earshot.providers.cloud.status import cloud_status

            own = source if key_set else None
            status = cloud_status(spec.id, os.environ, key_source=own, configured_url=base_url)
            key_set, source = status.usable, status.source
            placement = {k: v for k, v in status.placement.items()}
            if not base_url or spec.id == "azure":
                base_url = status.endpoint
        record: JSONObject = {
            "id": spec.id,
            "name": spec.name,
            "wire": spec_wire,
            "implemented": spec_wire in wires,
            "env": list(spec.env),
            "base_url": base_url,
            "base_url_env": list(spec.base_url_vars),
            "key_set": key_set,
            "key_source": source,
        }
        if placement:
            record["placement"] = placement
        if spec.note:
            record["note"] = spec.note
        records.append(record)
        wire = spec_wire if spec_wire in wires else f"{spec_wire} (planned)"
        rows.append([spec.id, source, _env_names(spec), wire, base_url or "(set in settings)"])
    if as_json:
        _emit_json(records)
    else:
        headers = ["PROVIDER", "KEY", "KEY VARIABLE", "WIRE", "BASE URL"]
        sys.stdout.write(_table(headers, rows))
    return 0


def _env_names(spec: ProviderSpec) -> str:
    """The variable a key is read from (``+N`` more it is also read from), or ``-``."""
    if not spec.env:
        return "-"
    more = f" +{len(spec.env) - 1}" if len(spec.env) > 1 else ""
    return spec.env[0] + more


def _tokens(n: int) -> str:
    return f"{n:,}" if n > 0 else "-"


def _usd(value: float) -> str:
    return f"{value:.2f}" if value >= 0.1 or value == 0 else f"{value:.3f}".rstrip("0")


def _model_record(info: ModelInfo) -> JSONObject:
    record: JSONObject = {
        "id": info.ref,
        "provider": info.provider,
        "model": info.id,
        "name": info.name,
        "context": info.context,
        "max_output": info.max_output,
        "vision": info.vision,
        "reasoning": info.reasoning,
        "tool_call": info.tool_call,
    }
    if info.cost is not None:
        p = prices_for(info.cost)
        record["cost_per_million"] = {
            "input": p.input,
            "output": p.output,
            "cache_read": p.cache_read,
            "cache_write": p.cache_write,
        }
    if info.status:
        record["status"] = info.status
    return record


def _short_tokens(n: int) -> str:
    """``200k``, ``8k`` (8,192), ``1M``, ``1.05M``, ``-``: the table's width; the detail
    view and JSON give the exact number."""
    if n <= 0:
        return "-"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    if n % 1024 == 0:
        return f"{n // 1024}k"
    if n >= 1000:
        return f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return str(n)


def _model_row(info: ModelInfo) -> list[str]:
    if info.cost is not None:
        p = prices_for(info.cost)
        prices = [_usd(p.input), _usd(p.output)]
    else:
        prices = ["-", "-"]
    can = [
        word
        for word, flag in (
            ("vision", info.vision),
            ("reason", info.reasoning),
            ("tools", info.tool_call),
        )
        if flag
    ]
    return [
        info.ref,
        _short_tokens(info.context),
        _short_tokens(info.max_output),
        *prices,
        " ".join(can) or "-",
    ]


_MODEL_HEADERS = ["MODEL", "CONTEXT", "OUTPUT", "$IN/M", "$OUT/M", "CAN"]


def _newest_first(infos: list[ModelInfo]) -> list[ModelInfo]:
    by_id = sorted(infos, key=lambda info: info.id)
    return sorted(by_id, key=lambda info: info.release_date or "", reverse=True)


def _listing_order(catalog: ModelCatalog, settings: Settings) -> list[ModelInfo]:
    """Every model: providers earshot can call with a key first, then the other callable
    ones, then those it cannot call yet, each in registry order; newest first within."""
    stored = set(AuthStore().providers())
    wires = set(implemented_wires())
    ranked: list[tuple[int, int, str]] = []
    order = {spec.id: index for index, spec in enumerate(PROVIDERS)}
    for provider in catalog.providers():
        try:
            spec = get_provider(provider)
        except UnknownProviderError:
            ranked.append((3, len(order), provider))
            continue
        keyed, _ = _key_source(spec, stored)
        callable_ = wire_for(spec, None, settings.provider(spec.id)) in wires
        rank = 0 if callable_ and keyed else 1 if callable_ else 2
        ranked.append((rank, order[spec.id], provider))
    out: list[ModelInfo] = []
    for _, _, provider in sorted(ranked):
        out += _newest_first(catalog.models(provider))
    return out


def _detail(info: ModelInfo) -> str:
    """One model, a line per fact: what ``earshot models provider/model`` prints."""
    rows: list[tuple[str, str]] = [("name", info.name or info.id)]
    rows.append(("context window", f"{info.context:,} tokens" if info.context else "unknown"))
    rows.append(("output limit", f"{info.max_output:,} tokens" if info.max_output else "unknown"))
    if info.cost is not None:
        p = prices_for(info.cost)
        cache = ""
        if p.cache_read or p.cache_write:
            cache = f", cache ${_usd(p.cache_read)} read / ${_usd(p.cache_write)} write"
        rows.append(("price per 1M", f"${_usd(p.input)} in, ${_usd(p.output)} out{cache}"))
    else:
        rows.append(("price", "unknown: cost is not counted"))
    rows.append(("vision", "yes" if info.vision else "no"))
    rows.append(("reasoning", "yes" if info.reasoning else "no"))
    rows.append(("tool calls", "yes" if info.tool_call else "no"))
    if info.release_date:
        rows.append(("released", info.release_date))
    if info.status:
        rows.append(("status", info.status))
    width = max(len(label) for label, _ in rows)
    lines = [info.ref, *(f"  {label.ljust(width)}  {value}" for label, value in rows)]
    return "\n".join(lines) + "\n"


def refresh_catalog(url: str | None = None) -> int:
    """Fetch the live catalog into the cache; never needed, never done at start-up."""
    import anyio

    from earshot.providers.catalog import MODELS_DEV_URL, CatalogError, refresh
    from earshot.providers.http import new_client

    source = url or os.environ.get("EARSHOT_CATALOG_URL") or MODELS_DEV_URL

    async def fetch() -> int:
        async with new_client() as client:
            return await refresh(client, source)

    try:
        count = anyio.run(fetch)
    except CatalogError as exc:
        sys.stderr.write(f"earshot: {exc}\n")
        return 1
    sys.stderr.write(f"refreshed the model catalog: {count} models from {source}\n")
    return 0


class _Assumed:
    """What earshot assumes for a model of an open provider (Ollama, LM Studio, any
    OpenAI-compatible server) that the catalog does not know."""

    def __init__(self, spec: ProviderSpec, model: str, settings: Settings, cwd: Path) -> None:
        from earshot.core.loop.context import ContextPolicy
        from earshot.providers.wire import assumed_max_output

        self.spec = spec
        self.model = model
        self.wire = wire_for(spec, None, settings.provider(spec.id))
        self.base_url = base_url_for(spec, os.environ, settings.provider(spec.id))
        policy = ContextPolicy()
        self.context = policy.default_window
        self.compact_at = policy.compact_at
        self.max_output = assumed_max_output(self.wire)
        self.where = [str(path) for _, path in settings_paths(cwd)[:2]]

    def record(self) -> JSONObject:
        return {
            "id": f"{self.spec.id}/{self.model}",
            "provider": self.spec.id,
            "model": self.model,
            "in_catalog": False,
            "wire": self.wire,
            "base_url": self.base_url,
            "context": self.context,
            "max_output": self.max_output,
            "cost_per_million": None,
            "vision": False,
            "settings_key": f"models.{self.spec.id}.{self.model}",
            "settings_files": list(self.where),
        }

    def text(self) -> str:
        ref = f"{self.spec.id}/{self.model}"
        output = (
            f"{self.max_output:,} tokens (sent as the request's limit)"
            if self.max_output
            else "none sent: the server's own default applies"
        )
        base = self.base_url or (
            f"not set: set {self.spec.base_url_vars[0]} or providers.{self.spec.id}.base_url"
        )
        example: JSONValue = {
            "models": {
                self.spec.id: {
                    self.model: {
                        "context": 32768,
                        "max_output": 8192,
                        "cost": {"input": 0.0, "output": 0.0},
                    }
                }
            }
        }
        rows = [
            ["wire", self.wire],
            ["base URL", base],
            [
                "context window",
                f"{self.context:,} tokens (compaction starts at {self.compact_at:.0%})",
            ],
            ["output limit", output],
            ["price", "unknown: cost is not counted and maxBudgetUsd cannot stop a run"],
            ["vision", "off: tools return no images to it"],
        ]
        width = max(len(r[0]) for r in rows)
        lines = [
            f"{ref} is not in the model catalog; {self.spec.name} serves any model, "
            "so earshot will call it and assume:",
            *(f"  {label.ljust(width)}  {value}" for label, value in rows),
            f"Set what you know under models in settings ({' or '.join(self.where)}), for example:",
            "  " + msgspec.json.encode(example).decode(),
        ]
        return "\n".join(lines) + "\n"


def _open_model(ref: str, settings: Settings, catalog: ModelCatalog, cwd: Path) -> _Assumed | None:
    """The assumptions for ``provider/model`` when the provider takes any model and the
    catalog lacks this one; None otherwise (``lookup`` then reports or finds it)."""
    provider, _, model = ref.partition("/")
    try:
        spec = get_provider(provider)
    except UnknownProviderError:
        return None
    if not model or not spec.open_models or catalog.get(spec.id, model) is not None:
        return None
    return _Assumed(spec, model, settings, cwd)


def print_models(provider: str | None, *, as_json: bool, cwd: Path | None = None) -> int:
    settings: Settings = load_settings(cwd)
    catalog = load_catalog(settings)
    for warning in catalog.warnings:
        sys.stderr.write(f"earshot: warning: {warning}\n")
    if provider is not None and "/" not in provider and alias_target(provider, catalog):
        provider = alias_target(provider, catalog)
    if provider is not None and "/" in provider:
        assumed = _open_model(provider, settings, catalog, cwd or Path.cwd())
        if assumed is not None:
            if as_json:
                _emit_json([assumed.record()])
            else:
                sys.stdout.write(assumed.text())
            return 0
        info = catalog.lookup(provider)
        if as_json:
            _emit_json([_model_record(info)])
        else:
            sys.stdout.write(_detail(info))
        return 0
    elif provider is not None:
        try:
            spec = get_provider(provider)
        except UnknownProviderError as exc:
            raise UnknownModelError(provider, str(exc), exc.suggestions) from exc
        infos = _newest_first(catalog.models(spec.id))
        if not infos and not as_json:
            hint = " (any model it serves works; add facts under models in settings)"
            sys.stdout.write(f"no catalog models for {spec.id}{hint if spec.open_models else ''}\n")
            return 0
    else:
        infos = _listing_order(catalog, settings)
    if as_json:
        _emit_json([_model_record(info) for info in infos])
    else:
        sys.stdout.write(_table(_MODEL_HEADERS, [_model_row(info) for info in infos]))
    return 0
