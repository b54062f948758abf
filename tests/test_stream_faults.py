"""Faults between earshot and a provider, on every wire, over real loopback HTTP: a stream
cut short, a gateway that ignores ``stream: true``, a silent server, a reset connection.
Each must end in an answer or in an error that says what happened, never in a half answer
passed off as a whole one, and never in a silent wait."""

from __future__ import annotations

import socket
from dataclasses import replace

import anyio
import pytest

from earshot.providers.http import Timeouts
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect, retry_text
from earshot.providers.target import AuthStyle, Secret, Target, WireName
from earshot.providers.types import (
    ErrorEvent,
    Message,
    ModelRequest,
    Retrying,
    StreamEvent,
    TextPart,
    ToolCallPart,
    text_of,
)
from tests.fake_provider import (
    FakeProvider,
    RawReply,
    SSEReply,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)
from tests.wire.streams import error_of, finish_of, texts

FAST = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.02)
WIRES: tuple[WireName, ...] = (
    "anthropic-messages",
    "openai-chat",
    "openai-responses",
    "google-gemini",
)
_KEY = "sk-test-0123456789abcdefghij"


def target(fake: FakeProvider, wire: WireName) -> Target:
    provider = {
        "anthropic-messages": "anthropic",
        "openai-chat": "openai-compatible",
        "openai-responses": "openai",
        "google-gemini": "google",
    }[wire]
    auths: dict[WireName, AuthStyle] = {
        "anthropic-messages": "x-api-key",
        "openai-chat": "bearer",
        "openai-responses": "bearer",
        "google-gemini": "x-goog-api-key",
    }
    auth = auths[wire]
    base = fake.base_url + ("/v1" if wire == "openai-responses" else "")
    return Target(
        provider=provider,
        wire=wire,
        base_url=base,
        model="m-1",
        auth=auth,
        api_key=Secret(_KEY),
    )


def ask() -> ModelRequest:
    return ModelRequest(
        model="m-1", messages=[Message(role="user", parts=[TextPart(text="hello")])]
    )


def run(
    fake: FakeProvider,
    wire: WireName,
    *,
    retry: RetryPolicy = FAST,
    timeouts: Timeouts | None = None,
) -> list[StreamEvent]:
    async def go() -> list[StreamEvent]:
        return await collect(ask(), target(fake, wire), retry=retry, timeouts=timeouts)

    return anyio.run(go)


def text_reply(wire: WireName, text: str) -> SSEReply:
    match wire:
        case "anthropic-messages":
            return anthropic.text_turn(text, chunks=4)
        case "openai-chat":
            return openai_chat.text_turn(text, chunks=4)
        case "openai-responses":
            return openai_responses.text_turn(text, chunks=4)
        case _:
            return gemini.text_turn(text, chunks=4)


def without_terminal(wire: WireName, reply: SSEReply, keep_content: bool) -> SSEReply:
    """The reply cut cleanly before its terminal event: keeping the content, or before any
    of it (only the opening lifecycle events)."""
    frames = reply.frames
    if keep_content:
        drop = {"anthropic-messages": 1, "openai-chat": 3, "openai-responses": 1}.get(wire, 1)
        return replace(reply, frames=frames[:-drop])
    keep = {"anthropic-messages": 1, "openai-chat": 0, "openai-responses": 2}.get(wire, 0)
    return replace(reply, frames=frames[:keep])


# --- a stream that ends without its terminal event ----------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_a_cut_answer_is_an_incomplete_error_with_the_partial_text_never_a_finish(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    fake_provider.script(without_terminal(wire, text_reply(wire, "one two three four"), True))
    events = run(fake_provider, wire)
    error = error_of(events)
    assert error.kind == "stream_incomplete"
    assert "cut off" in error.message
    assert error.partial is not None
    assert text_of(error.partial) == texts(events) != ""
    assert len(fake_provider.requests) == 1  # text was shown: not retried


@pytest.mark.parametrize("wire", WIRES)
def test_a_cut_before_anything_was_shown_is_retried_and_announced(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    whole = text_reply(wire, "the whole answer")
    fake_provider.script(without_terminal(wire, whole, False), whole)
    events = run(fake_provider, wire)
    assert text_of(finish_of(events).message) == "the whole answer"
    [retrying] = [e for e in events if isinstance(e, Retrying)]
    assert (retrying.attempt, retrying.max_attempts) == (2, 3)
    assert (retrying.kind, retrying.reason) == ("stream_incomplete", "answer cut off")
    assert texts(events[: events.index(retrying)]) == ""  # announced before any text
    assert len(fake_provider.requests) == 2


def test_an_empty_200_body_is_retried_then_reported(fake_provider: FakeProvider) -> None:
    fake_provider.script(*[RawReply(200, b"", content_type="text/event-stream")] * 3)
    error = error_of(run(fake_provider, "anthropic-messages"))
    assert error.kind == "stream_incomplete"
    assert "message_stop" in error.message
    assert len(fake_provider.requests) == 3


# --- a 200 that is not an event stream --------------------------------------------------------

NON_STREAMING: dict[WireName, bytes] = {
    "anthropic-messages": b"""{"id":"msg_01","type":"message","role":"assistant",
        "model":"claude-sonnet-4-6","content":[{"type":"text","text":"Let me look."},
        {"type":"tool_use","id":"call_1","name":"read","input":{"path":"a.py"}}],
        "stop_reason":"tool_use","stop_sequence":null,
        "usage":{"input_tokens":20,"output_tokens":9}}""",
    "openai-chat": b"""{"id":"chatcmpl-1","object":"chat.completion","created":1,
        "model":"m-1","choices":[{"index":0,"message":{"role":"assistant",
        "content":"Let me look.","tool_calls":[{"id":"call_1","type":"function",
        "function":{"name":"read","arguments":"{\\"path\\":\\"a.py\\"}"}}]},
        "finish_reason":"tool_calls"}],
        "usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}}""",
    "openai-responses": b"""{"id":"resp_1","object":"response","status":"completed",
        "output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed",
        "content":[{"type":"output_text","text":"Let me look.","annotations":[]}]},
        {"type":"function_call","id":"fc_1","call_id":"call_1","name":"read",
        "arguments":"{\\"path\\":\\"a.py\\"}","status":"completed"}],
        "usage":{"input_tokens":20,"output_tokens":9,"total_tokens":29}}""",
    "google-gemini": b"""[{"candidates":[{"content":{"role":"model","parts":[
        {"text":"Let me look."},{"functionCall":{"id":"call_1","name":"read",
        "args":{"path":"a.py"}}}]},"finishReason":"STOP"}],
        "usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":9}}]""",
}


@pytest.mark.parametrize("wire", WIRES)
def test_a_json_answer_to_a_streaming_request_is_read_as_the_answer(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    fake_provider.script(RawReply(200, NON_STREAMING[wire]))
    events = run(fake_provider, wire)
    end = finish_of(events)
    assert end.reason == "tool_calls"
    assert text_of(end.message) == texts(events) == "Let me look."
    [call] = [p for p in end.message.parts if isinstance(p, ToolCallPart)]
    assert (call.id, call.name, call.input) == ("call_1", "read", {"path": "a.py"})
    assert (end.usage.prompt_total, end.usage.output) == (20, 9)
    assert len(fake_provider.requests) == 1


def test_a_single_gemini_response_object_is_read_too(fake_provider: FakeProvider) -> None:
    body = NON_STREAMING["google-gemini"].strip()[1:-1]
    fake_provider.script(RawReply(200, body))
    end = finish_of(run(fake_provider, "google-gemini"))
    assert text_of(end.message) == "Let me look."


@pytest.mark.parametrize("wire", WIRES)
def test_a_body_that_is_no_answer_names_its_content_type_and_first_bytes(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    page = b"<html><body>Please sign in to the corporate proxy</body></html>"
    fake_provider.script(RawReply(200, page, content_type="text/html"))
    error = error_of(run(fake_provider, wire))
    assert error.kind == "server"
    assert "text/html" in error.message
    assert "Please sign in" in error.message
    assert len(fake_provider.requests) == 1  # the same page would come back


def test_json_that_is_not_the_wires_answer_is_named_as_such(fake_provider: FakeProvider) -> None:
    fake_provider.script(RawReply(200, b'{"status": "ok"}'))
    error = error_of(run(fake_provider, "anthropic-messages"))
    assert "application/json" in error.message
    assert "JSON answer of the anthropic-messages wire" in error.message


# --- silence, resets, refusals ------------------------------------------------------------


def test_a_stalled_stream_times_out_after_the_idle_timeout_and_is_retried(
    fake_provider: FakeProvider,
) -> None:
    stalled = replace(anthropic.text_turn("never mind", chunks=3), delay=30.0)
    fake_provider.script(stalled, stalled, stalled)
    events = run(fake_provider, "anthropic-messages", timeouts=Timeouts(idle=0.3))
    error = error_of(events)
    assert error.kind == "network"
    assert "stalled" in error.message
    assert "EARSHOT_IDLE_TIMEOUT_MS" in error.message
    assert len(fake_provider.requests) == 3


def test_a_server_silent_before_its_headers_times_out(fake_provider: FakeProvider) -> None:
    silent = replace(anthropic.text_turn("late"), stall=30.0)
    fake_provider.script(silent, anthropic.text_turn("on time"))
    events = run(fake_provider, "anthropic-messages", timeouts=Timeouts(idle=0.3))
    assert text_of(finish_of(events).message) == "on time"
    [retrying] = [e for e in events if isinstance(e, Retrying)]
    assert retrying.reason == "timed out"
    assert f"no answer from 127.0.0.1:{fake_provider.base_url.rsplit(':', 1)[1]}" in (
        retrying.message
    )


def test_a_reset_connection_says_by_whom_and_how_far_the_answer_got(
    fake_provider: FakeProvider,
) -> None:
    long_text = "x" * 6000
    reply = replace(anthropic.text_turn(long_text, chunks=6), cut_after=6, reset=True)
    fake_provider.script(reply)
    error = error_of(run(fake_provider, "anthropic-messages"))
    port = fake_provider.base_url.rsplit(":", 1)[1]
    assert error.kind == "network"
    assert f"by 127.0.0.1:{port} after " in error.message
    assert " kB of the answer" in error.message
    assert "ReadError" not in error.message
    assert error.partial is not None and text_of(error.partial) != ""


def test_a_refused_connection_is_named(fake_provider: FakeProvider) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = Target(
        provider="anthropic",
        wire="anthropic-messages",
        base_url=f"http://127.0.0.1:{port}",
        model="m-1",
        auth="x-api-key",
        api_key=Secret(_KEY),
    )

    async def go() -> list[StreamEvent]:
        return await collect(ask(), closed, retry=FAST)

    events = anyio.run(go)
    error = error_of(events)
    assert error.message == (
        f"anthropic: connection refused by 127.0.0.1:{port} (base URL http://127.0.0.1:{port})"
    )
    notices = [e for e in events if isinstance(e, Retrying)]
    assert [n.attempt for n in notices] == [2, 3]
    assert _KEY not in repr(events)


def test_every_retry_is_announced_before_its_wait_with_the_vendors_delay(
    fake_provider: FakeProvider,
) -> None:
    limited = anthropic.error_reply(429, "Slow down", headers={"retry-after-ms": "20"})
    fake_provider.script(limited, anthropic.text_turn("fine"))
    events = run(fake_provider, "anthropic-messages")
    [retrying] = [e for e in events if isinstance(e, Retrying)]
    assert events[0] is retrying
    assert (retrying.kind, retrying.status, retrying.delay) == ("rate_limit", 429, 0.02)
    assert retry_text(replace_delay(retrying, 4.0)) == (
        "retrying in 4 s (rate limited, attempt 2/3)"
    )
    assert not [e for e in events if isinstance(e, ErrorEvent)]


def replace_delay(event: Retrying, delay: float) -> Retrying:
    return Retrying(
        attempt=event.attempt,
        max_attempts=event.max_attempts,
        kind=event.kind,
        reason=event.reason,
        message=event.message,
        delay=delay,
        status=event.status,
    )


def test_a_wait_longer_than_earshot_accepts_is_named_not_silently_dropped(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(anthropic.error_reply(429, "Slow down", headers={"retry-after": "3600"}))
    error = error_of(run(fake_provider, "anthropic-messages"))
    assert error.kind == "rate_limit"
    assert "asked to wait 3600 s" in error.message
    assert len(fake_provider.requests) == 1
