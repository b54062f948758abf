"""The cyclopts application."""

from __future__ import annotations


def run(args: list[str]) -> int:
    raise NotImplementedError
