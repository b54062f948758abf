"""``earshot`` in a terminal with no ``-p``: the interactive UI (being built: see issue 8)."""

from __future__ import annotations

from earshot.cli.run_cmd import HeadlessUsageError


def main(args: list[str]) -> int:
    raise HeadlessUsageError(
        "the interactive terminal UI is not in this build yet; run one turn with earshot -p PROMPT"
    )
