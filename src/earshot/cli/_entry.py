"""The console-script entry point.

``--version`` and the top-level ``--help`` are answered before anything heavy is imported
(cyclopts, httpx, rich, the catalog): they are what people and scripts run most often to
check an install, and they must feel instant. Subcommands go to the cyclopts app; with a
terminal on both ends and no ``-p``, the interactive UI; anything else is a headless run
(``earshot -p ...``, ``earshot "PROMPT"`` or a prompt piped to stdin: ``print_cmd``).
"""

from __future__ import annotations

import gc
import os
import sys

GC_THRESHOLD = 100_000
"""The collector's young-generation threshold once past the fast paths (see ``_dispatch``)."""

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
    # Start-up allocates thousands of long-lived objects (modules, classes, functions) and
    # no garbage: at the default threshold (700) the collector ran ~90 times before the
    # first model request of `earshot -p`, 5-7% of the run, finding nothing to free. A
    # young-generation threshold of 100,000 keeps it out of start-up and still collects
    # cycles during a long session.
    gc.set_threshold(GC_THRESHOLD, 10, 10)
    if args and args[0] == "acp" and (flags := _acp_flags(args[1:])) is not None:
        # An editor starts `earshot acp` and waits for its first reply: skip the command
        # parser (cyclopts) for the flags editors pass; anything else goes through it.
        from earshot.cli.acp_cmd import main as acp

        return acp(**flags)
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


_ACP_FLAGS = {"--model": "model", "-m": "model", "--permission-mode": "permission_mode"}


def _acp_flags(args: list[str]) -> dict[str, str | None] | None:
    """``earshot acp``'s own flags (``--model``/``-m``, ``--permission-mode``, each once,
    as ``--flag value`` or ``--flag=value``), or None for anything else (``--help``, a
    typo), which the command parser answers."""
    found: dict[str, str | None] = {"model": None, "permission_mode": None}
    seen: set[str] = set()
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        key = _ACP_FLAGS.get(name)
        if key is None or key in seen or (eq and name == "-m"):
            return None
        if not eq:
            if not rest or rest[0].startswith("-"):
                return None
            value = rest.pop(0)
        seen.add(key)
        found[key] = value
    return found


def _terminal() -> bool:
    """A terminal on both ends: where the interactive UI can run."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _printing(args: list[str]) -> bool:
    return any(a in ("-p", "--print") or a.startswith("--print=") for a in args)
