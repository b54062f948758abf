"""What a model call cost, in USD, from the catalog's prices (USD per million tokens).

Each ``Usage`` field is priced once (see ``earshot.providers.types``): ``input`` at the input
price, ``cache_read`` and ``cache_write`` at their own prices (the input price when the
catalog has none), and ``output`` at the output price, except its ``reasoning`` share, which
is priced at the reasoning price when the catalog gives one.

Long-context tier: when the call's prompt (``input + cache_read + cache_write``) is over
``LONG_CONTEXT_TOKENS`` and the model has a ``context_over_200k`` tier, every token of the call
is priced from that tier. A price the tier lacks keeps its ratio to the tier's base price
(a cache read at 10% of input stays at 10% of the tier's input).
"""

from __future__ import annotations

from typing import NamedTuple

from earshot.providers.models import Cost, ModelInfo
from earshot.providers.types import Usage

LONG_CONTEXT_TOKENS = 200_000


class Prices(NamedTuple):
    """Resolved USD-per-million prices for one call, every field set."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    reasoning: float


def prices_for(cost: Cost, prompt_tokens: int = 0) -> Prices:
    """The prices that apply to a call whose prompt has ``prompt_tokens`` tokens."""
    base = Prices(
        input=cost.input,
        output=cost.output,
        cache_read=cost.input if cost.cache_read is None else cost.cache_read,
        cache_write=cost.input if cost.cache_write is None else cost.cache_write,
        reasoning=cost.output if cost.reasoning is None else cost.reasoning,
    )
    tier = cost.context_over_200k
    if tier is None or prompt_tokens <= LONG_CONTEXT_TOKENS:
        return base
    return Prices(
        input=tier.input,
        output=tier.output,
        cache_read=_tier_price(tier.cache_read, base.cache_read, tier.input, base.input),
        cache_write=_tier_price(tier.cache_write, base.cache_write, tier.input, base.input),
        reasoning=_tier_price(tier.reasoning, base.reasoning, tier.output, base.output),
    )


def _tier_price(given: float | None, base: float, tier_ref: float, base_ref: float) -> float:
    if given is not None:
        return given
    if base_ref == 0:
        return tier_ref
    return base * tier_ref / base_ref


def cost_usd(usage: Usage, info: ModelInfo) -> float | None:
    """USD for one call's ``usage`` on ``info``'s model; None when the catalog has no prices
    for it (a free model has prices of zero and costs 0.0)."""
    if info.cost is None:
        return None
    p = prices_for(info.cost, usage.prompt_total)
    reasoning = min(max(usage.reasoning, 0), usage.output)
    total = (
        usage.input * p.input
        + usage.cache_read * p.cache_read
        + usage.cache_write * p.cache_write
        + (usage.output - reasoning) * p.output
        + reasoning * p.reasoning
    )
    return total / 1_000_000


__all__ = ["LONG_CONTEXT_TOKENS", "Prices", "cost_usd", "prices_for"]
