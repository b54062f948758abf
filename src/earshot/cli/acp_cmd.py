"""``earshot acp``: the ACP v1 server on stdio, for editors.

stdout carries protocol messages only: the server writes to a duplicate of the original
stdout, and file descriptor 1 is pointed at stderr, so a stray print, a library's output
or a child process can never corrupt the stream. stdin is read the same way, and
descriptor 0 becomes the null device, so no child process can take the editor's bytes.
Logs go to stderr. Exit status 0 when the client goes or a signal ends the server; 2 for
a bad flag. The protocol library is imported here, not at start-up of other commands.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import BinaryIO

from earshot.cli._errors import UsageError, guarded


def _protocol_streams() -> tuple[BinaryIO, int]:
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    in_fd = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(in_fd, "rb"), out_fd


def _serve(model: str | None, permission_mode: str | None) -> int:
    if permission_mode is not None:
        from earshot.core.permissions import parse_mode

        try:
            parse_mode(permission_mode)
        except ValueError as exc:
            raise UsageError(f"--permission-mode: {exc}") from exc
    level = os.environ.get("EARSHOT_LOG_LEVEL", "INFO").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else "INFO",
        format="earshot acp: %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request is noise
    import anyio

    from earshot.acp import serve
    from earshot.cli._sources import mcp_servers

    infile, out_fd = _protocol_streams()
    anyio.run(
        lambda: serve(
            model=model,
            permission_mode=permission_mode,
            infile=infile,
            out_fd=out_fd,
            sources=mcp_servers,
        )
    )
    return 0


def main(*, model: str | None, permission_mode: str | None) -> int:
    return guarded(lambda: _serve(model, permission_mode))


__all__ = ["main"]
