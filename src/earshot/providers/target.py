"""``Target``: everything an adapter needs to call one model of one provider.

Built by ``registry.resolve_target`` from the provider registry, the environment, the
auth store, settings overrides and the catalog. ``Secret`` keeps a key out of every repr,
log line and error message: only ``reveal()`` gives the value, and only adapters call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from earshot.providers.models import ModelInfo, WireName

AuthStyle = Literal[
    "x-api-key",  # Anthropic
    "bearer",  # OpenAI and every OpenAI-compatible server
    "x-goog-api-key",  # Gemini API
    "api-key",  # Azure OpenAI
    "google-adc",  # Vertex: application default credentials
    "aws-sigv4",  # Bedrock
    "none",  # local servers
]


class Secret:
    """A credential. Its repr and str never show the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


@dataclass(frozen=True, kw_only=True)
class Target:
    """A resolved ``provider/model``: wire, endpoint, credential and catalog facts.

    ``base_url`` has no trailing slash and includes the API version path where the vendor's
    SDK expects it in the base URL (``https://api.openai.com/v1``).
    """

    provider: str
    wire: WireName
    base_url: str
    model: str
    auth: AuthStyle
    api_key: Secret | None = None
    info: ModelInfo | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    cloud: Mapping[str, str] = field(default_factory=dict)
    """Cloud placement resolved with the target: ``region`` (Bedrock), ``project`` and
    ``location`` (Vertex AI), ``api_version`` and ``api`` (Azure OpenAI)."""

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.model}"

    def secrets(self) -> tuple[str, ...]:
        """Values to redact from anything shown to a person."""
        return (self.api_key.reveal(),) if self.api_key else ()


__all__ = ["AuthStyle", "Secret", "Target", "WireName"]
