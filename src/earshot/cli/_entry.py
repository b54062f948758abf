"""The console-script entry point.

``--version`` and the top-level ``--help`` are answered before anything heavy is imported
(cyclopts, httpx, rich, the catalog): they are what people and scripts run most often to
check an install, and they must feel instant. Subcommands go to the cyclopts app; with a
terminal on both ends and no ``-p``, the interactive UI; anything else is a headless run
(``earshot -p ...``, ``earshot "PROMPT"`` or a prompt piped to stdin: ``print_cmd``).
"""

from __future__ import annotations

import os
import sys

CLOSED_PIPE = 141
"""The exit status when the reader of stdout went away (``earshot ... | head``): what a
program killed by SIGPIPE reports, without the traceback."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(args)
    except BrokenPipeError:
        # Whoever read stdout has closed it: stop quietly. Point stdout at the null device so
        # the interpreter's final flush does not fail a second time.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return CLOSED_PIPE


def _dispatch(args: list[str]) -> int:
    if args in (["--version"], ["-V"]):
        from earshot import __version__

        sys.stdout.write(f"earshot {__version__}\n")
        return 0
    if args in (["--help"], ["-h"], ["help"]):
        from earshot.cli._commands import top_level_help

        sys.stdout.write(top_level_help())
        return 0
    if not args and not _terminal() and sys.stdin.isatty():
        sys.stderr.write(
            "earshot: stdout is not a terminal; for one headless turn use earshot -p PROMPT "
            "(earshot --help shows the rest)\n"
        )
        return 2
    from earshot.cli._commands import COMMANDS

    if args and args[0] in COMMANDS:
        from earshot.cli.app import run

        return run(args)
    if _terminal() and not _printing(args):
        from earshot.cli._errors import guarded
        from earshot.cli.tui_cmd import main as tui

        return guarded(lambda: tui(args))
    from earshot.cli.print_cmd import main as headless

    return headless(args)


def _terminal() -> bool:
    """A terminal on both ends: where the interactive UI can run."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _printing(args: list[str]) -> bool:
    return any(a in ("-p", "--print") or a.startswith("--print=") for a in args)
