"""What the directory tools (``grep``, ``glob``, ``ls``) leave out because a deny rule says so.

The gate has already allowed the directory itself; a ``Read`` deny rule may still cover
files below it (``Read(*.pem)``, ``Read(./.env)``). Before a walk opens or lists an entry it
asks ``Withheld.hides``; a hidden file is never opened and never named, a hidden directory
never listed. ``note()`` tells the model how many entries were withheld and by which rule,
so it knows the answer is partial and why (and does not retry through another tool).
"""

from __future__ import annotations

from pathlib import Path

from earshot.core.tools.base import ReadGuard, ToolContext


class Withheld:
    def __init__(self, ctx: ToolContext, tool: str) -> None:
        guard = ctx.guard
        self._guard: ReadGuard | None = (
            guard if guard is not None and guard.denies_reads(tool) else None
        )
        self._tool = tool
        self.counts: dict[str, int] = {}

    @property
    def active(self) -> bool:
        """Whether any deny rule could withhold something from this tool."""
        return self._guard is not None

    def hides(self, path: str | Path, is_link: bool = True) -> bool:
        """Whether ``path`` must be left out (and counted). ``is_link`` False promises that
        ``path`` was built from a resolved root without passing a symlink."""
        if self._guard is None:
            return False
        rule = self._guard.read_denial(self._tool, Path(path), real=not is_link)
        if rule is None:
            return False
        self.counts[rule] = self.counts.get(rule, 0) + 1
        return True

    def skip(self, path: str, is_link: bool) -> bool:
        """``hides`` in the shape ``_ignore.walk`` asks."""
        return self.hides(path, is_link)

    def total(self) -> int:
        return sum(self.counts.values())

    def note(self) -> str:
        """``[2 entries withheld by Read(*.pem) (...)]``, or "" when nothing was."""
        if not self.counts:
            return ""
        parts = [
            f"{n} {'entry' if n == 1 else 'entries'} withheld by {rule}"
            for rule, n in self.counts.items()
        ]
        return (
            f"[{'; '.join(parts)}: a deny rule forbids reading them; they were not opened "
            "or listed. Do not try to reach them another way.]"
        )


__all__ = ["Withheld"]
