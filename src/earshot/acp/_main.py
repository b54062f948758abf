"""Run the ACP server over a protocol input file and output descriptor until the client
goes (end of input) or a SIGINT/SIGTERM arrives; then every turn is aborted, allowed to
finish its transcript, and every session closed."""

from __future__ import annotations

import signal
import sys
from typing import BinaryIO

import anyio
from acp.agent.connection import AgentSideConnection

from earshot.acp._server import EarshotAcpAgent
from earshot.acp._transport import LineTransport
from earshot.core.extensions import SourceFactory


async def serve(
    *,
    model: str | None,
    permission_mode: str | None,
    infile: BinaryIO,
    out_fd: int,
    sources: SourceFactory | None = None,
) -> None:
    agent = EarshotAcpAgent(model=model, permission_mode=permission_mode, sources=sources)
    transport = LineTransport(infile, out_fd)
    # The routes the library still marks unstable (session/resume and session/close here,
    # elicitation on the client side) are stable in ACP v1 schema 1.21: serve them.
    conn = AgentSideConnection(agent, transport, listening=False, use_unstable_protocol=True)
    try:
        async with anyio.create_task_group() as tg:

            async def listen() -> None:
                await conn.listen()
                tg.cancel_scope.cancel()

            async def on_signal() -> None:
                with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        tg.cancel_scope.cancel()
                        return

            tg.start_soon(listen)
            if sys.platform != "win32":
                tg.start_soon(on_signal)
    finally:
        with anyio.CancelScope(shield=True):
            await agent.shutdown()
            await conn.close()


__all__ = ["serve"]
