"""What the command line hands each front-end besides its options: the MCP servers of
the directory, as a ``core.extensions.SourceFactory`` (front-ends never import
``earshot.mcp``). Reading the configuration imports nothing of the ``mcp`` package."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earshot.core.extensions import ToolSource


def mcp_servers(cwd: Path) -> ToolSource | None:
    """The directory's MCP servers, not started yet; None when none is configured."""
    from earshot.mcp.session import open_servers

    return open_servers(cwd)


__all__ = ["mcp_servers"]
