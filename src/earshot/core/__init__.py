"""Agent loop, tools, permissions, sessions, context shapers, undo, scope and config.

`core` depends on `providers` only; it never imports `mcp`, `acp`, `tui` or `cli`.
``AgentSession`` (``core.agent_session``), the one object a front-end holds, is exported
here too; it is imported on first use, so importing a small part of core stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earshot.core.agent_session import AgentSession


def __getattr__(name: str) -> object:
    if name == "AgentSession":
        from earshot.core.agent_session import AgentSession

        return AgentSession
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AgentSession"]
