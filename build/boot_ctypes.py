"""The frozen build's pyimod03_ctypes: PyInstaller's ctypes set-up, run on first import of ctypes.

PyInstaller's bootstrap imports its module pyimod03_ctypes and calls install(), which imports
ctypes at every start (9 M instructions, ~3 ms, a seventh of `earshot --version`) to make
ctypes look for shared libraries in the bundle first. earshot's start paths never import
ctypes. build/earshot.spec puts this module in the bootstrap under that name and PyInstaller's
own under ORIGINAL; install() here runs the original install() at once if ctypes is already
imported, else just after the first `import ctypes` finishes executing.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

ORIGINAL = "pyimod03_ctypes_pyinstaller"


def install() -> None:
    original: Callable[[], None] = sys.modules[ORIGINAL].install
    if "ctypes" in sys.modules:
        original()
        return
    find_elsewhere: Callable[[str, Sequence[str] | None, ModuleType | None], ModuleSpec | None]
    find_elsewhere = sys.modules["_frozen_importlib"]._find_spec

    class InstallOnImport:
        """First on sys.meta_path until `ctypes` is imported; then gone."""

        @staticmethod
        def find_spec(
            name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
        ) -> ModuleSpec | None:
            if name != "ctypes":
                return None
            # A new list, not remove(): another thread may be iterating the old one.
            sys.meta_path = [f for f in sys.meta_path if f is not InstallOnImport]
            spec = find_elsewhere(name, path, target)
            if spec is None or spec.loader is None:
                return spec
            found, found_spec = spec.loader, spec

            class Installing:
                @staticmethod
                def create_module(spec: ModuleSpec) -> ModuleType | None:
                    return found.create_module(spec)

                @staticmethod
                def exec_module(module: ModuleType) -> None:
                    found_spec.loader = module.__loader__ = found
                    found.exec_module(module)
                    original()  # its own `import ctypes` finds the module just executed

            spec.loader = Installing  # type: ignore[assignment] # a loader by protocol, not class
            return spec

    sys.meta_path.insert(0, InstallOnImport)
