"""Serving ``tests.fake_provider`` replies (SSE turns, raw error bodies) from a routed fake."""

from __future__ import annotations

from tests.fake_cloud._http import Answer
from tests.fake_provider._replies import RawReply, SSEReply


def serve(reply: SSEReply | RawReply | None, what: str) -> Answer:
    if reply is None:
        return Answer.json(500, {"error": {"message": f"fake {what}: no scripted reply"}})
    if isinstance(reply, RawReply):
        return Answer(
            reply.status, reply.body, {"content-type": reply.content_type, **reply.headers}
        )
    headers = {"content-type": "text/event-stream", **reply.headers}
    return Answer(reply.status, headers=headers, chunks=reply.body_chunks())
