"""Where earshot keeps its configuration: ``$XDG_CONFIG_HOME/earshot``, ``%APPDATA%\\earshot``
on Windows, else ``~/.config/earshot``; and where it keeps state (``state_dir``)."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir(env: dict[str, str] | None = None) -> Path:
    environ = os.environ if env is None else env
    base = environ.get("XDG_CONFIG_HOME", "").strip()
    if base:
        return Path(base) / "earshot"
    if os.name == "nt" and environ.get("APPDATA"):
        return Path(environ["APPDATA"]) / "earshot"
    return Path.home() / ".config" / "earshot"


def state_dir(env: dict[str, str] | None = None) -> Path:
    """Logs and other state worth keeping but not backing up: ``$XDG_STATE_HOME/earshot``
    (default ``~/.local/state/earshot``)."""
    environ = os.environ if env is None else env
    base = environ.get("XDG_STATE_HOME", "").strip()
    if base:
        return Path(base) / "earshot"
    return Path.home() / ".local" / "state" / "earshot"


__all__ = ["config_dir", "state_dir"]
