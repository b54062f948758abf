"""The scripted fake provider: a real HTTP server on loopback speaking four vendor wires.

Shape::

    FakeProvider, RecordedRequest        the server and what it saw        (_server, _request)
    SSEReply, RawReply, Frame, Reply     what it is told to send            (_replies)
    ToolCallSpec                         a call for the tool_calls_turn builders
    anthropic, openai_chat,              per-wire builders: text_turn, reasoning_turn,
    openai_responses, gemini             tool_calls_turn, error_reply, in_stream_error, Usage
    fixtures                             replay() of recorded streams, replay_error()
    invariants                           assert_tool_results_paired(request, wire)

It imitates the vendors on its own and never imports earshot's wire adapters: adapter tests
point their base URL at ``FakeProvider.base_url``. The ``fake_provider`` pytest fixture
comes from ``tests.fake_provider.plugin``.
"""

from __future__ import annotations

from tests.fake_provider import anthropic, gemini, openai_chat, openai_responses
from tests.fake_provider._replies import Frame, RawReply, Reply, SSEReply, ToolCallSpec
from tests.fake_provider._request import RecordedRequest
from tests.fake_provider._server import NO_REPLY_MESSAGE, FakeProvider
from tests.fake_provider.fixtures import (
    recorded_bodies,
    recorded_streams,
    reference_dir,
    replay,
    replay_error,
)
from tests.fake_provider.invariants import WIRES, Wire, assert_tool_results_paired, detect_wire

__all__ = [
    "NO_REPLY_MESSAGE",
    "WIRES",
    "FakeProvider",
    "Frame",
    "RawReply",
    "RecordedRequest",
    "Reply",
    "SSEReply",
    "ToolCallSpec",
    "Wire",
    "anthropic",
    "assert_tool_results_paired",
    "detect_wire",
    "gemini",
    "openai_chat",
    "openai_responses",
    "recorded_bodies",
    "recorded_streams",
    "reference_dir",
    "replay",
    "replay_error",
]
