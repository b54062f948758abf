"""``earshot doctor``: what this install has and can reach (being built: see issue 9)."""

from __future__ import annotations

from earshot.cli._errors import UsageError


def main(*, as_json: bool) -> int:
    raise UsageError("earshot doctor is not in this build yet")
