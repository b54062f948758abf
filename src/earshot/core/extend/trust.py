"""What a project's checked-in files would run, and whether the user trusts exactly that.

::

    definitions(root)  -> {"mcpServers": {...}, "hooks": {...}}   as written, in
                          ``.mcp.json``, ``.earshot/settings.json`` and (hooks only)
                          ``.claude/settings.json``
    digest(definitions), trust_file()                 $XDG_CONFIG_HOME/earshot/trust.json
    trusted(root)      -> bool    the user's yes was recorded for these very definitions

The store is written by ``earshot trust`` (``earshot.mcp.trust``, which uses these same
definitions and digest): one yes covers the project's MCP servers and its hooks, and a
change to any of them makes the project untrusted again. It lives in core because the
session decides here whether project hooks run. ``project_files`` needs no JSON library:
the interactive UI asks it before its first paint (msgspec and hashlib load when needed).
"""

from __future__ import annotations

from pathlib import Path

from earshot._base.dirs import config_dir
from earshot._base.errors import UserError
from earshot._base.json import JSONObject


def project_files(root: Path) -> list[Path]:
    """The checked-in files that can define what runs: servers and hooks (Claude Code's
    ``.claude/settings.json`` for its hooks only)."""
    return [root / ".mcp.json", root / ".earshot" / "settings.json", *_hooks_only(root)]


def _hooks_only(root: Path) -> list[Path]:
    return [root / ".claude" / "settings.json"]


def definitions(root: Path) -> JSONObject:
    """What those files define that runs code, as written (``JSONFileError`` for a file
    that cannot be read). Keyed ``<file>:<name>``: the bare file name for ``.mcp.json`` and
    ``.earshot/settings.json`` (as trust was first recorded), ``.claude/settings.json``
    in full."""
    from earshot._base.jsonfile import load_json_object

    servers: JSONObject = {}
    hooks: JSONObject = {}
    for path in project_files(root):
        data = load_json_object(path)
        if data is None:
            continue
        hooks_only = path in _hooks_only(root)
        label = path.relative_to(root).as_posix() if hooks_only else path.name
        block = data.get("mcpServers")
        if isinstance(block, dict) and not hooks_only:
            for name, raw in block.items():
                servers[f"{label}:{name}"] = raw
        events = data.get("hooks")
        if isinstance(events, dict):
            for event, raw in events.items():
                hooks[f"{label}:{event}"] = raw
    found: JSONObject = {}
    if servers:
        found["mcpServers"] = servers
    if hooks:
        found["hooks"] = hooks
    return found


def trust_file() -> Path:
    return config_dir() / "trust.json"


def digest(defined: JSONObject) -> str:
    import hashlib

    import msgspec

    canonical = msgspec.json.encode(defined, order="sorted")
    return hashlib.sha256(canonical).hexdigest()


def trusted(root: Path) -> bool:
    """Whether the user trusted exactly what ``root`` defines now."""
    from earshot._base.jsonfile import load_json_object

    data = load_json_object(trust_file()) or {}
    projects = data.get("projects")
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    recorded = entry.get("sha256") if isinstance(entry, dict) else None
    return recorded is not None and recorded == digest(definitions(root))


def quietly_trusted(root: Path) -> bool:
    """``trusted``, with an unreadable trust file or definition counting as "not trusted"
    (the settings loader reports a broken settings file itself)."""
    try:
        return trusted(root)
    except UserError:
        return False


__all__ = [
    "definitions",
    "digest",
    "project_files",
    "quietly_trusted",
    "trust_file",
    "trusted",
]
