"""The module archive rewritten into a form that starts fast: raw entries, a compact table.

PyInstaller writes its module archive (PYZ) as a header, each module's marshalled code
zlib-compressed, and a table of contents: a marshalled list of ``(name, (typecode, offset,
length))``, ~1,800 entries in earshot's folder build. Loading that table built ~9,000 Python
objects on every start (6 M instructions, more than the imports of `earshot --version` cost),
and even uncompressed, zlib's checksum over each imported module cost a headless turn 21 M
instructions. build/earshot.spec rewrites the archive after PyInstaller writes it:

    PyInstaller's 12-byte header (b"PYZ\\0", Python's magic number, the table's offset: i32 BE)
    | each entry's marshalled code as it is (no zlib)
    | MARK (16 bytes) | count: u32 | size: u32 | the names, UTF-8, "\\n"-joined (size bytes)
    | count entries of 16 bytes: offset u64, length u32, typecode u32 (little-endian)

build/boot_archive.py reads it at start-up: one split of the names and one dict of
name -> index (~0.5 M instructions), an entry's numbers when its module is imported. It still
reads PyInstaller's own form (no MARK: compressed entries).
"""

from __future__ import annotations

import marshal
import zlib
from pathlib import Path

MARK = b"EARSHOT-PYZRAW1\n"
HEADER = 12
NAMESPACE = 3  # PyInstaller's typecode of a namespace package: no data


def pack(toc: list[tuple[str, tuple[int, int, int]]]) -> bytes:
    """The table in this form."""
    if any("\n" in name for name, _ in toc):
        raise ValueError("a module name with a newline")
    names = "\n".join(name for name, _ in toc).encode("utf-8")
    entries = b"".join(
        offset.to_bytes(8, "little") + length.to_bytes(4, "little") + code.to_bytes(4, "little")
        for _, (code, offset, length) in toc
    )
    count = len(toc).to_bytes(4, "little")
    return MARK + count + len(names).to_bytes(4, "little") + names + entries


def unpack(data: bytes) -> dict[str, tuple[int, int, int]]:
    """The table (either form) from the bytes at its offset to the archive's end."""
    if not data.startswith(MARK):
        return dict(marshal.loads(data))
    count = int.from_bytes(data[16:20], "little")
    size = int.from_bytes(data[20:24], "little")
    names = data[24 : 24 + size].decode("utf-8").split("\n")
    entries = data[24 + size : 24 + size + 16 * count]
    if len(names) != count or len(entries) != 16 * count:
        raise ValueError("a truncated table of contents")
    found: dict[str, tuple[int, int, int]] = {}
    for i, name in enumerate(names):
        entry = entries[16 * i : 16 * i + 16]
        offset = int.from_bytes(entry[:8], "little")
        found[name] = (
            int.from_bytes(entry[12:], "little"),
            offset,
            int.from_bytes(entry[8:12], "little"),
        )
    return found


def _table_at(header: bytes, where: object) -> int:
    if header[:4] != b"PYZ\0":
        raise ValueError(f"{where}: not a module archive")
    return int.from_bytes(header[8:12], "big", signed=True)


def rewrite(archive: Path) -> bool:
    """Rewrite ``archive`` (PyInstaller's form) in this one; False if it already is."""
    data = archive.read_bytes()
    at = _table_at(data[:HEADER], archive)
    if data[at:].startswith(MARK):
        return False  # PyInstaller reuses an unchanged archive from its last build
    out = bytearray(data[:HEADER])
    toc: list[tuple[str, tuple[int, int, int]]] = []
    for name, (code, offset, length) in marshal.loads(data[at:]):
        raw = b"" if code == NAMESPACE else zlib.decompress(data[offset : offset + length])
        toc.append((name, (code, len(out), len(raw))))
        out += raw
    out[8:12] = len(out).to_bytes(4, "big", signed=True)
    archive.write_bytes(bytes(out) + pack(toc))
    return True


def read_embedded(executable: Path, magic: bytes) -> dict[str, tuple[int, int, int]]:
    """The table of the archive inside a PyInstaller executable (or a standalone archive),
    found by its header: b"PYZ\\0" and ``magic``, the number of the Python it was built for."""
    data = executable.read_bytes()
    start = data.find(b"PYZ\0" + magic)
    if start < 0:
        raise ValueError(f"{executable}: no module archive inside")
    return unpack(data[start + _table_at(data[start : start + HEADER], executable) :])
