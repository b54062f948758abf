"""A cloud is one module plus its registry row: every cloud provider of the catalog has a
module whose ``CLOUD`` the registry, ``earshot providers`` and ``earshot doctor`` ask, and
a fourth cloud plugs in without touching any of them."""

from __future__ import annotations

import inspect
import json
import textwrap
from pathlib import Path

import pytest

from earshot.providers.cloud.base import load_cloud
from earshot.providers.cloud.status import cloud_status
from earshot.providers.registry import (
    CLOUD_PROVIDERS,
    PROVIDERS,
    ProviderSpec,
    cloud_module,
    resolve_target,
)

CATALOG = Path(__file__).parents[2] / "src" / "earshot" / "providers" / "data" / "catalog.json"
# What makes a provider a cloud: its models live in the user's account, reached with the
# account's credential chain rather than one API key.
CLOUD_WIRES = {"amazon-bedrock", "google-vertex", "azure-openai"}
CLOUD_AUTH = {"aws-sigv4", "google-adc"}


def _catalog_providers() -> set[str]:
    providers = json.loads(CATALOG.read_text(encoding="utf-8"))["providers"]
    assert isinstance(providers, dict)
    return set(providers)


def test_every_cloud_provider_of_the_catalog_names_its_cloud_module() -> None:
    in_catalog = _catalog_providers()
    clouds = [s for s in PROVIDERS if s.wire in CLOUD_WIRES or s.auth in CLOUD_AUTH]
    assert {s.id for s in clouds} == {"amazon-bedrock", "google-vertex", "azure"}
    for spec in clouds:
        assert spec.catalog_id in in_catalog, spec.id
        assert spec.cloud, f"{spec.id} is a cloud but its row names no cloud module"
        assert cloud_module(spec.id) == spec.cloud
    assert {s.id for s in clouds} == CLOUD_PROVIDERS
    assert cloud_module("anthropic") == ""


@pytest.mark.parametrize("provider", sorted(CLOUD_PROVIDERS))
def test_each_cloud_module_provides_the_protocol(provider: str) -> None:
    cloud = load_cloud(cloud_module(provider))
    assert callable(cloud.place) and callable(cloud.status)
    assert inspect.iscoroutinefunction(cloud.complete)


@pytest.mark.parametrize("provider", sorted(CLOUD_PROVIDERS))
def test_a_cloud_nobody_set_up_is_not_usable_and_not_an_error(provider: str) -> None:
    spec = next(s for s in PROVIDERS if s.id == provider)
    status = cloud_status(spec, {"AWS_EC2_METADATA_DISABLED": "true", "PATH": ""})
    assert status.usable is False
    assert not status.configured


FOURTH = """
from earshot.providers.cloud.base import CloudStatus, Placement, PlaceQuery, StatusQuery


class Fourth:
    def place(self, query: PlaceQuery) -> Placement:
        zone = query.env.get("FOURTH_ZONE", "zone-1")
        base = query.base_url or f"https://{zone}.models.fourth.example"
        return Placement(base, {"zone": zone})

    async def complete(self, target, client):
        return target

    def status(self, query: StatusQuery) -> CloudStatus:
        usable = bool(query.key_source)
        return CloudStatus(usable, query.key_source or "missing", {"zone": "zone-1"})


CLOUD = Fourth()
"""


def test_a_fourth_cloud_is_its_module_and_its_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fourth_cloud.py").write_text(textwrap.dedent(FOURTH))
    monkeypatch.syspath_prepend(str(tmp_path))
    row = ProviderSpec(
        id="fourth",
        name="Fourth Cloud",
        wire="openai-chat",
        base_url="",
        env=("FOURTH_API_KEY",),
        auth="bearer",
        cloud="fourth_cloud",
    )
    env = {"FOURTH_API_KEY": "k-fourth", "FOURTH_ZONE": "zone-9"}
    target = resolve_target(row, "big-model", info=None, env=env)
    assert target.base_url == "https://zone-9.models.fourth.example"
    assert target.cloud == {"zone": "zone-9"}
    status = cloud_status(row, env, key_source="env FOURTH_API_KEY")
    assert (status.usable, status.source) == (True, "env FOURTH_API_KEY")
