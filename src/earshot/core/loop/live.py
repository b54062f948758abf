"""``LiveEvents``: events that happen while a tool call runs, yielded as they come.

A tool's ``run`` is an awaitable, not a stream, so a tool that does a long job of its own
(the ``task`` tool runs a subagent) puts its progress here, and the tool batch, while such
a call runs, yields what arrives between the events it yields itself::

    call runs in its own task --put--> LiveEvents --during()--> the batch's events

``during`` is the only consumer. It never yields inside a task group or cancel scope (the
work runs in a separate asyncio task), so the turn's generator can be suspended at any of
its events safely; when the generator is closed or cancelled early, the work is cancelled.
Order: every event put before the work returned is yielded before ``during`` ends.

A report that only matters while it is the newest (a running call's progress) is put with
``put_latest(key, ...)``: a newer one with the same key replaces it before it is yielded, and
``drop(key)`` withdraws it (the call finished first).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio

from earshot.core.loop.events import AgentEvent


class LiveEvents:
    def __init__(self) -> None:
        self._items: deque[AgentEvent] = deque()
        self._latest: dict[str, AgentEvent] = {}
        self._ready = anyio.Event()

    def put(self, event: AgentEvent) -> None:
        """Hand ``event`` to the running batch (never blocks)."""
        self._items.append(event)
        self._ready.set()

    def put_latest(self, key: str, event: AgentEvent) -> None:
        """Hand ``event`` over in place of any not yet yielded with the same ``key``."""
        self._latest[key] = event
        self._ready.set()

    def drop(self, key: str) -> None:
        """Withdraw the not yet yielded ``put_latest`` event of ``key``, if any."""
        self._latest.pop(key, None)

    def _take(self) -> list[AgentEvent]:
        self._ready = anyio.Event()
        taken = [*self._items, *self._latest.values()]
        self._items.clear()
        self._latest.clear()
        return taken

    async def during(self, work: Callable[[], Awaitable[None]]) -> AsyncIterator[AgentEvent]:
        """Run ``work`` and yield the events put meanwhile; exceptions of ``work`` propagate
        after the events put before it failed."""

        async def run() -> None:
            try:
                await work()
            finally:
                self._ready.set()

        self._take()  # left over from a turn whose consumer stopped early: not this work's
        task = asyncio.ensure_future(run())
        try:
            while True:
                for event in self._take():
                    yield event
                if task.done():
                    break
                await self._ready.wait()
            for event in self._take():
                yield event
            task.result()
        finally:
            if not task.done():
                task.cancel()


__all__ = ["LiveEvents"]
