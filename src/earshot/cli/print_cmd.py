"""``earshot [OPTIONS]`` without a terminal on both ends (or with ``-p``): the command line
as ``HeadlessOptions`` for the headless front-end (``earshot.headless``).

Where the prompt comes from:

- ``earshot -p "why?"`` (or ``earshot "why is it red?"``: a positional prompt of one bare
  word is taken for a mistyped command): the words; when stdin is a pipe or a file, what
  it holds is appended below them as context (``cat log | earshot -p "why?"``);
- ``earshot -p`` or ``earshot -p -`` with stdin piped: stdin is the prompt
  (``echo "fix the bug" | earshot -p``);
- ``earshot`` alone with stdin piped: the same (``echo hi | earshot``).

Stdin is read to its end: a runner that leaves stdin open and never writes it should
pass ``< /dev/null``.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from earshot.cli._errors import guarded
from earshot.cli._flags import parse_flags, session_options, text_flag, words_flag
from earshot.cli._sources import mcp_servers
from earshot.headless.run import HeadlessOptions, HeadlessUsageError, run_headless

STDIN_HEADING = "Input (from stdin):"


def stdin_piped() -> bool:
    """Stdin is a pipe or a regular file: something was handed to earshot to read (a
    terminal, ``/dev/null`` or a closed stdin is not)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def read_prompt(prompt: str | None) -> str:
    """The prompt from the flag, from stdin (``-p -``, ``-p`` alone, or no prompt with
    stdin piped), or the flag's words with piped stdin appended as context."""
    if prompt in (None, "", "-"):
        text = sys.stdin.read() if (prompt == "-" or not sys.stdin.isatty()) else ""
    else:
        text = prompt or ""
        if stdin_piped():
            piped = sys.stdin.read()
            if piped.strip():
                text = f"{text}\n\n{STDIN_HEADING}\n{piped.rstrip()}\n"
    if not text.strip():
        raise HeadlessUsageError(
            'no prompt: pass -p PROMPT (or earshot "PROMPT"), or pipe it: echo PROMPT | earshot -p'
        )
    return text


def normalize(args: list[str]) -> tuple[list[str], str | None]:
    """The flags with ``-p`` given a value (``-`` when none follows: read stdin), and a
    positional prompt (``earshot "fix it"`` with no terminal is ``earshot -p "fix it"``)."""
    from earshot.cli.tui_cmd import split_prompt

    fixed: list[str] = []
    for i, word in enumerate(args):
        fixed.append(word)
        if word in ("-p", "--print"):
            following = args[i + 1] if i + 1 < len(args) else None
            if following is None or (following.startswith("-") and following != "-"):
                fixed.append("-")
    return split_prompt(fixed)


def options_from(args: list[str]) -> HeadlessOptions:
    """Options from the top-level command line (``_flags``), the prompt read."""
    flags, positional = normalize(args)
    values = parse_flags(flags)
    prompt = text_flag(values, "prompt")
    if positional is not None:
        if " " not in positional.strip():
            # One bare word is more likely a mistyped command than a prompt.
            raise HeadlessUsageError(
                f"unknown command {positional!r} (`earshot --help` lists them); to send it "
                f"as a prompt: earshot -p {positional!r}"
            )
        if prompt not in (None, "-"):
            raise HeadlessUsageError(
                f"a prompt twice: -p {prompt!r} and {positional!r}; give one of them"
            )
        prompt = positional
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
    """``earshot [OPTIONS]`` without a terminal on both ends: a headless run. With
    ``--output-format json`` or ``stream-json``, a usage or configuration error also
    writes a ``result`` record to stdout (``headless.usage``)."""
    from earshot.headless.usage import format_in, report_failure

    def run() -> int:
        try:
            options = options_from(args)
        except Exception as exc:
            report_failure(format_in(args), sys.stdout, exc)
            raise
        return run_headless(options)

    return guarded(run)


__all__ = ["STDIN_HEADING", "main", "normalize", "options_from", "read_prompt", "stdin_piped"]
