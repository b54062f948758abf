"""What the fake provider saw: one ``RecordedRequest`` per HTTP request, in arrival order."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from earshot.providers.types import JSONValue


@dataclass(frozen=True)
class RecordedRequest:
    """One request as received. ``path`` has no query string; header names are lower-case
    (a repeated header keeps its last value); ``body`` is the raw bytes after de-chunking."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    received_at: float = field(default=0.0, compare=False)
    """``time.perf_counter()`` in the server's process when the body had arrived."""

    def json(self) -> dict[str, JSONValue]:
        """The body parsed as a JSON object; raises ``AssertionError`` if it is not one."""
        try:
            value = json.loads(self.body)
        except ValueError as exc:
            raise AssertionError(f"{self.method} {self.path}: body is not JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise AssertionError(f"{self.method} {self.path}: body is not a JSON object")
        parsed: dict[str, JSONValue] = value
        return parsed
