"""``earshot acp``: the ACP v1 server on stdio (being built: see issue 7)."""

from __future__ import annotations

from earshot.cli._errors import UsageError


def main(*, model: str | None, permission_mode: str | None) -> int:
    raise UsageError("earshot acp is not in this build yet")
