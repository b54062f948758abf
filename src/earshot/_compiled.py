"""Which modules a release build compiles with mypyc, and what happens when one is broken.

A release build (``EARSHOT_MYPYC=1``, see ``setup.py``) ships each module in ``COMPILED`` twice:
as a C extension (``match.cpython-311-x86_64-linux-gnu.so``) and as its ``.py`` source. The
import system prefers the extension. ``install()`` puts a finder in front of it for these
modules only: when the extension fails to load (a truncated file, a missing
``earshot._native__mypyc`` helper, a build for another interpreter that still matched the
suffix), the module is executed from its ``.py`` file instead, and the failure is recorded
in ``FALLBACKS`` for ``earshot doctor`` to report once. An install with no compiled files
(the default, and every dev install) is untouched: the finder hands back the ordinary spec.

Contract: importing a module in ``COMPILED`` never fails because its compiled form is
broken, as long as its source is present; ``FALLBACKS`` maps module name to the reason.
``install()`` is idempotent and cheap (no imports beyond the already-loaded importlib).
"""

import os
import sys

# The import system's own modules, always loaded: this module runs on every start (the
# --version path included), where importlib (~1 ms with warnings), typing (~10 ms) and
# collections.abc (~4 ms) are not loaded yet. mypy honours a TYPE_CHECKING of our own.
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import (
    EXTENSION_SUFFIXES,
    ExtensionFileLoader,
    PathFinder,
    SourceFileLoader,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

COMPILED = (
    "earshot.core.permissions.match",
    "earshot.providers.sse",
    "earshot.core.session.codec",
    "earshot.core.session.tree",
)
"""The modules a mypyc build compiles (``setup.py`` lists the same files)."""

FALLBACKS: dict[str, str] = {}
"""Module name -> why its compiled form could not be loaded (it runs as pure Python)."""


def source_of(origin: str) -> str | None:
    """The ``.py`` file beside a compiled module file, or None when ``origin`` is not one."""
    for suffix in EXTENSION_SUFFIXES:
        if origin.endswith(suffix):
            return origin[: -len(suffix)] + ".py"
    return None


def is_compiled(module: "ModuleType") -> bool:
    """Whether ``module`` was loaded from a compiled extension file."""
    origin = getattr(module, "__file__", None) or ""
    return source_of(origin) is not None


class _GuardedLoader(ExtensionFileLoader):
    """Loads the extension; if that raises, executes the ``.py`` beside it instead."""

    def __init__(self, name: str, path: str, source: str) -> None:
        super().__init__(name, path)
        self._source = source
        self._fallback: SourceFileLoader | None = None

    def create_module(self, spec: ModuleSpec) -> "ModuleType":
        try:
            return super().create_module(spec)
        except Exception as exc:  # any failure of the extension: run the source instead
            FALLBACKS[spec.name] = f"{type(exc).__name__}: {exc}"
            self._fallback = SourceFileLoader(spec.name, self._source)
            # The module's __file__ is taken from the spec after this returns: point it at
            # the source so that nothing reports this module as compiled.
            spec.origin = self._source
            spec.cached = None
            return type(sys)(spec.name)

    def exec_module(self, module: "ModuleType") -> None:
        if self._fallback is not None:
            self._fallback.exec_module(module)
        else:
            super().exec_module(module)


class _Finder:
    """A meta-path finder for ``COMPILED`` only; every other import passes through."""

    @classmethod
    def find_spec(
        cls,
        fullname: str,
        path: "Sequence[str] | None",
        target: "ModuleType | None" = None,
    ) -> ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.origin is None or not isinstance(spec.loader, ExtensionFileLoader):
            return spec
        source = source_of(spec.origin)
        if source is None or not os.path.isfile(source):
            return spec  # nothing to fall back to: let the extension's own error stand
        loader = _GuardedLoader(fullname, spec.origin, source)
        guarded = ModuleSpec(fullname, loader, origin=spec.origin)
        guarded.has_location = True
        guarded.submodule_search_locations = spec.submodule_search_locations
        return guarded


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if _Finder not in sys.meta_path:
        sys.meta_path.insert(0, _Finder)


__all__ = ["COMPILED", "FALLBACKS", "install", "is_compiled", "source_of"]
