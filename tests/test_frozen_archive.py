"""The frozen build's module archive: its table of contents rewritten at build time
(build/pyz_toc.py) and read at start-up by the bootstrap's reader (build/boot_archive.py).

The archive here is made the way PyInstaller makes one (header, zlib-wrapped marshalled code
objects, a marshalled table of contents), without PyInstaller; the reader runs outside a frozen
build beside a stand-in for PyInstaller's own reader module, which it takes its constants from.
The real archive is exercised by the frozen-binary tests (tests/test_build.py).
"""

from __future__ import annotations

import importlib.util
import marshal
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Protocol, cast

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "build"))
import pyz_toc  # noqa: E402

MODULE, PACKAGE, NAMESPACE = 0, 1, 3
SOURCES = {
    "alpha": (MODULE, "VALUE = 'alpha'\n"),
    "pkg": (PACKAGE, "VALUE = 'the package'\n"),
    "pkg.sub": (MODULE, "VALUE = 40 + 2\n"),
    "ns": (NAMESPACE, ""),
}


class Toc(Protocol):
    def get(self, name: str) -> tuple[int, int, int] | None: ...
    def items(self) -> Iterator[tuple[str, tuple[int, int, int]]]: ...
    def __len__(self) -> int: ...


class Reader(Protocol):
    toc: Toc

    def extract(self, name: str, raw: bool = False) -> object: ...


def make_archive(path: Path, level: int = 6) -> Path:
    """A module archive as PyInstaller writes it."""
    data = bytearray(b"PYZ\0" + importlib.util.MAGIC_NUMBER + b"\0" * 4)
    toc: list[tuple[str, tuple[int, int, int]]] = []
    for name, (code, source) in SOURCES.items():
        blob = b"" if code == NAMESPACE else marshal.dumps(compile(source, name, "exec"))
        packed = zlib.compress(blob, level)
        toc.append((name, (code, len(data), len(packed))))
        data += packed
    data[8:12] = len(data).to_bytes(4, "big")
    path.write_bytes(bytes(data) + marshal.dumps(toc))
    return path


@pytest.fixture
def reader_class() -> Iterator[type]:
    """build/boot_archive.py's reader, loaded beside a stand-in for PyInstaller's module."""
    original = ModuleType("pyimod01_archive_pyinstaller")
    vars(original).update(
        PYZ_ITEM_MODULE=MODULE,
        PYZ_ITEM_PKG=PACKAGE,
        PYZ_ITEM_DATA=2,
        PYZ_ITEM_NSPKG=NAMESPACE,
        PYTHON_MAGIC_NUMBER=importlib.util.MAGIC_NUMBER,
        ArchiveReadError=type("ArchiveReadError", (RuntimeError,), {}),
    )
    sys.modules[original.__name__] = original
    spec = importlib.util.spec_from_file_location(
        "boot_archive", ROOT / "build" / "boot_archive.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        found = module.ZlibArchiveReader
        assert isinstance(found, type)
        yield found
    finally:
        del sys.modules[original.__name__]


def table(path: Path) -> dict[str, tuple[int, int, int]]:
    return pyz_toc.read_embedded(path, importlib.util.MAGIC_NUMBER)


def open_reader(reader_class: type, path: Path, offset: int = 0) -> Reader:
    return cast(Reader, reader_class(f"{path}?{offset}" if offset else str(path)))


def run(code: object) -> dict[str, object]:
    namespace: dict[str, object] = {}
    exec(cast("str", code), namespace)  # a code object: exec takes either
    return namespace


@pytest.mark.parametrize("rewritten", [True, False])
def test_the_reader_finds_and_runs_every_module(
    reader_class: type, tmp_path: Path, rewritten: bool
) -> None:
    archive = make_archive(tmp_path / "PYZ.pyz")
    names = {name: code for name, (code, _, _) in table(archive).items()}
    if rewritten:
        assert pyz_toc.rewrite(archive)
        assert pyz_toc.MARK in archive.read_bytes()
    assert {name: code for name, (code, _, _) in table(archive).items()} == names
    reader = open_reader(reader_class, archive)
    assert dict(reader.toc.items()) == table(archive)
    assert len(reader.toc) == len(SOURCES)
    assert reader.toc.get("missing") is None
    assert run(reader.extract("alpha"))["VALUE"] == "alpha"
    assert run(reader.extract("pkg"))["VALUE"] == "the package"
    assert run(reader.extract("pkg.sub"))["VALUE"] == 42
    assert reader.extract("ns") is None
    raw = reader.extract("alpha", raw=True)
    assert isinstance(raw, bytes)
    assert run(marshal.loads(raw))["VALUE"] == "alpha"
    with pytest.raises(KeyError, match="missing"):
        reader.extract("missing")


def test_the_rewritten_archive_holds_its_modules_uncompressed(tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "PYZ.pyz")
    pyz_toc.rewrite(archive)
    data = archive.read_bytes()
    code, offset, length = table(archive)["pkg.sub"]
    assert code == MODULE
    assert run(marshal.loads(data[offset : offset + length]))["VALUE"] == 42


def test_an_archive_inside_an_executable_is_read_at_its_offset(
    reader_class: type, tmp_path: Path
) -> None:
    archive = make_archive(tmp_path / "PYZ.pyz")
    pyz_toc.rewrite(archive)
    exe = tmp_path / "earshot"
    exe.write_bytes(b"\x7fELF the bootloader" + archive.read_bytes() + b"the package's own table")
    reader = open_reader(reader_class, exe, offset=len(b"\x7fELF the bootloader"))
    assert run(reader.extract("pkg.sub"))["VALUE"] == 42
    assert table(exe) == table(archive)


def test_rewriting_twice_changes_nothing(tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "PYZ.pyz")
    assert pyz_toc.rewrite(archive)
    once = archive.read_bytes()
    assert not pyz_toc.rewrite(archive)  # PyInstaller reuses an unchanged archive
    assert archive.read_bytes() == once


def test_a_truncated_archive_is_refused(reader_class: type, tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "PYZ.pyz")
    pyz_toc.rewrite(archive)
    archive.write_bytes(archive.read_bytes()[:-10])
    with pytest.raises(RuntimeError, match="truncated"):
        open_reader(reader_class, archive)
    with pytest.raises(ValueError, match="truncated"):
        table(archive)
