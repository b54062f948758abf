"""The frozen build's pyimod01_archive: PyInstaller's module archive (PYZ) reader, made cheap.

The folder build keeps its Python modules in one archive inside the `earshot` executable, not
as ~2,000 `.pyc` files: the single file's launcher checks every file of the folder it runs at
each start (docs/build.md, "The single file"), and fewer files make that check cheap.
PyInstaller's own reader cost the frozen build more than a source install spends finding and
reading `.pyc` files: it reads the table of contents with `marshal.load` on a file object
(many small reads: 11 ms for 2,000 entries), and opens the executable again for every module.

build/earshot.spec rewrites the archive into the form build/pyz_toc.py describes (raw entries:
zlib's checksum alone cost a headless turn 21 M instructions; a compact table: loading
PyInstaller's built ~9,000 objects, 6 M instructions at every start), and puts this module in
the bootstrap under PyInstaller's name, with PyInstaller's own module before it under
ORIGINAL. This reader loads the table with two reads, one split and one dict, and each module
with one `pread` on a descriptor kept open (where the platform has `pread`: elsewhere it opens
the file per read, as the original does); it still reads PyInstaller's own form.
What `toc` and `extract` give is what PyInstaller's importer (pyimod02_importers) expects.
Only modules a bootstrap may import: builtins and the modules the bootloader itself loads
(and __future__, which the spec keeps a file).
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

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
_TOC_MARK = b"EARSHOT-PYZRAW1\n"  # build/pyz_toc.py's form


def _split(filename: str) -> tuple[str, int]:
    """The bootloader names the archive ``<path>?<offset>`` (the offset in the executable)."""
    path, mark, offset = filename.rpartition("?")
    if mark and offset.isdigit():
        return path, int(offset)
    return filename, 0


class _Toc:
    """build/pyz_toc.py's table: name -> (typecode, offset, length), each entry's numbers read
    from the table's bytes when asked for."""

    def __init__(self, names: list[str], entries: bytes) -> None:
        self._index = dict(zip(names, range(len(names)), strict=True))
        self._entries = entries
        self._last = ("", (0, 0, 0))  # an import looks its module up twice: find, then load

    def _entry(self, i: int) -> tuple[int, int, int]:
        at = 16 * i
        entries = self._entries
        return (
            int.from_bytes(entries[at + 12 : at + 16], "little"),
            int.from_bytes(entries[at : at + 8], "little"),
            int.from_bytes(entries[at + 8 : at + 12], "little"),
        )

    def get(
        self, name: str, default: tuple[int, int, int] | None = None
    ) -> tuple[int, int, int] | None:
        last = self._last
        if last[0] == name:
            return last[1]
        i = self._index.get(name)
        if i is None:
            return default
        entry = self._entry(i)
        self._last = (name, entry)
        return entry

    def __getitem__(self, name: str) -> tuple[int, int, int]:
        return self._entry(self._index[name])

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def keys(self) -> Iterable[str]:
        return self._index.keys()

    def items(self) -> Iterator[tuple[str, tuple[int, int, int]]]:
        return ((name, self._entry(i)) for name, i in self._index.items())


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
        self._raw = False  # entries as they are (build/pyz_toc.py), not zlib-wrapped
        self._fd = os.open(filename, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            header = self._read(start_offset, 12)
            if header[:4] != _MAGIC:
                raise _ReadError("PYZ magic pattern mismatch!")
            if check_pymagic and header[4:8] != _PYTHON_MAGIC:
                raise _ReadError("Python magic pattern mismatch!")
            at = start_offset + int.from_bytes(header[8:12], "big", signed=True)
            self.toc = self._load_toc(at, os.fstat(self._fd).st_size)
        finally:
            if not _PREAD:
                os.close(self._fd)
                self._fd = -1

    def _load_toc(self, at: int, size: int) -> _Toc | dict[str, tuple[int, int, int]]:
        head = self._read(at, min(24, size - at))
        if head[:16] == _TOC_MARK:
            count = int.from_bytes(head[16:20], "little")
            names = int.from_bytes(head[20:24], "little")
            data = self._read(at + 24, names + 16 * count)
            self._raw = True
            return _Toc(data[:names].decode("utf-8").split("\n"), data[names:])
        # PyInstaller's own form runs to the archive's end; what follows the archive in the
        # executable (the rest of PyInstaller's package) is small, and loads() ignores it.
        return dict(marshal.loads(self._read(at, size - at)))

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
            data = self._read(self._start_offset + offset, length)
        except OSError as exc:
            raise SystemExit(
                f"ERROR: cannot read {self._filename} ({exc}); start it again."
            ) from None
        if not self._raw:
            data = zlib.decompress(data)
        if raw or typecode not in _CODE:
            return data
        try:
            return marshal.loads(data)
        except EOFError as exc:
            raise ImportError(f"Failed to unmarshal PYZ entry {name!r}!") from exc
