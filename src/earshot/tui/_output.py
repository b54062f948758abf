"""The terminal as earshot writes to it: no queries, and whole updates in one write.

``quiet_output`` turns prompt-toolkit's cursor position request off: earshot never sends
a query a terminal might not answer (ConPTY hangs on them). ``write_above`` prints into
the scrollback above the live region as one synchronized update (mode 2026: a mode set,
not a query), and as one write: prompt-toolkit's ``erase`` flushes on its own, so without
``HeldOutput`` the erased live region would reach the terminal before the text and the
redraw, a state a terminal without mode 2026 shows for a moment and a screen reader (or
the test harness) can sample.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from prompt_toolkit.output import Output, create_output
from prompt_toolkit.output.vt100 import Vt100_Output

if TYPE_CHECKING:
    from prompt_toolkit.application import Application

SYNC_START = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"


class HeldOutput(Vt100_Output):
    """A VT100 output whose flushes can be held until the update is complete."""

    held = False

    def flush(self) -> None:
        if not self.held:
            super().flush()


def quiet_output() -> Output:
    """The terminal's output, with no cursor position request."""
    output: Output
    if sys.platform != "win32" and sys.stdout.isatty():
        output = HeldOutput.from_pty(sys.stdout, term=os.environ.get("TERM"))
    else:
        output = create_output(stdout=sys.stdout)
    if isinstance(output, Vt100_Output):
        output.enable_cpr = False
    return output


def write_above(app: Application[int], out: Output, text: str) -> None:
    """Erase the live region, write ``text``, redraw the live region: one update."""
    holder = out if isinstance(out, HeldOutput) else None
    if holder is not None:
        holder.held = True
    try:
        out.write_raw(SYNC_START)
        app.renderer.erase()
        out.write_raw(text if text.endswith("\n") else text + "\n")
        app.renderer.reset()
        app._redraw()  # now, inside the synchronized update, so nothing flickers
        out.write_raw(SYNC_END)
    finally:
        if holder is not None:
            holder.held = False
        out.flush()


__all__ = ["SYNC_END", "SYNC_START", "HeldOutput", "quiet_output", "write_above"]
