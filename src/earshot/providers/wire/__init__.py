"""Wire adapters: one module (or subpackage) per vendor API; ``base`` says what an adapter
is. Adding a wire is its module plus one line in ``_MODULES``.

``get_wire`` imports an adapter module only when a target first needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from earshot.providers.errors import ProviderError

if TYPE_CHECKING:
    from earshot.providers.target import WireName
    from earshot.providers.wire.base import Wire

_MODULES: dict[str, str] = {
    "anthropic-messages": "earshot.providers.wire.anthropic",
    "openai-chat": "earshot.providers.wire.openai_chat",
    "openai-responses": "earshot.providers.wire.openai_responses",
    "google-gemini": "earshot.providers.wire.gemini",
    "amazon-bedrock": "earshot.providers.wire.bedrock",
    "google-vertex": "earshot.providers.wire.vertex",
    "azure-openai": "earshot.providers.wire.azure",
}


def implemented_wires() -> list[str]:
    return sorted(_MODULES)


def get_wire(name: WireName) -> Wire:
    """The adapter for a wire. A reserved wire with no adapter yet is an ``invalid_request``
    error that says so."""
    module_name = _MODULES.get(name)
    if module_name is None:
        raise ProviderError(
            "invalid_request",
            f"the {name} wire is not implemented yet in this version of earshot",
            retryable=False,
        )
    module = importlib.import_module(module_name)
    wire: Wire = module.WIRE
    return wire


def assumed_max_output(name: WireName) -> int | None:
    """The output limit a wire sends for a model without catalog facts; None when it sends
    none and the server decides."""
    if name == "anthropic-messages":
        from earshot.providers.wire.anthropic._request import DEFAULT_MAX_TOKENS

        return DEFAULT_MAX_TOKENS
    return None


__all__ = ["assumed_max_output", "get_wire", "implemented_wires"]
