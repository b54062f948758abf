"""``earshot [OPTIONS]`` without a terminal on both ends (or with ``-p``): the command line
as ``HeadlessOptions`` for the headless front-end (``earshot.headless``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from earshot.cli._errors import guarded
from earshot.cli._flags import parse_flags, session_options, text_flag, words_flag
from earshot.cli._sources import mcp_servers
from earshot.headless.run import HeadlessOptions, HeadlessUsageError, run_headless


def read_prompt(prompt: str | None) -> str:
    """The prompt from the flag, or from stdin for ``-p -`` or a piped stdin."""
    if prompt == "-" or (prompt in (None, "") and not sys.stdin.isatty()):
        text = sys.stdin.read()
    else:
        text = prompt or ""
    if not text.strip():
        raise HeadlessUsageError("no prompt: pass -p PROMPT, or -p - to read it from stdin")
    return text


def options_from(args: list[str]) -> HeadlessOptions:
    """Options from the top-level command line (``_flags``), the prompt read."""
    values = parse_flags(args)
    prompt = text_flag(values, "prompt")
    if prompt is None and sys.stdin.isatty():
        raise HeadlessUsageError(
            "the interactive UI needs a terminal on both stdin and stdout; to run one turn "
            "with output to a pipe or file, use earshot -p PROMPT"
        )
    cwd = text_flag(values, "cwd")
    return HeadlessOptions(
        session=session_options(values, Path(cwd) if cwd else Path.cwd()),
        prompt=read_prompt(prompt),
        output_format=text_flag(values, "output_format") or "text",
        images=words_flag(values, "images"),
        verbose=values.get("verbose") is True,
        sources=mcp_servers,
    )


def main(args: list[str]) -> int:
    """``earshot [OPTIONS]`` without a terminal on both ends: a headless run."""
    return guarded(lambda: run_headless(options_from(args)))


__all__ = ["main", "options_from", "read_prompt"]
