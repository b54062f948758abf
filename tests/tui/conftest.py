"""The pseudo-terminal tests need a POSIX pty (``os.openpty``, ``termios``); on Windows only
the rendering tests, which need no terminal, are collected."""

from __future__ import annotations

import sys

collect_ignore = (
    [
        "terminal.py",
        "test_terminal.py",
        "test_commands.py",
        "test_render_cost.py",
        "test_live_output.py",
        "test_glitches.py",
        "test_scope_editor.py",
        "test_startup.py",
    ]
    if sys.platform == "win32"
    else []
)
