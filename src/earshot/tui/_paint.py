"""``Painter``: rich renderables -> ANSI text at a terminal's width (colour off for
NO_COLOR); ``EXPAND_KEY``, the key the scrollback names for a full view. Shared by
``render`` and ``_children`` (which ``render`` imports), so neither imports the other back.
"""

from __future__ import annotations

import io
import re

from rich.console import Console, RenderableType

EXPAND_KEY = "Ctrl-O"
_TRAILING = re.compile(r"[ ]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


class Painter:
    """Renders rich objects to ANSI text for a terminal ``width`` columns wide."""

    def __init__(self, width: int = 80, *, color: bool = True) -> None:
        self.width = max(20, width)
        self.color = color

    def render(self, *items: RenderableType) -> str:
        buf = io.StringIO()
        console = Console(
            file=buf,
            width=self.width,
            force_terminal=True,
            color_system="256" if self.color else None,
            no_color=not self.color,
            highlight=False,
            emoji=False,
            legacy_windows=False,
            force_jupyter=False,
        )
        for item in items:
            console.print(item)
        return _TRAILING.sub(r"\1", buf.getvalue())


__all__ = ["EXPAND_KEY", "Painter"]
