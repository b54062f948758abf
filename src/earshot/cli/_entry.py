"""The console-script entry point. Answers ``--version`` before importing anything heavy."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from earshot import __version__

        sys.stdout.write(f"earshot {__version__}\n")
        return 0
    from earshot.cli.app import run

    return run(args)
