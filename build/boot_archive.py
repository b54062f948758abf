"""The frozen build's pyimod01_archive: PyInstaller's module archive (PYZ) reader, made cheap.

The folder build keeps its Python modules in one archive inside the `earshot` executable, not
as ~2,000 `.pyc` files: the single file's launcher checks every file of the folder it runs at
each start (docs/build.md, "The single file"), and fewer files make that check cheap.
PyInstaller's own reader cost the frozen build more than a source install spends finding and
reading `.pyc` files: it reads the table of contents with `marshal.load` on a file object
(many small reads: 11 ms for 2,000 entries), and opens the executable again for every module.

build/earshot.spec writes the archive uncompressed and puts this module in the bootstrap under
PyInstaller's name, with PyInstaller's own module before it under ORIGINAL. This reader reads
the table of contents with one read, and each module with one `pread` on a descriptor kept
open (where the platform has `pread`: elsewhere it opens the file per read, as the original
does). The archive format, and what `extract` returns, are PyInstaller's: the same importer
(pyimod02_importers) uses it. Only modules a bootstrap may import: builtins and the modules
the bootloader itself loads.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

ORIGINAL = "pyimod01_archive_pyinstaller"
_original = sys.modules[ORIGINAL]
for _name in dir(_original):  # the original's constants and names, under this module's name
    if not _name.startswith("__"):
        globals().setdefault(_name, getattr(_original, _name))
del _name

_MAGIC = b"PYZ\0"
_NSPKG: int = _original.PYZ_ITEM_NSPKG
_CODE: tuple[int, int] = (_original.PYZ_ITEM_MODULE, _original.PYZ_ITEM_PKG)
_PYTHON_MAGIC: bytes = _original.PYTHON_MAGIC_NUMBER
_ReadError: type[Exception] = _original.ArchiveReadError
_PREAD = hasattr(os, "pread")


def _split(filename: str) -> tuple[str, int]:
    """The bootloader names the archive ``<path>?<offset>`` (the offset in the executable)."""
    path, mark, offset = filename.rpartition("?")
    if mark and offset.isdigit():
        return path, int(offset)
    return filename, 0


class ZlibArchiveReader:
    """PyInstaller's PYZ archive: ``toc`` (name -> (typecode, offset, length)) and
    ``extract(name)``: the module's code object (or raw bytes with ``raw=True``)."""

    def __init__(
        self, filename: str, start_offset: int | None = None, check_pymagic: bool = False
    ) -> None:
        if start_offset is None:
            filename, start_offset = _split(filename)
        self._filename = filename
        self._start_offset = start_offset
        self._fd = os.open(filename, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            header = self._read(start_offset, 12)
            if header[:4] != _MAGIC:
                raise _ReadError("PYZ magic pattern mismatch!")
            if check_pymagic and header[4:8] != _PYTHON_MAGIC:
                raise _ReadError("Python magic pattern mismatch!")
            toc_at = start_offset + int.from_bytes(header[8:12], "big", signed=True)
            # The table of contents runs to the archive's end; what follows the archive in the
            # executable (the rest of PyInstaller's package) is small, and loads() ignores it.
            rest = os.fstat(self._fd).st_size - toc_at
            self.toc: dict[str, tuple[int, int, int]] = dict(
                marshal.loads(self._read(toc_at, rest))
            )
        finally:
            if not _PREAD:
                os.close(self._fd)
                self._fd = -1

    def _read(self, offset: int, length: int) -> bytes:
        if self._fd >= 0 and _PREAD:
            data = os.pread(self._fd, length, offset)
        else:
            with open(self._filename, "rb") as f:
                f.seek(offset)
                data = f.read(length)
        if len(data) != length:
            raise _ReadError(f"{self._filename}: the archive is truncated")
        return data

    def extract(self, name: str, raw: bool = False) -> object:
        entry = self.toc.get(name)
        if entry is None:
            raise KeyError(f"No entry named {name!r} found in the archive!")
        typecode, offset, length = entry
        if typecode == _NSPKG:
            return None
        try:
            data = zlib.decompress(self._read(self._start_offset + offset, length))
        except OSError as exc:
            raise SystemExit(
                f"ERROR: cannot read {self._filename} ({exc}); start it again."
            ) from None
        if raw or typecode not in _CODE:
            return data
        try:
            return marshal.loads(data)
        except EOFError as exc:
            raise ImportError(f"Failed to unmarshal PYZ entry {name!r}!") from exc
