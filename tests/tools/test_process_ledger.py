"""The session's record of its live tool process groups, as a resume reads it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from earshot.core.tools._reaper import Ledger


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
