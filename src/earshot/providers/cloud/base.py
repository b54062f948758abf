"""What a cloud module provides: the ``Cloud`` protocol, and how the registry finds it.

A cloud provider's models live in the user's own cloud account, so two things that are a
constant for other providers are resolved per user: where a model lives (placement: the
region, project and location, or endpoint, hence the base URL) and where the credentials
come from (a chain, not one key). Each cloud module defines ``CLOUD``, an object with
this protocol; the provider's row in ``registry.PROVIDERS`` names the module
(``ProviderSpec.cloud``)::

    registry.resolve_target ──place()────┐
    stream.stream ───────────complete()──┤     cloud/aws.py     CLOUD  (amazon-bedrock)
    cloud.status.cloud_status ─status()──┴──>  cloud/google.py  CLOUD  (google-vertex)
      (earshot providers, earshot doctor)      cloud/azure.py   CLOUD  (azure)

Adding a cloud is its module (with ``CLOUD``) plus its registry row; nothing here or in
the callers branches on which cloud it is. The credential itself is added to each request
by ``providers.auth_headers`` for the row's auth style (a new signing scheme is a new
style there). A cloud module is imported only when a target or a listing needs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import httpx

    from earshot.providers.target import Target, WireName


@dataclass(frozen=True, kw_only=True)
class PlaceQuery:
    """What ``place`` is told about the model a target is being resolved for."""

    model: str
    """The catalog model id where known (an Azure deployment's catalog model), else the
    id the user gave."""
    env: Mapping[str, str]
    base_url: str = ""
    """A base URL the user configured (``<ID>_BASE_URL``, settings); empty when none."""
    api_version: str | None = None
    """Settings ``providers.<id>.api_version``."""
    wire: str | None = None
    """The wire settings or the catalog ask for, when it is not the row's own."""


@dataclass(frozen=True)
class Placement:
    base_url: str
    """Where the calls go: the configured base URL, or the one the placement decides."""
    cloud: dict[str, str]
    """``Target.cloud``: what the cloud's wire and credential step read."""
    wire: WireName | None = None
    """The wire the target uses when the cloud decides it; ``None`` keeps the resolved one."""


@dataclass(frozen=True, kw_only=True)
class StatusQuery:
    env: Mapping[str, str]
    key_source: str | None = None
    """Where the registry found the row's own key (``env VAR`` or ``auth.json``)."""
    base_url: str = ""
    api_version: str | None = None


@dataclass(frozen=True)
class CloudStatus:
    """What ``earshot providers`` and ``earshot doctor`` show for a cloud; never a secret.

    ``usable`` when the credentials are found and the placement resolves; ``problem`` names
    what is missing when the user set something up but not all of it."""

    usable: bool
    source: str
    placement: dict[str, str] = field(default_factory=dict)
    problem: str = ""
    endpoint: str = ""

    @property
    def configured(self) -> bool:
        """Whether the user set anything up for this cloud (so doctor should check it)."""
        return self.usable or bool(self.problem)


class Cloud(Protocol):
    def place(self, query: PlaceQuery) -> Placement:
        """The placement of a model. No network I/O (it may read the cloud's own
        configuration files); ``ProviderError("auth")`` when nothing names what it needs."""
        ...

    async def complete(self, target: Target, client: httpx.AsyncClient | None) -> Target:
        """The target with what only a call can find out filled in (Vertex: the project
        the metadata server names); the target itself when nothing is missing. Called
        before each request; answers from a cache after the first."""
        ...

    def status(self, query: StatusQuery) -> CloudStatus:
        """Where the credentials come from and where models would live, without network
        I/O; ``ProviderError`` when a configuration file cannot be read."""
        ...


def load_cloud(module: str) -> Cloud:
    """The ``CLOUD`` of a cloud module (imported on first use)."""
    cloud: Cloud = importlib.import_module(module).CLOUD
    return cloud


__all__ = ["Cloud", "CloudStatus", "PlaceQuery", "Placement", "StatusQuery", "load_cloud"]
