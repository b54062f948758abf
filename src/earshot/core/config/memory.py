"""Memory files: the instructions people leave for agents, merged into the system prompt.

Read in this order (later files can refine earlier ones): the user's config dir, then every
directory from the git root (or the cwd outside a repository) down to the cwd. In each
directory ``AGENTS.md`` and ``EARSHOT.md`` are read; ``CLAUDE.md`` only where neither exists
(for projects set up for another agent). ``@path`` on a line of its own, or as a word in a
line, imports that file (relative to the file naming it; ``~`` is the home directory), up to
``MAX_DEPTH`` levels and never the same file twice. A file over ``MAX_BYTES`` is cut with a
note saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

MAX_BYTES = 40_000
MAX_DEPTH = 3
NAMES = ("AGENTS.md", "EARSHOT.md")
FALLBACK = "CLAUDE.md"

_IMPORT = re.compile(r"(?:^|\s)@((?:~|\.{1,2})?/?[\w.\-/]+\.[\w]+)")


class MemoryFile(msgspec.Struct, frozen=True):
    path: Path
    text: str
    truncated: bool = False
    imported_by: Path | None = None


def git_root(cwd: Path) -> Path | None:
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _directories(cwd: Path) -> list[Path]:
    root = git_root(cwd) or cwd
    chain = [cwd, *cwd.parents]
    if root in chain:
        chain = chain[: chain.index(root) + 1]
    return list(reversed(chain))


def _read(path: Path) -> tuple[str, bool] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    truncated = len(data) > MAX_BYTES
    text = data[:MAX_BYTES].decode("utf-8", "replace")
    if truncated:
        text += f"\n[... {path.name} is {len(data):,} bytes; only the first {MAX_BYTES:,} are used]"
    return text, truncated


def _load(
    path: Path, seen: set[Path], out: list[MemoryFile], depth: int, parent: Path | None
) -> None:
    resolved = path.resolve()
    if resolved in seen or not path.is_file():
        return
    seen.add(resolved)
    read = _read(path)
    if read is None:
        return
    text, truncated = read
    out.append(MemoryFile(path=path, text=text, truncated=truncated, imported_by=parent))
    if depth >= MAX_DEPTH:
        return
    for match in _IMPORT.finditer(text):
        target = Path(match.group(1)).expanduser()
        if not target.is_absolute():
            target = path.parent / target
        _load(target, seen, out, depth + 1, path)


def _names_in(directory: Path) -> list[Path]:
    found = [directory / name for name in NAMES if (directory / name).is_file()]
    if not found and (directory / FALLBACK).is_file():
        found = [directory / FALLBACK]
    return found


def load_memory(cwd: Path, *, config_dir: Path) -> list[MemoryFile]:
    seen: set[Path] = set()
    out: list[MemoryFile] = []
    for directory in (config_dir, *_directories(cwd)):
        for path in _names_in(directory):
            _load(path, seen, out, 0, None)
    return out


def memory_prompt(files: Sequence[MemoryFile]) -> str:
    """The system-prompt section holding the files, each under its path."""
    if not files:
        return ""
    blocks = [f"Instructions from {f.path}:\n{f.text.strip()}" for f in files if f.text.strip()]
    return "\n\n".join(blocks)


__all__ = ["MAX_BYTES", "MAX_DEPTH", "MemoryFile", "git_root", "load_memory", "memory_prompt"]
