"""A run that never started, in earshot.v1: what ``json`` and ``stream-json`` print for a
usage or configuration error (unknown model, missing key, bad flag), so a script that
parses stdout always gets a ``result``.

::

    format_in(args)                   the JSON format the command line asked for, or None
                                      (found without parsing the rest, which may be bad)
    write_usage_error(fmt, out, ...)  stream-json: an ``error`` record, then the result;
                                      json: the result alone
    report_failure(fmt, out, exc)     that, for an exception a person can fix (a
                                      ``UserError`` or ``ProviderError``), when ``fmt`` is
                                      JSON; only ever called before anything was written

The result has ``success: false``, ``stop_reason: "error"``, no session (``session_id``
empty), nothing spent, and ``error: {kind, message}`` with ``kind`` ``usage`` (or the
provider error's kind: ``auth`` for a missing key). The exit status stays 2 and the message
also goes to stderr, as in text mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

import msgspec

from earshot.headless.render import SCHEMA, OutputFormat, parse_output_format
from earshot.providers.types import JSONValue


def format_in(args: Sequence[str]) -> OutputFormat | None:
    """``json`` or ``stream-json`` when ``--output-format`` names one, else None."""
    for index, word in enumerate(args):
        value: str | None = None
        if word == "--output-format" and index + 1 < len(args):
            value = args[index + 1]
        elif word.startswith("--output-format="):
            value = word.partition("=")[2]
        if value is None:
            continue
        try:
            fmt = parse_output_format(value)
        except ValueError:
            return None
        return fmt if fmt != "text" else None
    return None


def write_usage_error(fmt: OutputFormat, out: TextIO, message: str, kind: str = "usage") -> None:
    error: dict[str, JSONValue] = {"kind": kind, "message": message}
    result: dict[str, JSONValue] = {
        "schema": SCHEMA,
        "type": "result",
        "success": False,
        "stop_reason": "error",
        "text": "",
        "session_id": "",
        "num_turns": 0,
        "duration_ms": 0,
        "usage": {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
        },
        "cost_usd": 0.0,
        "total_cost_usd": 0.0,
        "cost_note": None,
        "permission_denials": [],
        "error": error,
        "verification": "not_configured",
    }
    records = [result] if fmt == "json" else [{"schema": SCHEMA, "type": "error", **error}, result]
    for record in records:
        out.write(msgspec.json.encode(record).decode() + "\n")
    out.flush()


def report_failure(fmt: OutputFormat | None, out: TextIO, exc: BaseException) -> None:
    from earshot._base.errors import UserError
    from earshot.providers.errors import ProviderError

    if fmt is None or fmt == "text":
        return
    if isinstance(exc, ProviderError):
        write_usage_error(fmt, out, exc.message, exc.kind)
    elif isinstance(exc, UserError):
        write_usage_error(fmt, out, str(exc))


__all__ = ["format_in", "report_failure", "write_usage_error"]
