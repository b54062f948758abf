#!/usr/bin/env python3
"""Make earshot's single file: the launcher (build/launcher.c) followed by the installer.

Usage (scripts/build runs it after PyInstaller)::

    python build/onefile.py --installer dist/earshot-installer \\
        --manifest build/temp.pyinstaller/earshot/earshot.manifest --version 0.2.0 \\
        --out dist/earshot-onefile

Compiles build/launcher.c with the C compiler Python's own build tools find (cc on Linux and
macOS, MSVC on Windows), then writes::

    [launcher][installer][manifest][trailer]

The 128-byte trailer: the id (80 bytes, NUL-padded ASCII: ``<version>-<16 hex of the
manifest's sha256>``, the unpack folder's name), four little-endian u64s (installer offset
and length, manifest offset and length) and the 16-byte magic ``EARSHOT-ONEFILE1``. On macOS
the result is re-signed ad hoc the way PyInstaller signs its own onefile executables, with
PyInstaller's own helpers (the launcher looks for the magic before the signature).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import struct
import sys
import tempfile
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
MAGIC = b"EARSHOT-ONEFILE1"
TRAILER = 128


def _unpack_module() -> object:
    spec = importlib.util.spec_from_file_location("earshot_unpack", HERE / "unpack.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules["earshot_unpack"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest_id(version: str, text: str) -> str:
    found = getattr(_unpack_module(), "manifest_id")  # noqa: B009 - a module loaded by path
    ident = found(version, text)
    assert isinstance(ident, str)
    return ident


def trailer(ident: str, payload: tuple[int, int], manifest: tuple[int, int]) -> bytes:
    name = ident.encode("ascii")
    if len(name) > 80:
        raise ValueError(f"id too long: {ident}")
    data = name.ljust(80, b"\0") + struct.pack("<4Q", *payload, *manifest)
    return data + MAGIC


def compile_c(source: Path, name: str, work: Path, static: bool = False) -> Path:
    """One C file -> an executable ``work/name`` (``.exe`` on Windows); ``static``: linked
    statically (Linux), or dynamically where the C library has no static form."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.errors import LinkError
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    work.mkdir(parents=True, exist_ok=True)
    copy = work / source.name
    if copy != source:
        shutil.copyfile(source, copy)  # keep the object files out of the source tree
    objects = compiler.compile([str(copy)], output_dir=str(work))
    try:
        flags = ["-static"] if static else None
        compiler.link_executable(objects, name, output_dir=str(work), extra_preargs=flags)
    except LinkError:
        if not static:
            raise
        compiler.link_executable(objects, name, output_dir=str(work))
    return work / (f"{name}.exe" if os.name == "nt" else name)


def compile_launcher(work: Path) -> Path:
    """build/launcher.c -> an executable in ``work``. On Linux it is linked statically: no
    dynamic loading at each start (~0.3 ms of CPU here) and no glibc version to require."""
    linux = sys.platform == "linux"
    exe = compile_c(HERE / "launcher.c", "launcher", work, static=linux)
    if linux:
        import subprocess

        subprocess.run(["strip", str(exe)], check=True)
    return exe


def _macos_signing() -> ModuleType | None:
    """PyInstaller's Mach-O helpers on macOS, when installed (scripts/build installs them).
    Without them (the unit tests) the data is only appended: the linker's ad-hoc signature
    still covers the launcher's code, which is all the kernel checks, but the file could not be
    signed again (codesign refuses data after __LINKEDIT) - releases always re-sign."""
    if platform.system() != "Darwin":
        return None
    try:
        return importlib.import_module("PyInstaller.utils.osx")
    except ImportError:
        return None


def assemble(launcher: Path, installer: Path, manifest_text: str, version: str, out: Path) -> str:
    """Write the single file; return its id."""
    ident = manifest_id(version, manifest_text)
    manifest = manifest_text.encode("utf-8")
    osx = _macos_signing()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / out.name
        shutil.copyfile(launcher, work)
        if osx is not None:
            osx.remove_signature_from_binary(str(work))
        with work.open("ab") as f:
            start = f.tell()
            with installer.open("rb") as src:
                shutil.copyfileobj(src, f, 1 << 20)
            middle = f.tell()
            f.write(manifest)
            f.write(trailer(ident, (start, middle - start), (middle, len(manifest))))
        if osx is not None:
            osx.fix_exe_for_code_signing(str(work))
            osx.sign_binary(str(work))
        os.chmod(work, 0o755)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(work), out)
    return ident


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--installer", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("build/temp.launcher"))
    parser.add_argument("--launcher", type=Path, help="an already compiled launcher")
    args = parser.parse_args(argv)
    launcher = args.launcher or compile_launcher(args.work)
    text = args.manifest.read_text(encoding="utf-8")
    ident = assemble(launcher, args.installer, text, args.version, args.out)
    print(f"{args.out}: {ident}, {args.out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
