"""What the input box needs only a little of, loaded lean before the first paint.

``prompt_toolkit/__init__.py`` imports its ``shortcuts`` (prompt sessions, dialogs,
progress bars, widgets), which the UI's own application never uses; ``wcwidth/__init__.py``
imports its text wrapping, escape-sequence and grapheme modules (and through them
``secrets``/``hmac``) when prompt_toolkit wants one function, ``wcwidth``. Together they
were about a fifth of the import time before the input box was on screen.

``install`` (before anything imports prompt_toolkit) puts both packages in
``sys.modules`` without running their ``__init__``: submodules still import from the
package directory, and ``wcwidth.wcwidth`` is the C extension's function, cached as
``wcwidth/__init__.py`` caches it. ``complete`` (first on the warm-up thread, after the
first paint) runs both ``__init__`` files in those same module objects, so everything else
sees the packages whole. Whatever does not go as expected (the C extension missing, a
package already imported, a loader that cannot make the module) leaves that package to the
normal import.

The application's default key bindings (editing, Emacs, Vi, mouse: some 600 bindings in
ten modules, 5-10% of the time to the first paint) are built on the warm-up thread too, or
at the first key if that comes sooner: ``install`` puts a stand-in for prompt_toolkit's
``key_binding.defaults`` in ``sys.modules`` whose ``load_key_bindings`` hands the
application a ``DynamicKeyBindings`` over bindings built on first use; ``complete``
imports the real module in its place and builds them.
``sigint_to_keys`` hands SIGINT to the key bindings without prompt_toolkit's own handler,
which saves the C-level one through ctypes (2% of the time to the first paint).
"""

from __future__ import annotations

import asyncio
import importlib.util
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Loader  # at run time it imports importlib.resources, tempfile

    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindingsBase

_PARTIAL: list[tuple[Loader, ModuleType]] = []


def _bare(name: str) -> tuple[Loader, ModuleType] | None:
    """The package ``name`` in ``sys.modules``, its ``__init__`` not run yet."""
    if name in sys.modules:
        return None
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return None
        module = importlib.util.module_from_spec(spec)
    except (ImportError, ValueError):
        return None
    sys.modules[name] = module
    return spec.loader, module


def install() -> None:
    """Load prompt_toolkit and wcwidth lean; once per process, before prompt_toolkit."""
    wcwidth = _bare("wcwidth")
    if wcwidth is not None:
        try:
            from wcwidth._wcwidth_c import wcwidth as c_wcwidth
        except ImportError:
            del sys.modules["wcwidth"]
        else:
            wcwidth[1].wcwidth = lru_cache(maxsize=1024)(c_wcwidth)  # type: ignore[attr-defined] # the package's own attribute, set before its __init__ runs
            _PARTIAL.append(wcwidth)
    toolkit = _bare("prompt_toolkit")
    if toolkit is not None:
        _stand_in_defaults()
        # Its submodules import each other in a circle that only resolves in the order
        # ``__init__`` starts with: the application first.
        try:
            importlib.import_module("prompt_toolkit.application")
        except ImportError:
            for name in [n for n in sys.modules if n.partition(".")[0] == "prompt_toolkit"]:
                del sys.modules[name]
            raise
        _PARTIAL.append(toolkit)


def complete() -> None:
    """Build the default key bindings and run the ``__init__`` of what ``install`` left
    partial (idempotent)."""
    if _stand_in is not None:
        _build_defaults()
    while _PARTIAL:
        loader, module = _PARTIAL.pop(0)
        if module.__name__ == "wcwidth":
            # Its __init__ imports the legacy ``wcwidth.wcwidth`` submodule by that name
            # and then binds the function over it: clear the stand-in first so the
            # submodule is imported rather than taken to be the function.
            del module.wcwidth
        try:
            loader.exec_module(module)
        except BaseException:
            sys.modules.pop(module.__name__, None)  # the next import starts afresh
            raise


_DEFAULTS = "prompt_toolkit.key_binding.defaults"
_LOCK = threading.Lock()
_stand_in: ModuleType | None = None
_unbuilt: list[_Defaults] | None = []
"""The applications' defaults to build on the warm-up thread; None once it has run (later
applications build theirs at their first key)."""


def _real_defaults() -> ModuleType:
    """prompt_toolkit's own default-bindings module, imported in place of the stand-in."""
    with _LOCK:
        module = sys.modules.get(_DEFAULTS)
        if module is None or module is _stand_in:
            sys.modules.pop(_DEFAULTS, None)
            module = importlib.import_module(_DEFAULTS)
        return module


class _Defaults:
    """One application's default key bindings, built once, when first asked for."""

    def __init__(self) -> None:
        self._bindings: KeyBindingsBase | None = None
        self._lock = threading.Lock()

    def get(self) -> KeyBindingsBase:
        if self._bindings is None:
            load: Callable[[], KeyBindingsBase] = _real_defaults().load_key_bindings
            with self._lock:
                if self._bindings is None:
                    self._bindings = load()
        return self._bindings


def _load_key_bindings() -> KeyBindingsBase:
    """The stand-in's ``load_key_bindings``, which ``Application.__init__`` calls: the
    defaults behind ``DynamicKeyBindings``, which asks for them at each key, so they take
    part exactly as before; only the moment they are built moves."""
    from prompt_toolkit.key_binding import DynamicKeyBindings

    defaults = _Defaults()
    if _unbuilt is not None:
        _unbuilt.append(defaults)
    return DynamicKeyBindings(defaults.get)


def _stand_in_defaults() -> None:
    global _stand_in
    if _DEFAULTS in sys.modules:
        return
    _stand_in = ModuleType(_DEFAULTS, "A stand-in until the first paint: earshot.tui._lean")
    _stand_in.load_key_bindings = _load_key_bindings  # type: ignore[attr-defined] # the one name application.py imports from it
    sys.modules[_DEFAULTS] = _stand_in


def _build_defaults() -> None:
    """prompt_toolkit's default-bindings module, and the bindings of the applications made
    so far, off the event loop."""
    global _unbuilt
    _real_defaults()
    waiting, _unbuilt = _unbuilt or [], None
    for defaults in waiting:
        defaults.get()


@contextmanager
def sigint_to_keys(app: Application[int]) -> Iterator[None]:
    """A SIGINT (``kill -INT``: Ctrl-C is a key in raw mode) goes to ``app``'s key
    bindings, as prompt_toolkit's handler would send it (run ``app`` with
    ``handle_sigint=False``). Nothing where the loop cannot (Windows)."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, app.key_processor.send_sigint)
    except (NotImplementedError, RuntimeError, ValueError):
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


__all__ = ["complete", "install", "sigint_to_keys"]
