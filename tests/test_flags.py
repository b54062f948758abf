"""The top-level command line: one table parses the flags and prints them in --help."""

from __future__ import annotations

import pytest

from earshot.cli._commands import top_level_help
from earshot.cli._flags import FLAGS, FlagError, parse_flags


def test_values_by_next_word_or_equals_and_lists_accumulate() -> None:
    values = parse_flags(
        [
            "-p",
            "fix it",
            "--model=anthropic/x",
            "--allow",
            "Bash(ls)",
            "--allow=Read(*)",
            "--max-turns",
            "3",
            "--max-budget-usd",
            "0.5",
            "-c",
            "--verbose",
        ]
    )
    assert values == {
        "prompt": "fix it",
        "model": "anthropic/x",
        "allow": ["Bash(ls)", "Read(*)"],
        "max_turns": 3,
        "max_budget_usd": 0.5,
        "continue_latest": True,
        "verbose": True,
    }


def test_a_dash_is_the_stdin_prompt() -> None:
    assert parse_flags(["-p", "-"]) == {"prompt": "-"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["stray"], "unknown argument 'stray'"),
        (["-p"], "-p needs a value (PROMPT)"),
        (["--model", "--verbose"], "--model needs a value"),
        (["--max-turns", "many"], "whole number"),
        (["--max-turns", "0"], "at least 1"),
        (["--max-budget-usd", "-1"], "needs a value"),
        (["--verbose=yes"], "takes no value"),
    ],
)
def test_malformed_command_lines_say_what_is_wrong(args: list[str], message: str) -> None:
    with pytest.raises(FlagError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_flags(args)


def test_help_lists_every_flag() -> None:
    text = top_level_help()
    for flag in FLAGS:
        assert ", ".join(flag.names) in text
