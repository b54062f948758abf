"""earshot: a provider-agnostic terminal coding agent."""

import sys
import types

from earshot import _compiled

# A release build's compiled hot paths fall back to their .py sources if they fail to load.
_compiled.install()


def _httpx_without_its_cli() -> None:
    """httpx imports its command-line tool (click, rich, pygments: 60-130 ms) whenever
    click is installed, as it is beside the mcp package; earshot never runs that tool, so
    its module is stood in for before httpx is first imported."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main", "httpx's command line, not loaded by earshot")

    def main() -> None:
        raise SystemExit("httpx's command line is not available inside earshot")

    stand_in.main = main  # type: ignore[attr-defined] # a module built at run time
    sys.modules["httpx._main"] = stand_in


_httpx_without_its_cli()

__version__ = "0.1.0"
