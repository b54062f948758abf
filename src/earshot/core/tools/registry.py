"""The built-in tools, as an explicit list (no loading by module name).

``BUILTIN`` is what every session offers, in the order the model sees them; extra tools
(MCP, extensions) arrive through ``AgentSession.open(extra_tools=...)``.

A session offers them from their specs (``_specs.py``, generated from the tools' own
definitions by ``scripts/gen_tool_specs.py``) and imports a tool's module the first time a
call to it is prepared: the first model request of a session waits for none of the fourteen
modules (the shell, the search engine, the HTML reader, ...), and a tool never called is
never loaded. ``loaded_builtins`` gives the tools themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from earshot.core.tools._loaders import LOADERS, loaded_builtins
from earshot.core.tools._specs import SPECS

if TYPE_CHECKING:
    from earshot.core.tools.base import AnyTool, PreparedCall, ToolContext
    from earshot.providers.types import JSONValue, ToolSpec


class LazyTool:
    """A built-in tool offered from its spec; its module loads when a call is prepared."""

    __slots__ = ("_load", "_spec", "_tool", "read_only")

    def __init__(self, spec: ToolSpec, read_only: bool, load: Callable[[], AnyTool]) -> None:
        self._spec = spec
        self._load = load
        self._tool: AnyTool | None = None
        self.read_only = read_only

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def description(self) -> str:
        return self._spec.description

    def spec(self) -> ToolSpec:
        return self._spec

    def loaded(self) -> AnyTool:
        """The tool itself (its module imported on the first call)."""
        if self._tool is None:
            self._tool = self._load()
        return self._tool

    def prepare(self, raw: JSONValue, ctx: ToolContext) -> PreparedCall:
        return self.loaded().prepare(raw, ctx)

    def __repr__(self) -> str:
        return f"LazyTool({self.name!r})"


def _lazy(name: str) -> LazyTool:
    read_only, spec = SPECS[name]
    return LazyTool(spec, read_only, LOADERS[name])


BUILTIN: tuple[AnyTool, ...] = tuple(_lazy(name) for name in LOADERS)
BUILTIN_TOOLS: tuple[str, ...] = tuple(LOADERS)


def builtin_tools(names: Sequence[str] = BUILTIN_TOOLS) -> list[AnyTool]:
    """The built-in tools named, in the order named (tests pick a few)."""
    by_name = {tool.name: tool for tool in BUILTIN}
    return [by_name[name] for name in names]


__all__ = ["BUILTIN", "BUILTIN_TOOLS", "LOADERS", "LazyTool", "builtin_tools", "loaded_builtins"]
