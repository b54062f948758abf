"""What the command line hands each front-end besides its options: the MCP servers of
the directory, as a ``core.extensions.SourceFactory`` (front-ends never import
``earshot.mcp``).

With no server configured this costs a look at four small files: ``earshot.mcp`` is
imported only when one of them mentions ``mcpServers``, and the ``mcp`` package only when
a server starts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earshot.core.extensions import ToolSource


def _mentioned(cwd: Path) -> bool:
    from earshot._base.dirs import config_dir
    from earshot.core.config.settings import project_root

    root = project_root(cwd.resolve())
    for path in (
        config_dir() / "settings.json",
        root / ".mcp.json",
        root / ".earshot" / "settings.json",
        root / ".earshot" / "settings.local.json",
    ):
        try:
            if b"mcpServers" in path.read_bytes():
                return True
        except OSError:
            continue
    return False


def mcp_servers(cwd: Path) -> ToolSource | None:
    """The directory's MCP servers, not started yet; None when none is configured."""
    if not _mentioned(cwd):
        return None
    from earshot.mcp.session import open_servers

    return open_servers(cwd)


__all__ = ["mcp_servers"]
