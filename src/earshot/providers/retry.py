"""When to retry a failed model call, and how long to wait.

The policy mirrors the vendor SDKs: retry 408/409/429/5xx/529 answers and connection
failures (``ProviderError.retryable``), wait what the vendor asked (``retry-after-ms``,
``retry-after``, Gemini ``RetryInfo``) when that is at most ``max_retry_after`` and give up
when it asks for longer, else back off exponentially with jitter. A call is retried only
before its stream produced any event: deltas already delivered are never re-emitted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from earshot.providers.errors import ProviderError

if TYPE_CHECKING:
    import random

DEFAULT_MAX_RETRIES = 2
"""Retries after the first try, as the vendor SDKs do: three attempts in all."""
MAX_RETRIES = 10
"""The most a user may ask for (settings ``maxRetries``, ``EARSHOT_MAX_RETRIES``)."""


class RetryPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """``max_retries`` counts retries after the first try: 0 means one attempt. Behind a
    gateway that retries on its own (LiteLLM, OpenRouter), attempts multiply; set
    ``maxRetries`` to 0 there."""

    max_retries: int = DEFAULT_MAX_RETRIES
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    jitter: float = 0.25

    def delay(
        self, retry: int, error: ProviderError, rng: random.Random | None = None
    ) -> float | None:
        """Seconds to wait before retry number ``retry`` (0-based), or None to give up."""
        if not error.retryable or retry >= self.max_retries:
            return None
        if error.retry_after is not None:
            if error.retry_after > self.max_retry_after:
                return None
            return error.retry_after
        backoff = min(self.base_delay * (2.0**retry), self.max_delay)
        import random  # with hashlib: loaded by the first retry, not at start-up

        draw = (rng or random).random()
        return backoff * (1.0 - self.jitter * draw)


NO_RETRY = RetryPolicy(max_retries=0)

__all__ = ["DEFAULT_MAX_RETRIES", "MAX_RETRIES", "NO_RETRY", "RetryPolicy"]
