"""Catalog records: what earshot knows about a model (``ModelInfo``) and its prices.

Struct definitions only (never compiled with mypyc). ``ModelCatalog`` in ``catalog.py``
builds these from the vendored snapshot, the cached live refresh and user overrides.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec


class Cost(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """USD per million tokens. ``cache_read``/``cache_write`` default to the input price when
    the catalog has none; ``reasoning`` defaults to the output price."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float | None = None
    cache_write: float | None = None
    reasoning: float | None = None


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
    """One model of one provider. ``id`` is the vendor's model id (what goes on the wire)."""

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
    shape: WireShape | None = None
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
    "BudgetOption",
    "Cost",
    "EffortOption",
    "ModelInfo",
    "ReasoningOption",
    "ToggleOption",
    "WireShape",
]
