"""Input history per project, kept across runs, whose file is known only once the session
is open (the UI takes input before that; see ``main``).

The history is read on prompt-toolkit's history thread, which waits for ``open()``; until
then Up finds nothing, and lines sent are stored once the file is known.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, ThreadedHistory

WAIT_FOR_FILE = 30.0


class ProjectHistory(History):
    def __init__(self) -> None:
        super().__init__()
        self._file: FileHistory | None = None
        self._known = threading.Event()
        self._early: list[str] = []
        self._lock = threading.Lock()

    def open(self, path: Path | None) -> None:
        """Use ``path`` (None: keep history in memory only)."""
        file: FileHistory | None = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                file = FileHistory(str(path))
            except OSError:
                file = None
        with self._lock:
            self._file = file
            early, self._early = self._early, []
            self._known.set()
        for line in early:
            if file is not None:
                file.store_string(line)

    def load_history_strings(self) -> Iterable[str]:
        self._known.wait(WAIT_FOR_FILE)
        with self._lock:
            file = self._file
        return file.load_history_strings() if file is not None else []

    def store_string(self, string: str) -> None:
        with self._lock:
            if not self._known.is_set():
                self._early.append(string)
                return
            file = self._file
        if file is not None:
            file.store_string(string)


def project_history() -> tuple[ThreadedHistory, ProjectHistory]:
    inner = ProjectHistory()
    return ThreadedHistory(inner), inner


__all__ = ["ProjectHistory", "project_history"]
