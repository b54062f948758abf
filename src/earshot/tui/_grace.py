"""Typed text never answers a permission prompt.

A prompt appears while the person may be typing their next message: "add tests" typed as
the prompt comes up must not press ``a`` (allow for the session). So a prompt takes no
answer until it has been on screen for ``GRACE_SECONDS`` with no key typed in that time;
until then the input box keeps the focus and every key goes on into the draft, which is
kept. The wait restarts with each key, so steady typing never answers a prompt; the choices
are shown only once the prompt is armed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

GRACE_SECONDS = 0.3
_POLL = 0.02


class TypingGrace:
    def __init__(self, grace: float = GRACE_SECONDS) -> None:
        self.grace = grace
        self.last_key = 0.0

    def typed(self) -> None:
        """A key went into the draft."""
        self.last_key = time.monotonic()

    async def wait(self, drawn: Callable[[], float | None]) -> None:
        """Return once the prompt has been drawn (``drawn()`` says when, None before) and
        neither it nor a key is younger than the grace period. Keys waiting in the
        terminal are read before a timer fires (the event loop handles input first), so a
        key already typed always resets the wait before it can end."""
        while True:
            shown = drawn()
            if shown is None:
                await asyncio.sleep(_POLL)
                continue
            ready = max(shown, self.last_key) + self.grace
            now = time.monotonic()
            if now >= ready:
                return
            await asyncio.sleep(ready - now)


__all__ = ["GRACE_SECONDS", "TypingGrace"]
