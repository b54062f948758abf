"""The ``sandbox`` settings: mode (auto | required | off), network, extra writable paths.

A checked-in project settings file may only tighten: it can require the sandbox, but not
turn it off, open the network or add writable paths (what it may not set is named in
``SandboxConfig.ignored``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import msgspec

from earshot.core.config.settings import SettingsError, SettingsFile
from earshot.providers.types import JSONValue

SandboxMode = Literal["auto", "required", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "required", "off")


class SandboxConfig(msgspec.Struct, frozen=True):
    """``ignored`` holds one message per setting a checked-in file may not make."""

    mode: SandboxMode = "auto"
    network: bool = False
    writable: tuple[Path, ...] = ()
    ignored: tuple[str, ...] = ()


def parse_mode(text: str) -> SandboxMode:
    for mode in SANDBOX_MODES:
        if text == mode:
            return mode
    raise ValueError(f"unknown sandbox mode {text!r}; use one of: {', '.join(SANDBOX_MODES)}")


def _fail(path: Path, where: str, message: str) -> SettingsError:
    return SettingsError(f"{path}: {where}: {message}")


def under(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or inside it (both real paths)."""
    return path == root or root in path.parents


def load_sandbox_config(
    files: Iterable[SettingsFile], project: Path, *, mode: SandboxMode | None = None
) -> SandboxConfig:
    """The ``sandbox`` settings of ``files`` (in scope order, later wins), then ``mode`` (the
    ``--sandbox`` flag) over them. The project scope may only tighten: what it may not set is
    left out and named in ``ignored``."""
    config_mode: SandboxMode = "auto"
    network = False
    writable: list[Path] = []
    ignored: list[str] = []
    for source in files:
        raw: JSONValue = source.data.get("sandbox")
        if raw is None:
            continue
        path = source.path
        if not isinstance(raw, dict):
            raise _fail(path, '"sandbox"', 'must be an object such as {"mode": "auto"}')
        checked_in = source.scope == "project"
        for key in raw:
            if key not in ("mode", "network", "writable"):
                raise _fail(
                    path, f'"sandbox.{key}"', "is not a sandbox setting (mode, network, writable)"
                )
        if "mode" in raw:
            value = raw["mode"]
            if not isinstance(value, str) or value not in SANDBOX_MODES:
                raise _fail(path, '"sandbox.mode"', 'must be "auto", "required" or "off"')
            chosen = parse_mode(value)
            if checked_in and chosen == "off":
                ignored.append(
                    f'{path}: "sandbox.mode": "off" ignored: a checked-in file cannot turn the '
                    "sandbox off (use your user or local settings, or --sandbox off)"
                )
            else:
                config_mode = chosen
        if "network" in raw:
            value = raw["network"]
            if not isinstance(value, bool):
                raise _fail(
                    path,
                    '"sandbox.network"',
                    "must be true or false (earshot cannot limit the network to some hosts)",
                )
            if checked_in and value:
                ignored.append(
                    f'{path}: "sandbox.network": true ignored: a checked-in file cannot open '
                    "the network to commands"
                )
            else:
                network = value
        if "writable" in raw:
            value = raw["writable"]
            if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
                raise _fail(
                    path, '"sandbox.writable"', 'must be a list of paths, e.g. ["~/.cache"]'
                )
            base = project if source.scope != "user" else Path.home()
            for item in value:
                assert isinstance(item, str)
                extra = Path(os.path.expanduser(item))
                extra = extra if extra.is_absolute() else base / extra
                extra = Path(os.path.realpath(extra))
                if checked_in and not under(extra, Path(os.path.realpath(project))):
                    ignored.append(
                        f'{path}: "sandbox.writable": {item!r} ignored: a checked-in file cannot '
                        "make paths outside the project writable"
                    )
                    continue
                writable.append(extra)
    return SandboxConfig(
        mode=mode if mode is not None else config_mode,
        network=network,
        writable=tuple(dict.fromkeys(writable)),
        ignored=tuple(ignored),
    )


__all__ = [
    "SANDBOX_MODES",
    "SandboxConfig",
    "SandboxMode",
    "load_sandbox_config",
    "parse_mode",
    "under",
]
