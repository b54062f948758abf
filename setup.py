"""Build earshot, optionally with its hot paths compiled by mypyc.

``EARSHOT_MYPYC=1`` compiles the modules in ``COMPILED`` into C extensions (one mypyc group,
``earshot._native``, whose shared helper is ``earshot/_native__mypyc.*.so``). Unset, the
build is pure Python: the default, and what editable dev installs use. Everything else about
the package (name, dependencies, data files) is in ``pyproject.toml``.

::

    EARSHOT_MYPYC=1 pip wheel --no-deps -w dist .     # compiled wheel (isolated build)
    pip install -e '.[dev]'                          # pure Python, for development

The compiled list is explicit: mypyc has no per-file opt-out, and a module that defines
``msgspec.Struct`` classes, an async generator or an ``@asynccontextmanager`` must never be
in it (docs/build.md lists each boundary). ``earshot._compiled.COMPILED`` names the same
modules at run time; ``tests/test_build.py`` keeps the two lists equal.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

COMPILED = [
    "src/earshot/core/permissions/match.py",
    "src/earshot/providers/sse.py",
    "src/earshot/core/session/codec.py",
    "src/earshot/core/session/tree.py",
]

GROUP = "earshot._native"

# Every build by-product goes under build/temp*/ (ignored by git): build/ itself holds the
# packaging inputs (the PyInstaller spec, the Homebrew and scoop templates).
MYPYC_DIR = "build/temp.mypyc"
SETUPTOOLS_DIR = "build/temp.setuptools"


# The setup.py commands that build code. A PEP 517 build also runs this file for its
# requirements and metadata (egg_info, dist_info), where mypyc's ~35 s would be wasted.
# Editable installs (develop, editable_wheel) stay pure Python: compiled files in src/ would
# shadow later edits of the .py files.
BUILDS = {"build", "build_ext", "bdist_wheel", "install"}


def compile_requested() -> bool:
    return os.environ.get("EARSHOT_MYPYC", "").strip().lower() in ("1", "true", "yes", "on")


def ext_modules() -> list[Extension]:
    if not compile_requested() or not BUILDS.intersection(sys.argv[1:]):
        return []
    from mypyc.build import mypycify

    built = mypycify(COMPILED, opt_level="3", group_name=GROUP, target_dir=MYPYC_DIR)
    # With setuptools present mypycify builds setuptools Extensions; keep the type honest.
    return [ext for ext in built if isinstance(ext, Extension)]


setup(ext_modules=ext_modules(), options={"build": {"build_base": SETUPTOOLS_DIR}})
