"""The console-script entry point.

``--version`` and the top-level ``--help`` are answered before anything heavy is imported
(cyclopts, httpx, rich, the catalog): they are what people and scripts run most often to
check an install, and they must feel instant. Subcommands go to the cyclopts app; anything
else is the top-level command line (``earshot -p ...``), parsed by ``_flags``.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from earshot import __version__

        sys.stdout.write(f"earshot {__version__}\n")
        return 0
    if args in ([], ["--help"], ["-h"]):
        from earshot.cli._commands import top_level_help

        sys.stdout.write(top_level_help())
        return 0
    from earshot.cli._commands import COMMANDS

    if args[0] in COMMANDS:
        from earshot.cli.app import run

        return run(args)
    from earshot.cli.run_cmd import main as headless

    return headless(args)
