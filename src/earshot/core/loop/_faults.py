"""What the loop does with provider faults it cannot hide: the retry notice every front-end
shows before a wait, and how deep each compaction after a context overflow cuts.

::

    retry_notice(Retrying) -> Notice        "retrying in 4 s (rate limited, attempt 2/3)"
    SQUEEZE_KEEP                            tool batches kept by the 1st, 2nd, ... overflow
                                            compaction (None: the policy's, fewer if needed)
    squeeze_window(window, refused)         the window to size a cut against: under the
                                            estimate of the request the provider refused
    unfit_error(error, ...)                 the overflow once nothing is left to cut: the
                                            window, and what could not be cut
"""

from __future__ import annotations

import msgspec

from earshot.core.loop.events import Notice, RetryInfo
from earshot.providers import types as pt
from earshot.providers.stream import retry_text

SQUEEZE_KEEP: tuple[int | None, ...] = (None, 2, 1, 0)


def retry_notice(event: pt.Retrying) -> Notice:
    """A provider retry as the notice every front-end shows before the wait."""
    info = RetryInfo(
        attempt=event.attempt,
        max_attempts=event.max_attempts,
        kind=event.kind,
        reason=event.reason,
        delay_s=event.delay,
        error=event.message,
    )
    return Notice(level="warning", message=retry_text(event), retry=info)


def squeeze_window(window: int, refused: int) -> int:
    """The provider refused a request estimated at ``refused`` tokens: its real limit is
    below that, whatever the catalog says, so cut against 90% of it."""
    return min(window, max(1, int(refused * 0.9)))


def unfit_error(error: pt.ErrorEvent, *, window: int, overhead: int, tokens: int) -> pt.ErrorEvent:
    """``error`` with what a person needs once compaction can cut no more."""
    conversation = max(0, tokens - overhead)
    message = (
        f"{error.message} -- the request does not fit the model's context window "
        f"({window:,} tokens) even after compacting: what could not be cut is about "
        f"{overhead:,} tokens of system prompt and tool definitions plus {conversation:,} "
        "of conversation (the summary, the typed prompt and the latest tool results); use a "
        "model with a larger window, or a shorter prompt"
    )
    return msgspec.structs.replace(error, message=message)


__all__ = ["SQUEEZE_KEEP", "retry_notice", "squeeze_window", "unfit_error"]
