"""Keys typed before the input box is drawn, kept as typed.

Until prompt_toolkit puts the terminal in raw mode (just before the first paint), the
terminal itself handles what is typed: it echoes it wherever the cursor is and turns Enter
into a newline, so a line typed during start-up lands above the UI and then sits in the
box unsent. ``keys_held`` turns that off as soon as the command line knows the UI will
start (echo, line editing, and the carriage-return translation; Ctrl-C still interrupts):
the bytes wait in the terminal, unechoed, and the input box reads them as keys, Enter
included. The terminal's own settings come back on the way out. Standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress


@contextmanager
def keys_held(fd: int | None = None) -> Iterator[None]:
    """Hold the keys typed on ``fd`` (stdin) for the input box until the UI reads them."""
    if sys.platform == "win32":
        yield
        return
    import termios

    try:
        fd = sys.stdin.fileno() if fd is None else fd
        saved = termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        yield
        return
    held = [*saved[:6], list(saved[6])]
    held[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR)
    held[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
    held[6][termios.VMIN] = 1
    held[6][termios.VTIME] = 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, held)
    except termios.error:
        yield
        return
    try:
        yield
    finally:
        with suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


__all__ = ["keys_held"]
