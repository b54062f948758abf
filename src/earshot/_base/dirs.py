"""Where earshot keeps its configuration: ``$XDG_CONFIG_HOME/earshot``, ``%APPDATA%\\earshot``
on Windows, else ``~/.config/earshot``; where it keeps state (``state_dir``); and a
directory's project (``project_root``). Standard library only: the interactive UI asks
``project_root`` before its first paint."""

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


def project_root(cwd: Path) -> Path:
    """The nearest directory at or above ``cwd`` holding ``.earshot/`` or ``.git``, else
    ``cwd``."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".earshot").is_dir() or (directory / ".git").exists():
            return directory
    return cwd


__all__ = ["config_dir", "project_root", "state_dir"]
