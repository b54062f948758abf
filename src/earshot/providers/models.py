"""Catalog records: what earshot knows about a model (``ModelInfo``) and its prices.

Struct definitions only (never compiled with mypyc). ``ModelCatalog`` in ``catalog.py``
builds these from the vendored snapshot, the cached live refresh and user overrides.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

import msgspec

WireName = Literal[
    "anthropic-messages",
    "openai-chat",
    "openai-responses",
    "google-gemini",
    "google-vertex",
    "amazon-bedrock",
    "azure-openai",
]
"""The vendor API a call speaks (one adapter each in ``providers/wire``)."""
WIRE_NAMES: tuple[WireName, ...] = get_args(WireName)


class Cost(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """USD per million tokens. ``cache_read``/``cache_write`` default to the input price when
    the catalog has none; ``reasoning`` defaults to the output price.

    ``context_over_200k``, when present, is the price tier that applies to a whole call once
    its prompt (input + cache read + cache write) exceeds 200,000 tokens. A tier never has a
    tier of its own.
    """

    input: float = 0.0
    output: float = 0.0
    cache_read: float | None = None
    cache_write: float | None = None
    reasoning: float | None = None
    context_over_200k: Cost | None = None


class EffortOption(msgspec.Struct, tag="effort", frozen=True, kw_only=True):
    """The model takes a named effort level (``low``, ``medium``, ``high``, ...)."""

    values: list[str]


class BudgetOption(msgspec.Struct, tag="budget_tokens", frozen=True, kw_only=True):
    """The model takes a thinking budget in tokens."""

    min: int | None = None
    max: int | None = None


class ToggleOption(msgspec.Struct, tag="toggle", frozen=True, kw_only=True):
    """Reasoning can only be switched on or off."""


ReasoningOption: TypeAlias = EffortOption | BudgetOption | ToggleOption
WireShape = Literal["responses", "completions"]


class ModelInfo(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One model of one provider. ``id`` is the vendor's model id (what goes on the wire).

    ``context``/``max_output``/``max_input`` are token limits (0 or None when unknown).
    ``interleaved`` means the model's reasoning must be sent back between tool calls;
    ``interleaved_field`` names the Chat Completions message field that carries it
    (``reasoning_content`` or ``reasoning_details``) when the catalog says which.
    ``npm``/``api``/``shape`` are models.dev's per-model routing overrides, set only where the
    model is served differently from the rest of its provider: ``npm`` is the AI SDK package
    naming the wire (``@ai-sdk/anthropic``, ``@ai-sdk/google-vertex/anthropic``,
    ``@ai-sdk/openai-compatible``, ...), ``api`` a base URL that may contain ``${ENV_VAR}``
    placeholders, ``shape`` the OpenAI API shape.

    ``wire`` is set only by settings (``models.<provider>.<model>.wire``): the API to call
    this model with, overriding the provider's; ``shape`` is its older alias for the two
    OpenAI APIs (``completions`` is ``openai-chat``, ``responses`` is ``openai-responses``).
    """

    id: str
    provider: str
    name: str = ""
    context: int = 0
    max_output: int = 0
    max_input: int | None = None
    cost: Cost | None = None
    vision: bool = False
    pdf: bool = False
    reasoning: bool = False
    tool_call: bool = True
    temperature: bool = True
    reasoning_options: list[ReasoningOption] = []
    interleaved_field: str | None = None
    interleaved: bool = False
    shape: WireShape | None = None
    wire: WireName | None = None
    npm: str | None = None
    api: str | None = None
    status: str | None = None
    release_date: str | None = None
    knowledge: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.id}"

    def effort_values(self) -> list[str]:
        for option in self.reasoning_options:
            if isinstance(option, EffortOption):
                return list(option.values)
        return []

    def budget_option(self) -> BudgetOption | None:
        for option in self.reasoning_options:
            if isinstance(option, BudgetOption):
                return option
        return None


__all__ = [
    "WIRE_NAMES",
    "BudgetOption",
    "Cost",
    "EffortOption",
    "ModelInfo",
    "ReasoningOption",
    "ToggleOption",
    "WireName",
    "WireShape",
]
