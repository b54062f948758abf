"""``Tui``: what a terminal command needs of the running UI (``app.Tui`` is the one).
Its own module so that ``commands`` and the commands it loads lazily (``_scope``) both
name it without importing each other.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from earshot.core.agent_session import AgentSession
    from earshot.core.loop.events import AgentEvent
    from earshot.providers import types as pt


class Tui(Protocol):
    """What a command needs of the running UI (``app.Tui``)."""

    @property
    def session(self) -> AgentSession: ...

    buffer: Buffer

    def say(self, text: str) -> None: ...

    def error(self, text: str) -> None: ...

    def exit(self) -> None: ...

    def adopt(self, session: AgentSession) -> None: ...

    def replay(self, history: list[pt.Message], limit: int = 20) -> None: ...

    def send(self, text: str, turn_input: str | None = None) -> None: ...

    async def stream_events(self, events: AsyncIterator[AgentEvent]) -> None: ...


__all__ = ["Tui"]
