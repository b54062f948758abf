"""The session's record of its live tool process groups, as a resume reads it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from earshot.core.tools._reaper import Ledger, kill_leftovers


def recorded(path: Path) -> set[int]:
    if not path.exists():
        return set()
    return {int(k) for k in json.loads(path.read_text())["groups"]}


def test_a_started_group_is_on_disk_before_the_command_runs(tmp_path: Path) -> None:
    path = tmp_path / "processes" / "s.json"
    Ledger(path).update(add=os.getpid())
    assert recorded(path) == {os.getpid()}


def test_a_killed_group_leaves_the_record_with_the_next_start_or_at_the_latest_on_flush(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.json"
    ledger = Ledger(path)
    ledger.update(add=os.getpid())
    ledger.forget(os.getpid())
    ledger.update(add=os.getppid())
    assert recorded(path) == {os.getppid()}
    ledger.forget(os.getppid())
    ledger.flush()
    assert not path.exists()


def test_a_record_that_shrinks_lists_only_the_groups_left(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    ledger = Ledger(path)
    ledger.update(add=os.getpid())
    ledger.update(add=os.getppid())
    assert recorded(path) == {os.getpid(), os.getppid()}
    ledger.update(remove=[os.getppid()])
    assert recorded(path) == {os.getpid()}


def test_a_resume_kills_a_group_from_a_record_that_shrank(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        ledger = Ledger(path)
        ledger.update(add=os.getpid())
        ledger.update(add=sleeper.pid)
        ledger.update(remove=[os.getpid()])  # the record is now shorter than the file was
        assert kill_leftovers(path) == [sleeper.pid]
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert not path.exists()
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
