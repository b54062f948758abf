"""Project trust: what a checked-in file would run, and whether the user said yes to it.

::

    $XDG_CONFIG_HOME/earshot/trust.json
        {"projects": {"/abs/project/root": {"sha256": "<hash of the definitions>"}}}
        ("declined_sha256" instead: the user said no to these; the TUI does not ask again)

``definitions(root)`` is what the project's checked-in files define that runs code (MCP
servers and hooks, from ``core.extend.trust``), as written. The user's yes is recorded with the hash
of exactly those definitions: when one changes, is added or is removed, the hash differs
and the project is untrusted again until ``earshot trust`` is run once more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from earshot._base.json import JSONObject
from earshot._base.jsonfile import JSONFileError, load_json_object, write_json_atomic
from earshot.core.extend import trust as core_trust
from earshot.mcp.config import McpConfigError, project_definitions

trust_file = core_trust.trust_file
digest = core_trust.digest


def _load() -> JSONObject:
    try:
        data = load_json_object(trust_file())
    except JSONFileError as exc:
        raise McpConfigError(str(exc)) from exc
    return data or {}


def _projects(data: JSONObject) -> JSONObject:
    projects = data.get("projects")
    return projects if isinstance(projects, dict) else {}


@dataclass(frozen=True)
class TrustState:
    """``defined``: the project defines something that needs trust; ``trusted``: the user
    trusted exactly these definitions; ``changed``: they trusted other definitions;
    ``declined``: they said no to exactly these."""

    root: Path
    definitions: JSONObject
    defined: bool
    trusted: bool
    changed: bool
    declined: bool = False


def state(root: Path) -> TrustState:
    definitions = project_definitions(root)
    entry = _projects(_load()).get(str(root))
    recorded = entry.get("sha256") if isinstance(entry, dict) else None
    refused = entry.get("declined_sha256") if isinstance(entry, dict) else None
    now = digest(definitions)
    trusted = recorded == now
    return TrustState(
        root=root,
        definitions=definitions,
        defined=bool(definitions),
        trusted=trusted,
        changed=recorded is not None and not trusted,
        declined=refused == now,
    )


def grant(root: Path) -> TrustState:
    """Record the user's yes to what ``root`` defines now."""
    data = _load()
    projects = _projects(data)
    projects[str(root)] = {"sha256": digest(project_definitions(root))}
    write_json_atomic(trust_file(), {**data, "projects": projects}, mode=0o600)
    return state(root)


def decline(root: Path) -> None:
    """Record the user's no to what ``root`` defines now (asked once, not again)."""
    data = _load()
    projects = _projects(data)
    projects[str(root)] = {"declined_sha256": digest(project_definitions(root))}
    write_json_atomic(trust_file(), {**data, "projects": projects}, mode=0o600)


def revoke(root: Path) -> bool:
    """Take the yes back; whether there was one."""
    data = _load()
    projects = _projects(data)
    entry = projects.pop(str(root), None)
    had = isinstance(entry, dict) and "sha256" in entry
    if had:
        write_json_atomic(trust_file(), {**data, "projects": projects}, mode=0o600)
    return had


__all__ = ["TrustState", "decline", "digest", "grant", "revoke", "state", "trust_file"]
