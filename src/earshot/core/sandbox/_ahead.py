"""A confined shell started ahead of its command.

::

    Ahead.start(...)   bubblewrap with its namespaces and mounts set up, running a waiter
                       that reads the command from its stdin
    Ahead.take(...)    the waiting process, fed the command, when it was started exactly
                       as the command would be now; else None (it is stopped)
    Ahead.stop()       kill it and reap it

Setting up bubblewrap's namespaces and mounts costs about five milliseconds a command, on
the way from the model's reply to the command. The loop starts one as soon as the model
begins a shell call (while the call still streams, and its permission is decided), so the
command finds it ready. It is used only when everything bubblewrap was given is what the
command would get now: the same arguments (mounts, protected paths as they exist now, the
working directory), environment and shell; otherwise it is stopped and the command is
started the ordinary way. So each command still runs in a sandbox of its own (its own
/tmp, no process of another command in sight), set up as if it were started just then.

The waiter is ``/bin/sh``: it reads the command to the end of its stdin, sets stdin to
/dev/null and replaces itself with ``<shell> -c <command>``, the argv and environment the
command would have had; dash changes no variable of the environment on the way.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from earshot.core.tools._child import Child
from earshot.core.tools.ops import LocalProcessOps

_WAIT = 'c=$("$1"; echo x) && exec "$0" -c "${c%x}" </dev/null'
"""``$0`` the shell, ``$1`` cat: every byte of the command is kept (the ``x`` keeps the
newlines a command substitution would strip)."""


def waiter(shell: str) -> list[str] | None:
    """The waiter's argv for ``shell`` (None without ``cat`` on PATH)."""
    cat = shutil.which("cat")
    return None if cat is None else ["/bin/sh", "-c", _WAIT, shell, cat]


class Ahead:
    """At most one confined shell started ahead (see the module docstring)."""

    def __init__(self) -> None:
        self._ready: _Ready | None = None

    @property
    def ready(self) -> bool:
        return self._ready is not None

    @property
    def mount_points(self) -> tuple[Path, ...]:
        """The mount points the ready bubblewrap created for missing protected paths."""
        return self._ready.created if self._ready is not None else ()

    def start(
        self,
        procs: LocalProcessOps,
        head: list[str],
        shell: str,
        *,
        cwd: Path,
        env: Mapping[str, str],
        created: Sequence[Path],
    ) -> None:
        """Start bubblewrap's ``head`` (its arguments up to ``--``, which create the mount
        points ``created``) with the waiter for ``shell``, unless one is ready."""
        tail = waiter(shell)
        if self._ready is not None or tail is None:
            return
        try:
            child = procs.spawn_fed([*head, *tail], cwd=cwd, env=env)
        except OSError:
            return
        if child is not None:
            self._ready = _Ready(head, shell, cwd, dict(env), child, procs, tuple(created))

    def take(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> Child | None:
        """The ready process, fed the command, when ``argv`` (bubblewrap's arguments, then
        ``<shell> -c <command>``) is what it was started as, with the same ``cwd`` and
        ``env``; None otherwise (then ``stop`` it)."""
        ready = self._ready
        if ready is None or len(argv) < 4 or list(argv[-3:-1]) != [ready.shell, "-c"]:
            return None
        if list(argv[:-3]) != ready.head or cwd != ready.cwd or dict(env) != ready.env:
            return None
        if ready.child.returncode is not None:
            return None  # it could not wait (it failed to start): ``stop`` reaps it
        self._ready = None
        ready.child.feed(argv[-1].encode("utf-8", "surrogateescape"))
        return ready.child

    async def stop(self) -> None:
        """Kill the ready process (its whole group) and reap it."""
        ready, self._ready = self._ready, None
        if ready is None:
            return
        ready.procs.kill_tree(ready.child)
        with contextlib.suppress(OSError):
            await ready.child.aclose()


@dataclass(frozen=True)
class _Ready:
    head: list[str]
    shell: str
    cwd: Path
    env: dict[str, str]
    child: Child
    procs: LocalProcessOps
    created: tuple[Path, ...]


__all__ = ["Ahead", "waiter"]
