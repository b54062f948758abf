"""earshot: a provider-agnostic terminal coding agent."""

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

from earshot import _compiled

# A release build's compiled hot paths fall back to their .py sources if they fail to load.
_compiled.install()


def _no_httpx_cli() -> None:
    raise SystemExit("httpx's command line is not available inside earshot")


class _HttpxCliStandIn:
    """httpx imports its command-line tool (click, rich, pygments: 60-130 ms) whenever
    click is installed, as it is beside the mcp package; earshot never runs that tool, so
    this import hook answers ``httpx._main`` with a stand-in when httpx asks for it."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "httpx._main":
            return None
        return ModuleSpec(name, _HttpxCliStandIn)  # type: ignore[arg-type] # a duck-typed Loader

    @staticmethod
    def create_module(spec: ModuleSpec) -> None:
        return None

    @staticmethod
    def exec_module(module: ModuleType) -> None:
        module.main = _no_httpx_cli  # type: ignore[attr-defined] # a module built at run time


sys.meta_path.insert(0, _HttpxCliStandIn)

__version__ = "0.1.0"
