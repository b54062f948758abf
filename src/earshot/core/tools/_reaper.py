"""Tool processes never outlive earshot.

::

    REAPER              the process-wide watchdog (POSIX; does nothing on Windows)
      .watch(pgid)      a tool's process group to kill if earshot dies (and the groups
                        found empty meanwhile forgotten, in the same write)
      .forget(pgid)     the group was killed or is empty
    Ledger(path)        a session's record of its live groups, kept on disk
      .update(add=, remove=)  mirrors watch, one small write
      .forget(pgid)     mirrors forget; written with the next update, or at exit
    kill_leftovers(path)  on resume: kill the groups a dead earshot left, when they are
                          provably the ones it started (Linux), then clear the record

Each tool command runs in its own session, so that killing its process group reaches
everything it started; but a new session also detaches it from earshot's life, so a
``kill -9`` of earshot would leave it running. The watchdog ties them together: one
``/bin/sh`` started on the first spawn, in its own process group (so a Ctrl-C aimed at
earshot does not reach it), ignoring INT, HUP, TERM and QUIT, reading ``+pgid`` and
``-pgid`` lines from a pipe whose write end only earshot holds (close-on-exec, so no tool
inherits it). However earshot ends, normal exit or ``kill -9``, the kernel closes that end;
the watchdog reads end of file, kills every group still registered and exits. It costs one
shell process per earshot process and a few bytes per command.

A group is forgotten once it was killed or found empty (``os.killpg(pgid, 0)`` fails), so
the watchdog never signals a number the system may have handed to someone else since; the
window left is a group that emptied since the last spawn (each spawn looks).

If the watchdog itself was killed too (a whole-machine kill, the OOM killer), the session's
``Ledger`` remembers the groups; resuming the session kills those still alive whose leader
has the recorded start time, or, the leader gone, whose members all started after it
(``/proc``, Linux only; elsewhere nothing is killed that cannot be proven ours).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import msgspec

from earshot._base.jsonfile import JSONFileError, load_json_object
from earshot.providers.types import JSONObject

_SCRIPT = r"""
trap '' INT HUP TERM QUIT PIPE
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups${line#+} " ;;
    -*) id=${line#-}
        case "$groups" in *" $id "*) groups="${groups%% $id *} ${groups#* $id }" ;; esac ;;
  esac
done
for g in $groups; do kill -9 -"$g" 2>/dev/null; done
"""


class Reaper:
    """The watchdog of this process (see the module docstring). Thread-safe; every method
    is a no-op on Windows and when ``/bin/sh`` cannot be started."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._pid: int | None = None
        self._groups: set[int] = set()
        self._broken = sys.platform == "win32"

    @property
    def pid(self) -> int | None:
        """The watchdog's pid, once started."""
        return self._pid

    def _start(self) -> None:
        read_end, write_end = os.pipe()
        try:
            actions: list[tuple[int, int, int] | tuple[int, int, str, int, int]] = [
                (os.POSIX_SPAWN_DUP2, read_end, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ]
            self._pid = os.posix_spawn(
                "/bin/sh",
                ["/bin/sh", "-c", _SCRIPT],
                {"PATH": os.environ.get("PATH", "/usr/bin:/bin")},  # no secrets in its env
                file_actions=actions,
                setpgroup=0,
            )
        except OSError:
            os.close(write_end)
            self._broken = True
            return
        finally:
            os.close(read_end)
        self._fd = write_end

    def _send(self, line: str) -> None:
        if self._fd is None:
            return
        try:
            os.write(self._fd, line.encode())
        except OSError:
            self._broken = True

    def watch(self, pgid: int) -> list[int]:
        """Hand group ``pgid`` to the watchdog, and forget the groups that are empty now
        (returned): one write, so the watchdog wakes once a command."""
        with self._lock:
            if self._broken:
                return []
            if self._fd is None:
                self._start()
            gone = [group for group in self._groups if not group_alive(group)]
            self._groups.difference_update(gone)
            self._groups.add(pgid)
            self._send("".join(f"-{group}\n" for group in gone) + f"+{pgid}\n")
            return gone

    def forget(self, pgid: int) -> None:
        with self._lock:
            if pgid in self._groups:
                self._groups.discard(pgid)
                self._send(f"-{pgid}\n")

    @property
    def groups(self) -> frozenset[int]:
        return frozenset(self._groups)


REAPER = Reaper()


def group_alive(pgid: int) -> bool:
    """Whether any process is left in group ``pgid`` (POSIX)."""
    if sys.platform == "win32":
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- the on-disk record, for resume ---------------------------------------------------------


def _start_ticks(pid: int) -> int | None:
    """A process's start time in clock ticks since boot (Linux ``/proc``), else None."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def _members(pgid: int) -> list[tuple[int, int]]:
    """``(pid, start ticks)`` of every process in group ``pgid`` (Linux ``/proc``)."""
    found: list[tuple[int, int]] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 19 and fields[2] == str(pgid) and fields[19].isdigit():
            found.append((int(name), int(fields[19])))
    return found


class Ledger:
    """A session's live tool groups on disk (``{"groups": {pgid: start ticks}}``).

    The file stays open while it lists a group, and each change rewrites it in place with
    one ``pwrite`` at offset 0, padded with spaces to the length it had (a spawn should not
    wait for a new file and a rename: this is on the path of every command). No fsync:
    the record is a best effort for a crash. A write is one system call of a few bytes, so
    a killed earshot leaves the old record or the new one; were it ever torn, the record
    would not parse, and a resume kills nothing it cannot prove its own."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._groups: dict[int, int] = {}
        self._lock = threading.Lock()
        self._stale = False
        """The file still lists a group ``forget`` dropped."""
        self._flush_at_exit = False
        self._fd: int | None = None
        self._size = 0
        """The length of the file: a shorter record is padded to it."""

    def _save(self) -> None:
        if not self._groups:
            self._close()
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)
            return
        value: JSONObject = {"groups": {str(k): v for k, v in sorted(self._groups.items())}}
        data = msgspec.json.encode(value)
        try:
            if self._fd is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                self._size = 0
            os.pwrite(self._fd, data.ljust(self._size), 0)
            self._size = max(self._size, len(data))
        except OSError:
            self._close()

    def _close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def update(self, *, add: int | None = None, remove: Sequence[int] = ()) -> None:
        """Record a new group and forget finished ones, in one write."""
        with self._lock:
            changed = self._stale
            for pgid in remove:
                changed = self._groups.pop(pgid, None) is not None or changed
            if add is not None:
                self._groups[add] = _start_ticks(add) or 0
                changed = True
            if changed:
                self._save()
                self._stale = False

    def forget(self, pgid: int) -> None:
        """Drop a group that was killed, without a write of its own: the file catches up
        with the next ``update`` or at exit. Until then it may still list the group, which
        is harmless: a resume kills only groups provably its own, and a dead one is not."""
        with self._lock:
            if self._groups.pop(pgid, None) is None:
                return
            self._stale = True
            if not self._flush_at_exit:
                self._flush_at_exit = True
                atexit.register(self.flush)

    def flush(self) -> None:
        """Write what ``forget`` left unwritten (removing the file when no group is left)."""
        self.update()


def kill_leftovers(path: Path) -> list[int]:
    """Kill the groups a previous earshot recorded in ``path`` and left alive, when they
    are provably its own (see the module docstring); remove the record. Returns the
    groups killed."""
    try:
        data = load_json_object(path)
    except JSONFileError:
        data = None
    killed: list[int] = []
    groups = data.get("groups") if data is not None else None
    if isinstance(groups, dict) and sys.platform.startswith("linux"):
        for key, started in groups.items():
            if not key.isdigit() or not isinstance(started, int) or started <= 0:
                continue
            pgid = int(key)
            leader = _start_ticks(pgid)
            members = _members(pgid)
            ours = leader == started or (
                leader is None and bool(members) and all(t >= started for _, t in members)
            )
            if ours and members:
                with contextlib.suppress(OSError):
                    os.killpg(pgid, signal.SIGKILL)
                    killed.append(pgid)
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
    return killed


__all__ = ["REAPER", "Ledger", "Reaper", "group_alive", "kill_leftovers"]
