"""The unified types survive a JSON round trip exactly, provider metadata included."""

from __future__ import annotations

import msgspec

from earshot.providers.types import (
    Finish,
    ImagePart,
    Message,
    ReasoningPart,
    StreamEvent,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)


def test_message_with_metadata_round_trips_byte_for_byte() -> None:
    message = Message(
        role="assistant",
        parts=[
            ReasoningPart(text="", provider_metadata={"anthropic": {"redacted": "b64=="}}),
            TextPart(text="done", provider_metadata={"google": {"thoughtSignature": "sig"}}),
            ToolCallPart(id="c1", name="read", input={"path": "a.py", "n": [1, 2.5, None]}),
        ],
    )
    encoded = msgspec.json.encode(message)
    decoded = msgspec.json.decode(encoded, type=Message)
    assert decoded == message
    assert msgspec.json.encode(decoded) == encoded


def test_tool_result_holds_text_and_images() -> None:
    result = Message(
        role="tool",
        parts=[
            ToolResultPart(
                call_id="c1",
                name="screenshot",
                content=[TextPart(text="ok"), ImagePart(media_type="image/png", data="AAAA")],
                is_error=True,
            )
        ],
    )
    assert msgspec.json.decode(msgspec.json.encode(result), type=Message) == result


def test_stream_events_decode_by_their_type_tag() -> None:
    event = Finish(
        reason="tool_calls",
        message=Message(role="assistant", parts=[]),
        usage=Usage(input=1, output=2, cache_read=3),
    )
    raw = msgspec.json.encode(event)
    assert b'"type":"finish"' in raw
    assert msgspec.json.decode(raw, type=StreamEvent) == event


def test_usage_adds_fieldwise_and_totals_the_prompt() -> None:
    total = Usage(input=10, output=5, cache_read=100, cache_write=7, reasoning=2) + Usage(
        input=1, output=1
    )
    assert total == Usage(input=11, output=6, cache_read=100, cache_write=7, reasoning=2)
    assert total.prompt_total == 118
