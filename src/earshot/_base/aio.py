"""``race``: await something until it finishes or an abort event is set. ``alongside``:
await something while handing out what it reports (``Latest``) as it goes.

The one implementation of "abortable await" that the stream driver, the tool batch and the
tools share. The awaited work runs in a task group with a watcher; whichever ends first
cancels the other, so an abort takes effect at the work's next await (a socket read, a
sleep, a subprocess wait). Exceptions from the work propagate unchanged, never wrapped in a
group.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from typing import Generic, TypeVar

import anyio

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


async def race(fn: Callable[[], Awaitable[T]], abort: anyio.Event | None) -> tuple[T | None, bool]:
    """``(result, aborted)``. With ``abort`` None, simply awaits ``fn()``."""
    if abort is None:
        return await fn(), False
    if abort.is_set():
        return None, True
    box: list[T] = []
    errors: list[BaseException] = []
    async with anyio.create_task_group() as tg:

        async def run() -> None:
            try:
                box.append(await fn())
            except Exception as exc:
                errors.append(exc)
            tg.cancel_scope.cancel()

        async def watch() -> None:
            await abort.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(run)
        tg.start_soon(watch)
    if errors:
        raise errors[0]
    if box:
        return box[0], False
    return None, True


class Latest(Generic[K, T]):
    """The latest report per key, not yet taken: a producer never waits and nothing piles
    up when the consumer is slow (a newer report replaces an older one of the same key)."""

    def __init__(self) -> None:
        self._items: dict[K, T] = {}
        self._wake = asyncio.Event()

    def put(self, key: K, item: T) -> None:
        self._items.pop(key, None)
        self._items[key] = item
        self._wake.set()

    def take(self) -> list[T]:
        """The reports put since the last take, oldest key first."""
        items = list(self._items.values())
        self._items.clear()
        self._wake.clear()
        return items

    async def wait(self) -> None:
        await self._wake.wait()


async def alongside(work: Callable[[], Awaitable[None]], reports: Latest[K, T]) -> AsyncIterator[T]:
    """Run ``work()`` to its end, yielding what it puts in ``reports`` meanwhile (what is
    left when it ends is dropped: it is out of date). Exceptions from the work propagate.

    The work runs in a task of its own, not in a task group around the ``yield``: a cancel
    scope held across a generator's yield breaks when the consumer stops early or is
    cancelled. Closing the generator (or cancelling its consumer) cancels the work and
    waits for it, so nothing it started outlives it."""
    task = asyncio.ensure_future(work())
    try:
        while not task.done():
            waiter = asyncio.ensure_future(reports.wait())
            try:
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
            if task.done():
                break
            for item in reports.take():
                yield item
        task.result()
    finally:
        if not task.done():
            task.cancel()
            with anyio.CancelScope(shield=True):
                await asyncio.wait({task})


__all__ = ["Latest", "alongside", "race"]
