"""earshot: a provider-agnostic terminal coding agent."""

from earshot import _compiled

# A release build's compiled hot paths fall back to their .py sources if they fail to load.
_compiled.install()

__version__ = "0.1.0"
