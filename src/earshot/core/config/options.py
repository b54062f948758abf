"""``SessionOptions``: what a session is opened with, the flags every front-end shares.

Light on purpose (a dataclass, nothing else of core): the TUI builds it before the agent's
modules are loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    cwd: Path
    model: str | None = None
    effort: str | None = None
    permission_mode: str | None = None
    sandbox: str | None = None
    allow: Sequence[str] = ()
    ask: Sequence[str] = ()
    deny: Sequence[str] = ()
    resume: str | None = None
    continue_latest: bool = False
    fork: bool = False
    max_turns: int | None = None
    max_budget_usd: float | None = None
    append_system_prompt: str = ""
    connect_early: bool = False
    """Open the connection to the model's provider while the session is built: for a run
    that sends its first request as soon as the session is open (``earshot -p``)."""


__all__ = ["SessionOptions"]
