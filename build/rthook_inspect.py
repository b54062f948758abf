"""Runtime hook of the frozen build: inspect.getsourcefile for frozen modules, on first import.

PyInstaller's own hook for this (pyi_rth_inspect, which build/earshot.spec drops) imports
`inspect` and `zipfile` and reads the names in base_library.zip at every start: ~20 ms of a
quiet machine's start-up (60 ms under load), most of a frozen hello-world's cost over
`python -c pass`, for a function that only some paths call (anyio's lazy imports and pydantic's
field docstrings read source through it).

What it fixes stays fixed: frozen code objects carry relative file names
(`earshot/cli/_entry.py`), which `inspect.getsourcefile` cannot place. Here the same
translation is installed when something first imports `inspect` (dataclasses does, on most
paths): a relative name is the entry script's (`__main__.__file__`), a module in
base_library.zip (`<_MEIPASS>/base_library.zip/<name>.pyc`, read on first use) or a file under
`sys._MEIPASS`; an absolute name under `sys._MEIPASS` is returned as it is, but with `.py` for
`.pyc` (the build collects modules as .pyc files); anything else goes to the original
function.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType


def _install() -> None:
    import os

    find_elsewhere: Callable[[str, Sequence[str] | None, ModuleType | None], ModuleSpec | None]
    find_elsewhere = sys.modules["_frozen_importlib"]._find_spec
    top = os.path.normpath(getattr(sys, "_MEIPASS"))  # noqa: B009 - set by the bootloader
    base_library = os.path.join(top, "base_library.zip")
    zipped: list[set[str]] = []  # the names inside base_library.zip, read on first use

    def in_base_library(pyc: str) -> bool:
        if not zipped:
            names: set[str] = set()
            if os.path.isfile(base_library):
                import zipfile

                with zipfile.ZipFile(base_library) as archive:
                    names = {os.path.normpath(name) for name in archive.namelist()}
            zipped.append(names)
        return pyc in zipped[0]

    def patch(inspect: ModuleType) -> None:
        original: Callable[[object], str | None] = inspect.getsourcefile
        getfile: Callable[[object], str] = inspect.getfile

        def getsourcefile(obj: object) -> str | None:
            filename = os.path.normpath(getfile(obj))
            if os.path.isabs(filename):
                if not filename.startswith(top):
                    return original(obj)
                # A module's __file__ is its .pyc here, while its functions' and frames' code
                # names the .py: name the .py for both, or inspect.getmodule(frame) matches no
                # module and scans sys.modules on every call (pydantic calls it per frame for
                # each acp model: earshot acp ran 40% more instructions).
                return filename[:-1] if filename.endswith(".pyc") else filename
            main_file = getattr(sys.modules["__main__"], "__file__", None)
            if main_file and filename == os.path.basename(main_file):
                return str(main_file)
            if in_base_library(filename + "c"):
                return os.path.normpath(os.path.join(base_library, filename + "c"))
            return os.path.normpath(os.path.join(top, filename))

        setattr(inspect, "getsourcefile", getsourcefile)  # noqa: B010 - a module's function

    class PatchOnImport:
        """First on sys.meta_path until `inspect` is imported; then gone."""

        @staticmethod
        def find_spec(
            name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
        ) -> ModuleSpec | None:
            if name != "inspect":
                return None
            # A new list, not remove(): another thread may be iterating the old one.
            sys.meta_path = [f for f in sys.meta_path if f is not PatchOnImport]
            spec = find_elsewhere(name, path, target)
            if spec is None or spec.loader is None:
                return spec
            found, found_spec = spec.loader, spec

            class Patching:
                @staticmethod
                def create_module(spec: ModuleSpec) -> ModuleType | None:
                    return found.create_module(spec)

                @staticmethod
                def exec_module(module: ModuleType) -> None:
                    found_spec.loader = module.__loader__ = found
                    found.exec_module(module)
                    patch(module)

            spec.loader = Patching  # type: ignore[assignment] # a loader by protocol, not class
            return spec

    if "inspect" in sys.modules:
        patch(sys.modules["inspect"])
    else:
        sys.meta_path.insert(0, PatchOnImport)


_install()
del _install
