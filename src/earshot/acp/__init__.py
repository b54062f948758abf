"""ACP v1 server over stdio. Translates ACP requests to `core`'s session and turn contracts.

``serve`` runs it; ``_early`` answers ``initialize`` before the protocol library loads,
``_server`` holds the requests, ``_updates`` the event mapping, ``_interact`` permission
prompts and questions, ``_transport`` the JSON-RPC lines. Importing this package loads
neither the protocol library nor core: ``serve`` does, after the first reply.
"""

from __future__ import annotations

from earshot.acp._early import Early, answer_initialize

# typing costs an import before the first reply; mypy honours a TYPE_CHECKING of our own.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

    from earshot.core.extensions import SourceFactory


async def serve(
    *,
    model: str | None,
    permission_mode: str | None,
    infile: BinaryIO,
    out_fd: int,
    sources: SourceFactory | None = None,
    early: Early | None = None,
) -> None:
    from earshot.acp._main import serve as run

    await run(
        model=model,
        permission_mode=permission_mode,
        infile=infile,
        out_fd=out_fd,
        sources=sources,
        early=early,
    )


__all__ = ["Early", "answer_initialize", "serve"]
