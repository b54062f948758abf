"""What a front-end can add to a session besides fixed tools: a ``ToolSource``.

::

    ToolSource      tools that may arrive after the session opens (MCP servers, through
                    ``earshot.mcp``; core never knows which), and slash commands
      ready()       -> notices      wait until started, bounded by the source's own
                                    timeout; each notice is returned once
      tools(window) -> tools        the tools to offer in the next model call
      commands()    -> ExtraCommand the slash commands it adds (``/mcp``, server prompts)
    SourceFactory   cwd -> ToolSource | None     what the command line hands a front-end

The loop awaits ``ready()`` before every model call (raced against an abort) and asks for
``tools()`` each time, so a tool found mid-turn (tool search) is callable in the next call.
A source is opened by the front-end and closed by it (``aclose``); an ``AgentSession`` that
is replaced (``/clear``, ``/resume``) hands the same sources to its successor.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

import msgspec

from earshot.core.tools.base import AnyTool


class ExtraReply(msgspec.Struct, frozen=True, kw_only=True):
    """What an added command answers: ``text`` to show, or ``send`` as the next prompt."""

    text: str = ""
    error: bool = False
    send: str | None = None


class ExtraCommand(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    about: str
    run: Callable[[str], Awaitable[ExtraReply]]
    hint: str = ""
    everywhere: bool = False


class ToolSource(Protocol):
    async def ready(self) -> Sequence[str]: ...

    def tools(self, window: int) -> Sequence[AnyTool]: ...

    def commands(self) -> Sequence[ExtraCommand]: ...

    async def aclose(self) -> None: ...


SourceFactory = Callable[[Path], "ToolSource | None"]


__all__ = ["ExtraCommand", "ExtraReply", "SourceFactory", "ToolSource"]
