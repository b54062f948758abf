"""What a wire adapter is.

A ``Wire`` turns a ``ModelRequest`` into one HTTP call (``build_call``), turns the vendor's
SSE events back into ``StreamEvent``s (``parser``), and maps an HTTP error answer onto the
taxonomy (``error_from_response``). It does no I/O: ``providers.stream`` owns the shared
httpx client, retries, abort and the SSE decoder, so every adapter gets them the same way
and each adapter's request body can be pinned by a test without a server.

A ``StreamParser`` holds one call's state. ``feed`` returns the events an SSE event
completes; ``close`` is called at end of stream and returns the terminal event if none was
produced yet. After a terminal event (``Finish`` or ``ErrorEvent``) both return ``[]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from earshot.providers.errors import ProviderError
from earshot.providers.sse import SSEEvent
from earshot.providers.target import Target, WireName
from earshot.providers.types import JSONObject, ModelRequest, StreamEvent


@dataclass(frozen=True, kw_only=True)
class HttpCall:
    """One request to send: ``body`` is JSON, encoded by the caller."""

    url: str
    headers: Mapping[str, str]
    body: JSONObject
    method: str = "POST"
    params: Mapping[str, str] = field(default_factory=dict)


class StreamParser(Protocol):
    @property
    def done(self) -> bool:
        """Whether a terminal event has been produced."""
        ...

    def feed(self, event: SSEEvent) -> list[StreamEvent]: ...

    def close(self) -> list[StreamEvent]: ...

    def abort(self) -> list[StreamEvent]:
        """The caller aborted: the terminal ``Finish(reason="aborted")`` with what was
        complete so far."""
        ...


class Wire(Protocol):
    @property
    def name(self) -> WireName: ...

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall: ...

    def parser(self, request: ModelRequest, target: Target) -> StreamParser: ...

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError: ...


__all__ = ["HttpCall", "StreamParser", "Wire"]
