"""``open_servers``: the MCP servers of a directory as a session's ``ToolSource``, not
started yet (see servers.py), with the settings that tune them: ``mcpStartupTimeoutMs``,
``mcpToolTimeoutMs``, ``mcpToolSearch``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from earshot._base.dirs import state_dir
from earshot.core.config.settings import SettingsError, load_settings, project_root
from earshot.mcp.config import load_servers

if TYPE_CHECKING:
    from earshot.mcp.search import SearchPolicy
    from earshot.mcp.servers import McpServers


def _number(cwd: Path, key: str, default: int) -> int:
    value = default
    for source in load_settings(cwd).files:
        found = source.data.get(key)
        if found is None:
            continue
        if not isinstance(found, int) or isinstance(found, bool) or found <= 0:
            raise SettingsError(f'{source.path}: "{key}": must be a whole number of milliseconds')
        value = found
    return value


def _search(cwd: Path) -> SearchPolicy:
    from earshot.mcp.search import SearchPolicy

    policy = SearchPolicy()
    for source in load_settings(cwd).files:
        found = source.data.get("mcpToolSearch")
        if found is None:
            continue
        if not isinstance(found, bool):
            raise SettingsError(f'{source.path}: "mcpToolSearch": must be true or false')
        policy = SearchPolicy(enabled=found)
    return policy


def open_servers(cwd: Path) -> McpServers | None:
    """The servers configured for ``cwd`` (not started yet), or None when there are none.
    Untrusted project servers are kept, to be named in a notice; they never start.
    With none configured, only the configuration files are read (no client code loaded)."""
    root = project_root(cwd.resolve())
    configs = load_servers(root)
    if not configs:
        return None
    from earshot.mcp import trust
    from earshot.mcp.servers import DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, McpServers

    trusted = trust.state(root).trusted
    run = [c for c in configs if not c.needs_trust or trusted]
    held = [c for c in configs if c.needs_trust and not trusted]
    return McpServers(
        run,
        untrusted=held,
        startup_timeout_ms=_number(cwd, "mcpStartupTimeoutMs", DEFAULT_STARTUP_TIMEOUT_MS),
        tool_timeout_ms=_number(cwd, "mcpToolTimeoutMs", DEFAULT_TOOL_TIMEOUT_MS),
        log_dir=state_dir() / "mcp-logs",
        search=_search(cwd),
    )


__all__ = ["open_servers"]
