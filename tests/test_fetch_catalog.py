"""The catalog build: pruning a models.dev document, deterministic output, the fetch script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from earshot.providers._catalog_file import CatalogFile, decode_catalog, encode_catalog
from earshot.providers._catalog_prune import PROVIDER_IDS, prune
from earshot.providers.models import BudgetOption, Cost, EffortOption, ModelInfo, ToggleOption

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "fetch_catalog.py"
VENDORED = REPO / "src" / "earshot" / "providers" / "data" / "catalog.json"
REFERENCE = REPO.parent / "shared" / "reference" / "models" / "models-dev.json"


def dev_model(model_id: str, **fields: object) -> dict[str, object]:
    """A models.dev-shaped model entry: a text chat model unless ``fields`` say otherwise."""
    entry: dict[str, object] = {
        "id": model_id,
        "name": model_id.title(),
        "attachment": False,
        "reasoning": False,
        "tool_call": True,
        "temperature": True,
        "release_date": "2025-01-01",
        "last_updated": "2025-02-01",
        "modalities": {"input": ["text"], "output": ["text"]},
        "limit": {"context": 128000, "output": 8192},
        "cost": {"input": 1, "output": 2},
    }
    entry.update(fields)
    return entry


def dev_document() -> dict[str, object]:
    return {
        "togetherai": {
            "id": "togetherai",
            "name": "Together AI",
            "env": ["TOGETHER_API_KEY"],
            "npm": "@ai-sdk/togetherai",
            "doc": "https://docs.together.ai",
            "models": {
                "moonshotai/Kimi-K2.5": dev_model(
                    "moonshotai/Kimi-K2.5",
                    name="Kimi K2.5",
                    reasoning=True,
                    temperature=False,
                    knowledge="2025-06",
                    status="beta",
                    modalities={"input": ["text", "image", "pdf"], "output": ["text"]},
                    limit={"context": 262144, "input": 200000, "output": 65536},
                    cost={
                        "input": 0.6,
                        "output": 2.5,
                        "cache_read": 0.15,
                        "cache_write": 0.75,
                        "reasoning": 3,
                        "context_over_200k": {"input": 1.2, "output": 5},
                    },
                    reasoning_options=[
                        {"type": "toggle"},
                        {"type": "effort", "values": ["low", "high"]},
                        {"type": "budget_tokens", "min": 1024, "max": 32000},
                        {"type": "some-future-kind", "levels": 3},
                    ],
                    interleaved={"field": "reasoning_content"},
                    provider={"npm": "@ai-sdk/openai-compatible", "api": "https://x/v1"},
                ),
                "bare-interleaved": dev_model("bare-interleaved", interleaved=True),
                "BAAI/bge-embed-large": dev_model("BAAI/bge-embed-large", tool_call=False),
                "tts-voice": dev_model(
                    "tts-voice", modalities={"input": ["text"], "output": ["audio"]}
                ),
                "whisper": dev_model(
                    "whisper", modalities={"input": ["audio"], "output": ["text"]}
                ),
                "paint": dev_model(
                    "paint",
                    tool_call=False,
                    modalities={"input": ["text", "image"], "output": ["text", "image"]},
                ),
                "broken": {"id": "broken", "limit": {"context": "lots"}},
                "free": dev_model("free", cost={"input": 0, "output": 0}),
                "unpriced": {k: v for k, v in dev_model("unpriced").items() if k != "cost"},
            },
        },
        "some-unsupported-host": {
            "id": "some-unsupported-host",
            "name": "Elsewhere",
            "models": {"chat": dev_model("chat")},
        },
        "openai": {
            "id": "openai",
            "name": "OpenAI",
            "models": {
                "text-embedding-3-small": dev_model("text-embedding-3-small", tool_call=False),
                "gpt-x": dev_model(
                    "gpt-x", provider={"npm": "@ai-sdk/openai", "shape": "completions"}
                ),
            },
        },
    }


def encoded(document: dict[str, object]) -> bytes:
    return json.dumps(document).encode()


def test_prune_keeps_supported_chat_models_under_earshot_ids() -> None:
    catalog = prune(encoded(dev_document()))
    assert sorted(catalog.providers) == ["openai", "together"]
    together = catalog.providers["together"]
    assert together.name == "Together AI"
    assert [m.id for m in together.models] == [
        "bare-interleaved",
        "free",
        "moonshotai/Kimi-K2.5",
        "unpriced",
    ]
    assert [m.id for m in catalog.providers["openai"].models] == ["gpt-x"]


def test_prune_drops_embedding_speech_transcription_image_and_broken_models() -> None:
    kept = {m.id for p in prune(encoded(dev_document())).providers.values() for m in p.models}
    for dropped in (
        "BAAI/bge-embed-large",
        "text-embedding-3-small",
        "tts-voice",
        "whisper",
        "paint",
        "broken",
        "chat",
    ):
        assert dropped not in kept


def test_a_kept_model_keeps_prices_limits_reasoning_and_routing() -> None:
    together = prune(encoded(dev_document())).providers["together"]
    kimi = next(m for m in together.models if m.id == "moonshotai/Kimi-K2.5")
    assert kimi == ModelInfo(
        id="moonshotai/Kimi-K2.5",
        provider="together",
        name="Kimi K2.5",
        context=262144,
        max_output=65536,
        max_input=200000,
        cost=Cost(
            input=0.6,
            output=2.5,
            cache_read=0.15,
            cache_write=0.75,
            reasoning=3.0,
            context_over_200k=Cost(input=1.2, output=5.0),
        ),
        vision=True,
        pdf=True,
        reasoning=True,
        tool_call=True,
        temperature=False,
        reasoning_options=[
            ToggleOption(),
            EffortOption(values=["low", "high"]),
            BudgetOption(min=1024, max=32000),
        ],
        interleaved_field="reasoning_content",
        interleaved=True,
        npm="@ai-sdk/openai-compatible",
        api="https://x/v1",
        status="beta",
        release_date="2025-01-01",
        knowledge="2025-06",
    )
    bare = next(m for m in together.models if m.id == "bare-interleaved")
    assert (bare.interleaved, bare.interleaved_field) == (True, None)
    free = next(m for m in together.models if m.id == "free")
    assert free.cost == Cost()
    assert next(m for m in together.models if m.id == "unpriced").cost is None
    gpt = prune(encoded(dev_document())).providers["openai"].models[0]
    assert (gpt.shape, gpt.npm, gpt.api) == ("completions", "@ai-sdk/openai", None)


def test_encoding_is_deterministic_and_round_trips() -> None:
    document = dev_document()
    reordered = {k: document[k] for k in reversed(list(document))}
    together = reordered["togetherai"]
    assert isinstance(together, dict)
    together["models"] = dict(reversed(list(together["models"].items())))
    first = encode_catalog(prune(encoded(document)))
    assert encode_catalog(prune(encoded(reordered))) == first
    assert encode_catalog(decode_catalog(first)) == first
    # one model per line, so a rebuild's diff shows which models changed
    lines = first.decode().splitlines()
    assert lines[0] == '{"format":1,"providers":{'
    assert sum(line.startswith('{"') and '"id":' in line for line in lines) == 5


def test_encoding_omits_defaults() -> None:
    data = encode_catalog(prune(encoded(dev_document())))
    line = next(x for x in data.decode().splitlines() if '"id":"free"' in x)
    # a free model keeps its explicit zero prices: "no prices" (cost absent) means unknown
    assert json.loads(line.rstrip(",")) == {
        "context": 128000,
        "cost": {"input": 0.0, "output": 0.0},
        "id": "free",
        "max_output": 8192,
        "name": "Free",
        "provider": "together",
        "release_date": "2025-01-01",
    }


def test_prune_rejects_a_document_that_is_not_an_object() -> None:
    with pytest.raises(msgspec.DecodeError):
        prune(b'["anthropic"]')


def test_provider_ids_map_models_dev_ids_to_earshot_ids() -> None:
    assert PROVIDER_IDS == {
        "amazon-bedrock": "amazon-bedrock",
        "anthropic": "anthropic",
        "azure": "azure",
        "cerebras": "cerebras",
        "deepseek": "deepseek",
        "fireworks-ai": "fireworks",
        "github-models": "github-models",
        "google": "google",
        "google-vertex": "google-vertex",
        "groq": "groq",
        "lmstudio": "lmstudio",
        "mistral": "mistral",
        "moonshotai": "moonshot",
        "ollama-cloud": "ollama",
        "openai": "openai",
        "openrouter": "openrouter",
        "togetherai": "together",
        "xai": "xai",
        "zai": "zai",
    }


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


def test_fetch_script_writes_the_same_bytes_twice(tmp_path: Path) -> None:
    source = tmp_path / "models-dev.json"
    source.write_bytes(encoded(dev_document()))
    outputs = [tmp_path / "a.json", tmp_path / "b.json"]
    for out in outputs:
        result = run_script("--input", str(source), "--output", str(out))
        assert result.returncode == 0, result.stderr
        assert f"{out.stat().st_size:,} bytes, 2 providers, 5 models" in result.stdout
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    assert outputs[0].read_bytes() == encode_catalog(prune(source.read_bytes()))


def test_fetch_script_refuses_a_catalog_over_budget(tmp_path: Path) -> None:
    source = tmp_path / "models-dev.json"
    source.write_bytes(encoded(dev_document()))
    out = tmp_path / "catalog.json"
    result = run_script("--input", str(source), "--output", str(out), "--max-bytes", "100")
    assert result.returncode == 1
    assert "over 100" in result.stderr
    assert not out.exists()


def test_vendored_catalog_is_within_budget_and_decodes() -> None:
    data = VENDORED.read_bytes()
    assert len(data) <= 400_000
    catalog: CatalogFile = decode_catalog(data)
    assert catalog.model_count() > 500
    assert encode_catalog(catalog) == data


@pytest.mark.skipif(not REFERENCE.exists(), reason="needs the shared models.dev reference copy")
def test_vendored_catalog_is_what_the_script_builds_from_the_reference() -> None:
    assert encode_catalog(prune(REFERENCE.read_bytes())) == VENDORED.read_bytes()
