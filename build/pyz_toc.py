"""The module archive's table of contents, rewritten into a form that loads in one step.

PyInstaller ends its module archive (PYZ) with a table of contents: a marshalled list of
``(name, (typecode, offset, length))``, ~1,800 entries in earshot's folder build. Loading it
builds ~9,000 Python objects on every start (6 M instructions, more than the ~150 imports of
`earshot --version` cost). build/earshot.spec rewrites it after PyInstaller writes the archive
into this form, which build/boot_archive.py reads at start-up:

    MARK (16 bytes) | count: u32 | size: u32 | the names, UTF-8, "\\n"-joined (size bytes)
    | count entries of 16 bytes: offset u64, length u32, typecode u32 (little-endian)

Loading it is one split of the names and one dict of name -> index (~0.5 M instructions); an
entry's numbers are read when the module is imported. The archive's header (its table of
contents offset) is unchanged, and the reader still takes PyInstaller's own form (no MARK).
"""

from __future__ import annotations

import marshal
from pathlib import Path

MARK = b"EARSHOT-PYZTOC1\n"
HEADER = 12  # PyInstaller's: b"PYZ\0", Python's magic number, the table's offset (i32 BE)


def pack(toc: list[tuple[str, tuple[int, int, int]]]) -> bytes:
    names = "\n".join(name for name, _ in toc).encode("utf-8")
    if any("\n" in name for name, _ in toc):
        raise ValueError("a module name with a newline")
    entries = b"".join(
        offset.to_bytes(8, "little") + length.to_bytes(4, "little") + code.to_bytes(4, "little")
        for _, (code, offset, length) in toc
    )
    count = len(toc).to_bytes(4, "little")
    return MARK + count + len(names).to_bytes(4, "little") + names + entries


def unpack(data: bytes) -> dict[str, tuple[int, int, int]]:
    """The table of contents (either form) from the bytes at its offset to the archive's end."""
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
        code = int.from_bytes(entry[12:16], "little")
        found[name] = (
            code,
            int.from_bytes(entry[:8], "little"),
            int.from_bytes(entry[8:12], "little"),
        )
    return found


def table_offset(archive: Path) -> int:
    with archive.open("rb") as f:
        header = f.read(HEADER)
    if header[:4] != b"PYZ\0":
        raise ValueError(f"{archive}: not a module archive")
    return int.from_bytes(header[8:12], "big", signed=True)


def rewrite(archive: Path) -> bool:
    """Rewrite ``archive``'s table of contents in this form; False if it already is."""
    at = table_offset(archive)
    with archive.open("r+b") as f:
        f.seek(at)
        data = f.read()
        if data.startswith(MARK):
            return False
        toc = marshal.loads(data)
        f.seek(at)
        f.truncate()
        f.write(pack(toc))
    return True


def read(archive: Path) -> dict[str, tuple[int, int, int]]:
    """The table of contents of a standalone archive file."""
    at = table_offset(archive)
    with archive.open("rb") as f:
        f.seek(at)
        return unpack(f.read())


def read_embedded(executable: Path, magic: bytes) -> dict[str, tuple[int, int, int]]:
    """The table of contents of the archive inside a PyInstaller executable (found by its
    header: b"PYZ\0" and the Python magic number ``magic`` of the Python it was built with)."""
    data = executable.read_bytes()
    start = data.find(b"PYZ\0" + magic)
    if start < 0:
        raise ValueError(f"{executable}: no module archive inside")
    at = start + int.from_bytes(data[start + 8 : start + 12], "big", signed=True)
    return unpack(data[at:])
