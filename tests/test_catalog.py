"""ModelCatalog: the vendored snapshot, the refresh cache and settings overrides, lookups with
suggestions, the live refresh over loopback HTTP, and cost from catalog prices."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import anyio
import httpx
import msgspec
import pytest

from earshot.providers import _catalog_file, _catalog_prune, catalog, pricing
from earshot.providers._catalog_file import CatalogFile, CatalogProvider, encode_catalog
from earshot.providers.catalog import (
    CatalogError,
    ModelCatalog,
    UnknownModelError,
    default_cache_path,
    parse_ref,
    refresh,
)
from earshot.providers.models import BudgetOption, Cost, ModelInfo
from earshot.providers.pricing import cost_usd
from earshot.providers.types import JSONValue, Usage


@pytest.fixture(scope="module")
def snapshot() -> ModelCatalog:
    return ModelCatalog.load(use_cache=False)


def write_cache(path: Path, *models: ModelInfo) -> None:
    providers: dict[str, CatalogProvider] = {}
    for m in models:
        providers.setdefault(m.provider, CatalogProvider(name=m.provider.title())).models.append(m)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_catalog(CatalogFile(providers=providers)))


# --- the snapshot and lookups --------------------------------------------------------------


def test_snapshot_has_anthropic_models_with_prices(snapshot: ModelCatalog) -> None:
    anthropic = snapshot.models("anthropic")
    assert len(anthropic) >= 5
    assert all(m.provider == "anthropic" for m in anthropic)
    priced = [m for m in anthropic if m.cost is not None and m.cost.input > 0]
    assert len(priced) == len(anthropic)
    sonnet = snapshot.get("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None
    assert sonnet.context >= 200_000
    assert sonnet.max_output > 0
    assert sonnet.vision
    assert sonnet.reasoning
    assert sonnet.budget_option() is not None
    assert snapshot.provider_name("anthropic") == "Anthropic"


def test_snapshot_covers_every_supported_provider(snapshot: ModelCatalog) -> None:
    assert snapshot.providers() == sorted(_catalog_prune.PROVIDER_IDS.values())
    assert len(snapshot.providers()) == 19


def test_models_are_sorted_by_provider_then_id(snapshot: ModelCatalog) -> None:
    refs = [(m.provider, m.id) for m in snapshot.models()]
    assert refs == sorted(refs)
    assert len(refs) == len(snapshot)


def test_lookup_finds_a_real_model(snapshot: ModelCatalog) -> None:
    info = snapshot.lookup("anthropic/claude-sonnet-4-5")
    assert info.ref == "anthropic/claude-sonnet-4-5"
    assert info.name


def test_lookup_keeps_slashes_in_openrouter_model_ids(snapshot: ModelCatalog) -> None:
    info = snapshot.lookup("openrouter/anthropic/claude-sonnet-4.5")
    assert (info.provider, info.id) == ("openrouter", "anthropic/claude-sonnet-4.5")


def test_parse_ref_splits_at_the_first_slash() -> None:
    assert parse_ref("openrouter/anthropic/claude-sonnet-4.5") == (
        "openrouter",
        "anthropic/claude-sonnet-4.5",
    )
    assert parse_ref("ollama/qwen3:8b") == ("ollama", "qwen3:8b")


@pytest.mark.parametrize("ref", ["claude-sonnet-4-5", "anthropic/", "/claude-sonnet-4-5", ""])
def test_parse_ref_rejects_a_ref_without_provider_and_model(ref: str) -> None:
    with pytest.raises(CatalogError, match="must be provider/model"):
        parse_ref(ref)


def test_model_typo_suggests_the_right_model(snapshot: ModelCatalog) -> None:
    with pytest.raises(UnknownModelError) as caught:
        snapshot.lookup("anthropic/claude-sonet-4-5")
    assert caught.value.suggestions[0] == "anthropic/claude-sonnet-4-5"
    assert "anthropic/claude-sonnet-4-5" in str(caught.value)
    assert caught.value.ref == "anthropic/claude-sonet-4-5"


def test_provider_typo_suggests_the_provider(snapshot: ModelCatalog) -> None:
    with pytest.raises(UnknownModelError) as caught:
        snapshot.lookup("antropic/claude-sonnet-4-5")
    message = str(caught.value)
    assert "unknown provider 'antropic'" in message
    assert "anthropic/claude-sonnet-4-5" in caught.value.suggestions
    assert "Known providers: amazon-bedrock, anthropic," in message


def test_unknown_provider_with_unknown_model_still_names_the_close_provider(
    snapshot: ModelCatalog,
) -> None:
    with pytest.raises(UnknownModelError, match="Did you mean provider openrouter"):
        snapshot.lookup("openruter/zzzzzzzz")


def test_ref_without_provider_suggests_refs_with_that_model_id(snapshot: ModelCatalog) -> None:
    with pytest.raises(UnknownModelError, match="must be provider/model") as caught:
        snapshot.lookup("claude-sonnet-4-5")
    assert "anthropic/claude-sonnet-4-5" in caught.value.suggestions


def test_suggest_finds_models_by_substring(snapshot: ModelCatalog) -> None:
    found = snapshot.suggest("anthropic/sonnet-4-5", n=5)
    assert "anthropic/claude-sonnet-4-5" in found
    assert len(found) <= 5


# --- layers --------------------------------------------------------------------------------


def test_overrides_merge_over_the_cache_which_merges_over_the_snapshot(
    snapshot: ModelCatalog, tmp_path: Path
) -> None:
    original = snapshot.get("anthropic", "claude-sonnet-4-5")
    untouched = snapshot.get("openai", "gpt-5")
    assert original is not None
    assert untouched is not None
    cache = tmp_path / "catalog.json"
    write_cache(
        cache,
        msgspec.structs.replace(original, context=111_111, max_output=2_222),
        ModelInfo(id="claude-next", provider="anthropic", context=500_000, max_output=64_000),
    )
    overrides: dict[str, JSONValue] = {
        "anthropic": {
            "claude-sonnet-4-5": {"max_output": 3_333, "cost": {"input": 9}},
        },
        "ollama": {"qwen3:8b": {"context": 32768, "tool_call": True}},
        "my-server": {"local-model": {"name": "Local", "reasoning_options": [{"type": "toggle"}]}},
    }

    merged = ModelCatalog.load(overrides, cache_path=cache)

    sonnet = merged.lookup("anthropic/claude-sonnet-4-5")
    assert sonnet.context == 111_111  # from the cache
    assert sonnet.max_output == 3_333  # the override beats the cache
    assert original.cost is not None
    assert sonnet.cost == msgspec.structs.replace(original.cost, input=9.0)  # merged by key
    assert sonnet.name == original.name
    assert merged.lookup("anthropic/claude-next").context == 500_000  # added by the cache
    assert merged.get("openai", "gpt-5") == untouched  # the snapshot shows through
    created = merged.lookup("ollama/qwen3:8b")
    assert (created.context, created.tool_call, created.cost) == (32768, True, None)
    local = merged.lookup("my-server/local-model")
    assert local.name == "Local"
    assert "my-server" in merged.providers()
    assert merged.warnings == ()


def test_load_reads_the_refresh_cache_from_xdg_cache_home(snapshot: ModelCatalog) -> None:
    path = default_cache_path()
    assert path.parts[-3:] == (".cache", "earshot", "catalog.json")
    write_cache(path, ModelInfo(id="fresh-model", provider="openai", context=1_000))
    assert ModelCatalog.load().lookup("openai/fresh-model").context == 1_000
    assert ModelCatalog.load(use_cache=False).get("openai", "fresh-model") is None


def test_default_cache_path_falls_back_to_home_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_path() == Path.home() / ".cache" / "earshot" / "catalog.json"


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"format": 1, "providers": {"openai": {"models": [{"provider": "openai"}]}}}',
        b"[1, 2, 3]",
        b'{"format": 99, "providers": {}}',
        b'{"format": 1, "providers": {"openai": {"models": [{"id": "x", "provider": "xai"}]}}}',
    ],
)
def test_corrupt_cache_is_ignored(snapshot: ModelCatalog, tmp_path: Path, content: bytes) -> None:
    cache = tmp_path / "catalog.json"
    cache.write_bytes(content)
    loaded = ModelCatalog.load(cache_path=cache)
    assert len(loaded) == len(snapshot)
    assert loaded.get("openai", "x") is None
    assert len(loaded.warnings) == 1
    assert str(cache) in loaded.warnings[0]


def test_unreadable_cache_is_ignored(snapshot: ModelCatalog, tmp_path: Path) -> None:
    cache = tmp_path / "catalog.json"
    cache.mkdir()  # reading a directory fails with an OSError
    loaded = ModelCatalog.load(cache_path=cache)
    assert len(loaded) == len(snapshot)
    assert "unreadable" in loaded.warnings[0]


def test_missing_cache_is_not_a_warning(tmp_path: Path) -> None:
    assert ModelCatalog.load(cache_path=tmp_path / "absent.json").warnings == ()


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (
            {"ollama": {"qwen3:8b": {"context": "big"}}},
            r"ollama/qwen3:8b: field 'context': expected `int`, got `str`",
        ),
        (
            {"ollama": {"qwen3:8b": {"contxt": 1}}},
            r"ollama/qwen3:8b: unknown field 'contxt'; did you mean 'context'\?",
        ),
        (
            {"anthropic": {"claude-sonnet-4-5": {"cost": {"inptu": 1}}}},
            r"anthropic/claude-sonnet-4-5: unknown field cost.'inptu'",
        ),
        (
            {"anthropic": {"claude-sonnet-4-5": {"cost": {"input": "free"}}}},
            r"anthropic/claude-sonnet-4-5: field 'cost.input': expected `float`",
        ),
        (
            {"ollama": {"qwen3:8b": {"shape": "graphql"}}},
            r"ollama/qwen3:8b: field 'shape'",
        ),
        (
            {"ollama": {"qwen3:8b": {"id": "other"}}},
            r"ollama/qwen3:8b: field 'id' cannot be overridden",
        ),
        ({"ollama": {"qwen3:8b": 32768}}, r"ollama/qwen3:8b must be an object.*a number"),
        ({"ollama": ["qwen3:8b"]}, r"provider 'ollama' must be an object.*an array"),
    ],
)
def test_bad_override_is_a_clear_error(overrides: dict[str, JSONValue], expected: str) -> None:
    with pytest.raises(CatalogError, match=expected):
        ModelCatalog.load(overrides, use_cache=False)


# --- live refresh over loopback HTTP -------------------------------------------------------


MODELS_DEV_DOC = {
    "anthropic": {
        "id": "anthropic",
        "name": "Anthropic",
        "models": {
            "claude-fresh": {
                "id": "claude-fresh",
                "name": "Claude Fresh",
                "tool_call": True,
                "reasoning": True,
                "modalities": {"input": ["text", "image"], "output": ["text"]},
                "limit": {"context": 300000, "output": 32000},
                "cost": {"input": 2, "output": 10},
            }
        },
    },
    "not-a-provider": {"id": "x", "name": "X", "models": {}},
}


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, bytes]]] = {}

    def do_GET(self) -> None:
        status, body = self.routes.get(self.path, (404, b"not found"))
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.routes = {
        "/api.json": (200, json.dumps(MODELS_DEV_DOC).encode()),
        "/broken.json": (500, b'{"error": "down"}'),
        "/garbage.json": (200, b"<html>maintenance</html>"),
        "/empty.json": (200, b'{"not-a-provider": {"models": {}}}'),
    }
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


async def _refresh(url: str, cache: Path) -> int:
    async with httpx.AsyncClient(timeout=10.0) as client:
        return await refresh(client, url, cache)


def test_refresh_writes_a_pruned_cache_that_load_merges(server: str, tmp_path: Path) -> None:
    cache = tmp_path / "sub" / "catalog.json"
    count = anyio.run(_refresh, f"{server}/api.json", cache)
    assert count == 1
    assert [p.name for p in cache.parent.iterdir()] == ["catalog.json"]  # no temp files left
    fresh = ModelCatalog.load(cache_path=cache).lookup("anthropic/claude-fresh")
    assert (fresh.context, fresh.max_output, fresh.vision) == (300_000, 32_000, True)
    assert fresh.cost == Cost(input=2.0, output=10.0)
    assert cache.read_bytes() == encode_catalog(
        _catalog_prune.prune(_Handler.routes["/api.json"][1])
    )


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/broken.json", "500"),
        ("/garbage.json", "not a models.dev catalog"),
        ("/empty.json", "no supported models"),
        ("/missing.json", "404"),
    ],
)
def test_failed_refresh_leaves_the_old_cache(
    server: str, tmp_path: Path, path: str, expected: str
) -> None:
    cache = tmp_path / "catalog.json"
    cache.write_bytes(b"previous")
    with pytest.raises(CatalogError, match=expected):
        anyio.run(_refresh, f"{server}{path}", cache)
    assert cache.read_bytes() == b"previous"


def test_importing_the_catalog_imports_neither_httpx_nor_the_pruner() -> None:
    lazy = ("httpx", "earshot.providers._catalog_prune")
    code = f"import sys, earshot.providers.catalog; print([m for m in {lazy} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert out.stdout.strip() == "[]"


# --- cost ----------------------------------------------------------------------------------


def test_cost_of_a_known_model_matches_hand_computed_prices(snapshot: ModelCatalog) -> None:
    info = snapshot.lookup("anthropic/claude-sonnet-4-5")
    assert info.cost is not None
    c = info.cost
    assert c.cache_read is not None
    assert c.cache_write is not None
    usage = Usage(input=1_000, output=2_000, cache_read=10_000, cache_write=3_000, reasoning=500)
    expected = (
        1_000 * c.input + 10_000 * c.cache_read + 3_000 * c.cache_write + 2_000 * c.output
    ) / 1_000_000
    assert cost_usd(usage, info) == pytest.approx(expected)
    # Today's prices (3 / 15 / 0.30 / 3.75 USD per million): 0.003 + 0.003 + 0.01125 + 0.03.
    if (c.input, c.output, c.cache_read, c.cache_write) == (3.0, 15.0, 0.3, 3.75):
        assert cost_usd(usage, info) == pytest.approx(0.04725)


def test_cache_prices_default_to_input_and_reasoning_to_output() -> None:
    info = ModelInfo(id="m", provider="p", cost=Cost(input=2.0, output=8.0))
    usage = Usage(input=100, output=50, cache_read=1_000, cache_write=10, reasoning=20)
    assert cost_usd(usage, info) == pytest.approx((100 * 2 + 1_000 * 2 + 10 * 2 + 50 * 8) / 1e6)


def test_reasoning_tokens_use_their_own_price_when_given() -> None:
    info = ModelInfo(id="m", provider="p", cost=Cost(input=2.0, output=8.0, reasoning=3.0))
    usage = Usage(input=0, output=100, reasoning=40)
    assert cost_usd(usage, info) == pytest.approx((60 * 8 + 40 * 3) / 1e6)


def test_long_prompts_use_the_over_200k_tier() -> None:
    tier = Cost(input=4.0, output=18.0, cache_read=0.4)
    info = ModelInfo(
        id="m",
        provider="p",
        cost=Cost(input=2.0, output=12.0, cache_read=0.2, cache_write=0.5, context_over_200k=tier),
    )
    short = Usage(input=150_000, cache_read=50_000, output=1_000)
    assert cost_usd(short, info) == pytest.approx((150_000 * 2 + 50_000 * 0.2 + 1_000 * 12) / 1e6)
    long = Usage(input=150_000, cache_read=50_000, cache_write=1_000, output=1_000)
    # cache_write is missing from the tier: it keeps its ratio to input (0.5 / 2 * 4 = 1.0)
    expected = (150_000 * 4 + 50_000 * 0.4 + 1_000 * 1.0 + 1_000 * 18) / 1e6
    assert cost_usd(long, info) == pytest.approx(expected)


def test_cost_is_none_without_prices_and_zero_for_free_models() -> None:
    usage = Usage(input=10, output=10)
    assert cost_usd(usage, ModelInfo(id="m", provider="p")) is None
    assert cost_usd(usage, ModelInfo(id="m", provider="p", cost=Cost())) == 0.0


def test_reasoning_facts_survive_the_snapshot(snapshot: ModelCatalog) -> None:
    assert "high" in snapshot.lookup("openai/gpt-5").effort_values()
    budget = snapshot.lookup("anthropic/claude-sonnet-4-5").budget_option()
    assert isinstance(budget, BudgetOption)
    assert budget.min == 1024
    interleaved = [m for m in snapshot.models() if m.interleaved_field]
    assert {m.interleaved_field for m in interleaved} == {"reasoning_content", "reasoning_details"}
    assert all(m.interleaved for m in interleaved)


@pytest.mark.parametrize("module", [catalog, pricing, _catalog_file, _catalog_prune])
def test_exported_names_are_sorted_and_exist(module: ModuleType) -> None:
    names: list[str] = vars(module)["__all__"]
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    assert all(hasattr(module, n) for n in names)


def test_the_snapshot_read_one_provider_at_a_time_answers_as_the_whole_file_does(
    tmp_path: Path,
) -> None:
    # With no cache and no overrides each provider is decoded when first asked for; with a
    # cache (here the snapshot's own bytes) the whole file is: both give the same answers.
    data = (Path(catalog.__file__).with_name("data") / "catalog.json").read_bytes()
    whole = msgspec.json.decode(data, type=CatalogFile)
    for pid, provider in whole.providers.items():
        assert {m.provider for m in provider.models} <= {pid}  # each model under its own id
    same = tmp_path / "catalog.json"
    same.write_bytes(data)
    eager = ModelCatalog.load(cache_path=same)
    first = ModelCatalog.load(cache_path=tmp_path / "none.json")
    assert first.get("anthropic", "claude-sonnet-4-6") == eager.get(
        "anthropic", "claude-sonnet-4-6"
    )
    assert first.get("anthropic", "no-such-model") is None
    assert first.get("no-such-provider", "x") is None
    assert first.lookup("openai/gpt-5") == eager.lookup("openai/gpt-5")
    assert first.providers() == eager.providers() == sorted(whole.providers)
    assert first.models() == eager.models()
    assert len(first) == len(eager) == whole.model_count()
    assert [first.provider_name(p) for p in first.providers()] == [
        eager.provider_name(p) for p in eager.providers()
    ]
    fresh = ModelCatalog.load(cache_path=tmp_path / "none.json")
    assert fresh.provider_name("openai") == eager.provider_name("openai")
    assert fresh.suggest("anthropic/claude-sonet-4-6") == eager.suggest(
        "anthropic/claude-sonet-4-6"
    )
