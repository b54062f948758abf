"""``race``: await something until it finishes or an abort event is set.

The one implementation of "abortable await" that the stream driver, the tool batch and the
tools share. The awaited work runs in the caller's task, in a task group with a watcher;
whichever ends first cancels the other, so an abort takes effect at the work's next await
(a socket read, a sleep, a subprocess wait). Exceptions from the work propagate unchanged,
never wrapped in a group.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


async def race(fn: Callable[[], Awaitable[T]], abort: anyio.Event | None) -> tuple[T | None, bool]:
    """``(result, aborted)``. With ``abort`` None, simply awaits ``fn()``."""
    if abort is None:
        return await fn(), False
    if abort.is_set():
        return None, True
    # The work runs in this task and only the watcher gets a task of its own: one task
    # and a few event-loop turns fewer than a task each (a stream pays this per chunk).
    box: list[T] = []
    errors: list[BaseException] = []
    async with anyio.create_task_group() as tg:

        async def watch() -> None:
            await abort.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(watch)
        try:
            box.append(await fn())
        except Exception as exc:
            errors.append(exc)
        tg.cancel_scope.cancel()
    if errors:
        raise errors[0]
    if box:
        return box[0], False
    return None, True


__all__ = ["race"]
