"""The ``anthropic-messages`` wire over real HTTP: the fake provider serves Anthropic streams
and errors on loopback, ``providers.stream`` drives the adapter, and every scenario ends in
exactly one terminal event."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import anyio
import pytest

from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect, stream
from earshot.providers.target import Secret, Target
from earshot.providers.types import (
    ErrorEvent,
    JSONValue,
    Message,
    ModelRequest,
    ReasoningPart,
    StreamEvent,
    TextDelta,
    TextPart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallPart,
    ToolCallStart,
    ToolResultPart,
    Usage,
    UsageEvent,
    text_of,
)
from tests.fake_provider import (
    FakeProvider,
    Frame,
    RawReply,
    SSEReply,
    ToolCallSpec,
    assert_tool_results_paired,
    replay,
    replay_error,
)
from tests.fake_provider import anthropic as fake
from tests.fake_provider.fixtures import wire_dir
from tests.wire.cases import LIST_TOOL, READ_TOOL, model_info
from tests.wire.streams import error_of, finish_of, reasonings, texts

FAST = RetryPolicy(base_delay=0.01)
KEY = "sk-ant-api03-stream-test-key-0123456789"
RECORDED = wire_dir() / "anthropic"


# --- helpers -------------------------------------------------------------------------------


def target_for(provider: FakeProvider) -> Target:
    return Target(
        provider="anthropic",
        wire="anthropic-messages",
        base_url=provider.base_url,
        model="test-model",
        auth="x-api-key",
        api_key=Secret(KEY),
        info=model_info("anthropic"),
    )


def ask(text: str = "hi", *, history: list[Message] | None = None) -> ModelRequest:
    messages = (
        history if history is not None else [Message(role="user", parts=[TextPart(text=text)])]
    )
    return ModelRequest(model="test-model", messages=messages, tools=[READ_TOOL, LIST_TOOL])


def run(provider: FakeProvider, request: ModelRequest | None = None) -> list[StreamEvent]:
    async def go() -> list[StreamEvent]:
        return await collect(request or ask(), target_for(provider), retry=FAST)

    return anyio.run(go)


def md(**values: JSONValue) -> dict[str, JSONValue]:
    return {"anthropic": dict(values)}


# --- text, reasoning, tool calls -------------------------------------------------------------


def test_text_in_chunks_concatenates_into_the_finish_message(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.text_turn("Hello there, general Kenobi.", chunks=5))
    events = run(fake_provider)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) == 5
    assert "".join(deltas) == "Hello there, general Kenobi."
    end = finish_of(events)
    assert end.reason == "stop"
    assert end.vendor_reason == "end_turn"
    assert end.message == Message(
        role="assistant", parts=[TextPart(text="Hello there, general Kenobi.")]
    )
    [request] = fake_provider.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.json()["stream"] is True


def test_thinking_keeps_its_signature_and_redacted_thinking_its_data(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(
        fake.reasoning_turn(
            "Let me think step by step.", "Answer.", signature="sig-XYZ==", redacted="blob=="
        )
    )
    events = run(fake_provider)
    assert reasonings(events) == "Let me think step by step."
    assert texts(events) == "Answer."
    assert finish_of(events).message.parts == [
        ReasoningPart(
            text="Let me think step by step.", provider_metadata=md(signature="sig-XYZ==")
        ),
        ReasoningPart(text="", provider_metadata=md(redacted_data="blob==")),
        TextPart(text="Answer."),
    ]


def test_one_tool_call_streams_start_deltas_and_end(fake_provider: FakeProvider) -> None:
    call = ToolCallSpec("toolu_01", "read_file", {"path": "src/a.py"})
    fake_provider.script(fake.tool_calls_turn([call], text="Reading.", arg_chunks=3))
    events = run(fake_provider)
    assert [e for e in events if isinstance(e, ToolCallStart)] == [
        ToolCallStart(id="toolu_01", name="read_file")
    ]
    fragments = [e.arguments for e in events if isinstance(e, ToolCallDelta)]
    assert len(fragments) == 3
    assert json.loads("".join(fragments)) == {"path": "src/a.py"}
    part = ToolCallPart(id="toolu_01", name="read_file", input={"path": "src/a.py"})
    assert [e for e in events if isinstance(e, ToolCallEnd)] == [ToolCallEnd(call=part)]
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("tool_calls", "tool_use")
    assert end.message.parts == [TextPart(text="Reading."), part]


def test_several_tool_calls_including_one_without_arguments(fake_provider: FakeProvider) -> None:
    calls = [
        ToolCallSpec("toolu_a", "read_file", {"path": "a"}),
        ToolCallSpec("toolu_b", "list_dir"),
        ToolCallSpec("toolu_c", "read_file", {"path": "c", "nested": {"n": [1, 2]}}),
    ]
    fake_provider.script(fake.tool_calls_turn(calls, reasoning="plan", arg_chunks=1))
    events = run(fake_provider)
    end = finish_of(events)
    assert end.reason == "tool_calls"
    assert end.message.parts[1:] == [
        ToolCallPart(id="toolu_a", name="read_file", input={"path": "a"}),
        ToolCallPart(id="toolu_b", name="list_dir", input={}),
        ToolCallPart(id="toolu_c", name="read_file", input={"path": "c", "nested": {"n": [1, 2]}}),
    ]
    # Whole arguments in one delta each; the no-argument call streams nothing but still ends.
    assert [e.id for e in events if isinstance(e, ToolCallDelta)] == ["toolu_a", "toolu_c"]
    assert [e.call.id for e in events if isinstance(e, ToolCallEnd)] == [
        "toolu_a",
        "toolu_b",
        "toolu_c",
    ]


def test_tool_input_sent_whole_in_the_block_start_is_kept(fake_provider: FakeProvider) -> None:
    # Some gateways put the complete input in content_block_start and send no deltas.
    start: dict[str, JSONValue] = {
        "type": "tool_use",
        "id": "toolu_w",
        "name": "read_file",
        "input": {"path": "w"},
    }
    frames = [
        fake.message_start(),
        fake.frame({"type": "content_block_start", "index": 0, "content_block": start}),
        fake.frame({"type": "content_block_stop", "index": 0}),
        *fake.message_end(stop="tool_use"),
    ]
    fake_provider.script(SSEReply(frames))
    end = finish_of(run(fake_provider))
    assert end.message.parts == [ToolCallPart(id="toolu_w", name="read_file", input={"path": "w"})]


# --- usage and stop reasons ------------------------------------------------------------------


def test_usage_maps_cache_and_thinking_numbers(fake_provider: FakeProvider) -> None:
    usage = fake.Usage(
        input_tokens=5,
        output_tokens=420,
        cache_creation_input_tokens=300,
        cache_read_input_tokens=12_000,
        thinking_tokens=150,
    )
    fake_provider.script(fake.reasoning_turn("hmm", "ok", usage=usage))
    events = run(fake_provider)
    expected = Usage(input=5, output=420, cache_read=12_000, cache_write=300, reasoning=150)
    assert finish_of(events).usage == expected
    assert expected.prompt_total == 12_305
    usages = [e.usage for e in events if isinstance(e, UsageEvent)]
    assert usages[-1] == expected
    # message_start's numbers (one output token so far) come first, with the first content.
    assert usages[0] == Usage(input=5, output=1, cache_read=12_000, cache_write=300)


def test_final_message_delta_usage_wins_including_input_tokens(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(
        fake.text_turn("x", usage=fake.Usage(input_tokens=61, start_input_tokens=43))
    )
    assert finish_of(run(fake_provider)).usage == Usage(input=61, output=7)


def test_start_usage_kept_for_fields_the_final_delta_omits(fake_provider: FakeProvider) -> None:
    usage = fake.Usage(input_tokens=40, cache_read_input_tokens=9, final_has_input=False)
    fake_provider.script(fake.text_turn("x", usage=usage))
    assert finish_of(run(fake_provider)).usage == Usage(input=40, output=7, cache_read=9)


@pytest.mark.parametrize(
    ("stop", "reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "length"),
        ("pause_turn", "stop"),
        ("a_reason_from_the_future", "stop"),
    ],
)
def test_stop_reason_mapping_keeps_the_vendor_reason(
    fake_provider: FakeProvider, stop: str, reason: str
) -> None:
    fake_provider.script(fake.text_turn("partial", stop=stop))
    end = finish_of(run(fake_provider))
    assert (end.reason, end.vendor_reason) == (reason, stop)
    assert text_of(end.message) == "partial"


def test_max_tokens_mid_tool_call_keeps_the_raw_arguments(fake_provider: FakeProvider) -> None:
    reply = fake.tool_calls_turn([ToolCallSpec("toolu_m", "read_file", {"path": "abc"})])
    # Drop the last argument piece: the arguments stop mid-JSON, as with max_tokens.
    last_piece = max(i for i, f in enumerate(reply.frames) if "input_json_delta" in f.data)
    frames = [f for i, f in enumerate(reply.frames) if i != last_piece]
    frames = [*frames[:-2], *fake.message_end(stop="max_tokens")]
    fake_provider.script(SSEReply(frames))
    end = finish_of(run(fake_provider))
    assert (end.reason, end.vendor_reason) == ("length", "max_tokens")
    [call] = end.message.parts
    assert isinstance(call, ToolCallPart)
    assert isinstance(call.input, str)
    assert call.input == '{"path"'


# --- HTTP errors ---------------------------------------------------------------------------


def test_401_is_an_auth_error_not_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.error_reply(401, "invalid x-api-key"), fake.text_turn("no"))
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("auth", False, 401)
    assert "invalid x-api-key" in error.message
    assert "req_fake_01" in error.message
    assert len(fake_provider.requests) == 1


def test_429_with_retry_after_then_success_is_one_clean_stream(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(
        fake.error_reply(
            429,
            "Number of request tokens has exceeded your per-minute rate limit",
            headers={"retry-after": "0"},
        ),
        fake.text_turn("after the wait"),
    )
    events = run(fake_provider)
    assert not any(isinstance(e, ErrorEvent) for e in events)
    assert texts(events) == "after the wait"
    assert finish_of(events).reason == "stop"
    assert len(fake_provider.requests) == 2
    assert fake_provider.requests[0].body == fake_provider.requests[1].body


def test_400_prompt_too_long_is_context_overflow_not_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        fake.error_reply(400, "prompt is too long: 208310 tokens > 200000 maximum"),
        fake.text_turn("no"),
    )
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("context_overflow", False, 400)
    assert len(fake_provider.requests) == 1


def test_429_spend_cap_is_never_retried(fake_provider: FakeProvider) -> None:
    body = fake.error_body(429, "You have reached your specified workspace API usage limits.")
    error_field = body["error"]
    assert isinstance(error_field, dict)
    error_field["details"] = {"error_code": "enforced_spend_limit_reached"}
    fake_provider.script(
        RawReply.json(429, body, headers={"retry-after": "1"}), fake.text_turn("no")
    )
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("rate_limit", False, 429)
    assert "enforced_spend_limit_reached" in error.message
    assert len(fake_provider.requests) == 1


def test_402_billing_error_is_never_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        fake.error_reply(402, "Your credit balance is too low."), fake.text_turn("no")
    )
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("rate_limit", False, 402)
    assert len(fake_provider.requests) == 1


def test_500_is_retried_then_succeeds(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.error_reply(500, "Internal server error"), fake.text_turn("ok"))
    events = run(fake_provider)
    assert finish_of(events).reason == "stop"
    assert texts(events) == "ok"
    assert len(fake_provider.requests) == 2


def test_non_json_gateway_error_is_a_retryable_server_error(fake_provider: FakeProvider) -> None:
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    reply = RawReply(502, page, content_type="text/html")
    fake_provider.script(reply, reply, reply)
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("server", True, 502)
    assert "502 Bad Gateway" in error.message
    assert len(fake_provider.requests) == 3  # the first try and FAST's two retries


def test_x_should_retry_false_wins(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.error_reply(500, "boom", headers={"x-should-retry": "false"}))
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable) == ("server", False)
    assert len(fake_provider.requests) == 1


# --- broken streams --------------------------------------------------------------------------


def test_stream_cut_cleanly_is_an_incomplete_answer_not_a_finish(
    fake_provider: FakeProvider,
) -> None:
    reply = fake.text_turn("abcdef", chunks=3)
    # message_start, ping, block start, two of three deltas; then the body ends cleanly.
    fake_provider.script(replace(reply, cut_after=5))
    events = run(fake_provider)
    error = error_of(events)
    assert error.kind == "stream_incomplete"
    assert "message_stop" in error.message
    assert error.partial is not None
    assert text_of(error.partial) == texts(events) == "abcd"
    assert len(fake_provider.requests) == 1  # text was shown: never retried


def test_stream_cut_abruptly_after_output_is_a_network_error_without_duplicates(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(replace(fake.text_turn("abcdef", chunks=3), cut_after=5, abrupt=True))
    fake_provider.script(fake.text_turn("should not be fetched"))
    events = run(fake_provider)
    error = error_of(events)
    assert (error.kind, error.retryable) == ("network", True)
    assert texts(events) == "abcd"
    assert error.partial == Message(role="assistant", parts=[TextPart(text="abcd")])
    assert len(fake_provider.requests) == 1


def test_malformed_chunk_after_output_ends_in_a_server_error(fake_provider: FakeProvider) -> None:
    frames = fake.text_turn("abc", chunks=3).frames
    frames.insert(4, Frame("content_block_delta", '{"type":"content_block_delta","index":0,'))
    fake_provider.script(SSEReply(frames))
    events = run(fake_provider)
    error = error_of(events)
    assert (error.kind, error.retryable) == ("server", True)
    assert "malformed stream event" in error.message
    assert texts(events) == "a"
    assert len(fake_provider.requests) == 1


def test_malformed_first_chunk_is_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        SSEReply([Frame("message_start", "not json at all")]), fake.text_turn("ok")
    )
    events = run(fake_provider)
    assert finish_of(events).reason == "stop"
    assert texts(events) == "ok"
    assert len(fake_provider.requests) == 2


def test_in_stream_overloaded_after_output_is_a_retryable_server_error(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(fake.in_stream_error("Hel"), fake.text_turn("not fetched"))
    events = run(fake_provider)
    error = error_of(events)
    assert (error.kind, error.retryable) == ("server", True)
    assert "Overloaded" in error.message
    assert "overloaded_error" in error.message
    assert error.status is None  # the HTTP status was 200
    assert error.partial == Message(role="assistant", parts=[TextPart(text="Hel")])
    assert len(fake_provider.requests) == 1


def test_in_stream_overloaded_right_after_message_start_is_retried(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(fake.in_stream_error(), fake.text_turn("second try"))
    events = run(fake_provider)
    assert not any(isinstance(e, ErrorEvent) for e in events)
    assert finish_of(events).message.parts == [TextPart(text="second try")]
    assert len(fake_provider.requests) == 2


@pytest.mark.parametrize(
    ("error_type", "kind", "retryable"),
    [
        ("api_error", "server", True),
        ("rate_limit_error", "rate_limit", True),
        ("invalid_request_error", "invalid_request", False),
        ("authentication_error", "auth", False),
        ("billing_error", "rate_limit", False),
        ("some_new_error", "unknown", False),
    ],
)
def test_in_stream_error_types_map_like_their_http_twins(
    fake_provider: FakeProvider, error_type: str, kind: str, retryable: bool
) -> None:
    fake_provider.script(fake.in_stream_error("x", error_type=error_type, message="nope"))
    error = error_of(run(fake_provider))
    assert (error.kind, error.retryable) == (kind, retryable)
    assert "nope" in error.message


def test_abort_mid_stream_finishes_aborted(fake_provider: FakeProvider) -> None:
    fake_provider.script(replace(fake.text_turn("one two three four five", chunks=5), delay=0.2))
    request = ask()
    events: list[StreamEvent] = []

    async def consume() -> None:
        abort = anyio.Event()
        request.abort = abort
        async for event in stream(request, target_for(fake_provider), retry=FAST):
            events.append(event)
            if isinstance(event, TextDelta):
                abort.set()

    anyio.run(consume)
    end = finish_of(events)
    assert end.reason == "aborted"
    assert len([e for e in events if isinstance(e, TextDelta)]) == 1
    assert text_of(end.message) == texts(events)


# --- recorded streams ------------------------------------------------------------------------


def recorded_lines(name: str) -> list[dict[str, JSONValue]]:
    lines = (RECORDED / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def recorded_deltas(name: str, field: str) -> str:
    """The concatenation of every ``delta.<field>`` string in a recorded chunks file."""
    out: list[str] = []
    for event in recorded_lines(name):
        delta = event.get("delta")
        if event.get("type") == "content_block_delta" and isinstance(delta, dict):
            value = delta.get(field)
            if isinstance(value, str):
                out.append(value)
    return "".join(out)


def block_frames(
    index: int, start: dict[str, JSONValue], deltas: list[dict[str, JSONValue]]
) -> list[Frame]:
    frames = [fake.frame({"type": "content_block_start", "index": index, "content_block": start})]
    frames += [
        fake.frame({"type": "content_block_delta", "index": index, "delta": delta})
        for delta in deltas
    ]
    frames.append(fake.frame({"type": "content_block_stop", "index": index}))
    return frames


def message_as_stream(name: str) -> SSEReply:
    """A recorded non-streaming Message body served as the stream the API sends for it:
    message_start (no content, one output token), each block as start/deltas/stop, then
    message_delta with the body's stop reason and usage, and message_stop."""
    body = json.loads((RECORDED / name).read_text(encoding="utf-8"))
    usage = body["usage"]
    start_usage = {**usage, "output_tokens": 1}
    start_usage.pop("output_tokens_details", None)
    message = {**body, "content": [], "stop_reason": None, "usage": start_usage}
    frames = [fake.frame({"type": "message_start", "message": message})]
    for index, block in enumerate(body["content"]):
        deltas: list[dict[str, JSONValue]]
        if block["type"] == "text":
            start: dict[str, JSONValue] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        elif block["type"] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        else:
            assert block["type"] == "tool_use"
            start = {**block, "input": {}}
            arguments = json.dumps(block["input"]) if block["input"] else ""
            deltas = [{"type": "input_json_delta", "partial_json": arguments}]
        frames += block_frames(index, start, deltas)
    stop = {"stop_reason": body["stop_reason"], "stop_sequence": body["stop_sequence"]}
    frames.append(fake.frame({"type": "message_delta", "delta": stop, "usage": usage}))
    frames.append(fake.frame({"type": "message_stop"}))
    return SSEReply(frames)


def check_text(provider: FakeProvider) -> None:
    name = "anthropic-text.chunks.txt"
    provider.script(replay(f"anthropic/{name}"))
    events = run(provider)
    text = "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?"  # noqa: E501
    assert texts(events) == recorded_deltas(name, "text") == text
    end = finish_of(events)
    assert end.message.parts == [TextPart(text=text)]
    assert (end.reason, end.vendor_reason) == ("stop", "end_turn")
    assert end.usage == Usage(input=12, output=30)


def check_clear_thinking(provider: FakeProvider) -> None:
    name = "anthropic-clear-thinking.1.chunks.txt"
    provider.script(replay(f"anthropic/{name}"))
    events = run(provider)
    thinking = "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
    assert reasonings(events) == recorded_deltas(name, "thinking") == thinking
    assert texts(events) == "925 ÷ 5 = 185"
    signature = recorded_deltas(name, "signature")
    assert signature.startswith("EvQBCkYICxgCKkAxhD4N")
    assert signature.endswith("BgB")
    end = finish_of(events)
    assert end.message.parts == [
        ReasoningPart(text=thinking, provider_metadata=md(signature=signature)),
        TextPart(text="925 ÷ 5 = 185"),
    ]
    assert (end.reason, end.vendor_reason) == ("stop", "end_turn")
    assert end.usage == Usage(input=69, output=53)


def check_code_execution(provider: FakeProvider) -> None:
    # Server-side tool blocks (run by Anthropic) are skipped: no tool call for earshot to run.
    provider.script(replay("anthropic/anthropic-code-execution-20260120-prompt-cache.1.chunks.txt"))
    events = run(provider)
    assert not any(isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd) for e in events)
    text = "The sum of the squares of the numbers 1 through 12 is **650**."
    end = finish_of(events)
    assert end.message.parts == [TextPart(text=text)]
    assert (end.reason, end.vendor_reason) == ("stop", "end_turn")
    # message_start: input 2, cache write 3068; message_delta (final, cumulative): input 6,
    # cache write 3337, cache read 6289, output 198, thinking 0.
    assert end.usage == Usage(input=6, output=198, cache_read=6289, cache_write=3337, reasoning=0)
    assert end.usage.prompt_total == 6 + 6289 + 3337


def check_json_tool(provider: FakeProvider) -> None:
    name = "anthropic-json-tool.1.chunks.txt"
    provider.script(replay(f"anthropic/{name}"))
    events = run(provider)
    arguments = recorded_deltas(name, "partial_json")
    assert "".join(e.arguments for e in events if isinstance(e, ToolCallDelta)) == arguments
    call = ToolCallPart(
        id="toolu_01KFbKqPYSuAKujiL6mTfzYA",
        name="json",
        input={
            "elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]
        },
    )
    end = finish_of(events)
    assert end.message.parts == [call]
    assert (end.reason, end.vendor_reason) == ("tool_calls", "tool_use")
    assert end.usage == Usage(input=849, output=47)


def check_tool_no_args(provider: FakeProvider) -> None:
    provider.script(replay("anthropic/anthropic-tool-no-args.chunks.txt"))
    events = run(provider)
    assert not any(isinstance(e, ToolCallDelta) for e in events)  # its only piece is ""
    end = finish_of(events)
    assert end.message.parts == [
        TextPart(text="I'll update the issue list for you."),
        ToolCallPart(id="toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name="updateIssueList", input={}),
    ]
    assert (end.reason, end.vendor_reason) == ("tool_calls", "tool_use")
    assert end.usage == Usage(input=565, output=48)


def check_message_delta_input_tokens(provider: FakeProvider) -> None:
    provider.script(replay("anthropic/anthropic-message-delta-input-tokens.chunks.txt"))
    events = run(provider)
    end = finish_of(events)
    assert text_of(end.message) == texts(events) == "pong"
    assert end.usage == Usage(input=61, output=2)  # message_start said 43; the final 61 wins


def check_refusal(provider: FakeProvider) -> None:
    provider.script(replay("anthropic/anthropic-refusal.chunks.txt"))
    events = run(provider)
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("refusal", "refusal")
    assert end.message.parts == []
    assert end.usage == Usage(input=18, output=5)


def check_overloaded_midstream(provider: FakeProvider) -> None:
    # No ``event:`` lines on the data events: the adapter dispatches on the JSON type.
    provider.script(replay("anthropic/extracted-overloaded-midstream.sse"))
    events = run(provider)
    assert texts(events) == "Hello"
    error = error_of(events)
    assert (error.kind, error.retryable, error.status) == ("server", True, None)
    assert error.message == "anthropic: Overloaded (overloaded_error)"
    assert error.partial == Message(role="assistant", parts=[TextPart(text="Hello")])
    assert len(provider.requests) == 1  # output was delivered: not retried


def check_overloaded_529(provider: FakeProvider) -> None:
    reply = replay_error("anthropic/extracted-overloaded-529-body.json", 529)
    provider.script(reply, reply, reply)
    error = error_of(run(provider))
    assert (error.kind, error.retryable, error.status) == ("server", True, 529)
    assert error.message == "anthropic: Overloaded (overloaded_error)"
    assert len(provider.requests) == 3  # retried twice (FAST), then given up


def check_text_body(provider: FakeProvider) -> None:
    provider.script(message_as_stream("anthropic-text.json"))
    end = finish_of(run(provider))
    text = "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?"  # noqa: E501
    assert end.message.parts == [TextPart(text=text)]
    assert end.usage == Usage(input=12, output=29)


def check_clear_thinking_body(provider: FakeProvider) -> None:
    name = "anthropic-clear-thinking.1.json"
    signature = json.loads((RECORDED / name).read_text())["content"][0]["signature"]
    provider.script(message_as_stream(name))
    end = finish_of(run(provider))
    assert end.message.parts == [
        ReasoningPart(text="925 divided by 5 = 185", provider_metadata=md(signature=signature)),
        TextPart(text="925 ÷ 5 = 185"),
    ]
    assert end.usage == Usage(input=69, output=33)


def check_opus_reasoning_body(provider: FakeProvider) -> None:
    name = "anthropic-claude-opus-5-reasoning-high.1.json"
    content = json.loads((RECORDED / name).read_text())["content"]
    provider.script(message_as_stream(name))
    end = finish_of(run(provider))
    assert end.message.parts == [
        ReasoningPart(
            text=content[0]["thinking"], provider_metadata=md(signature=content[0]["signature"])
        ),
        TextPart(text=content[1]["text"]),
    ]
    # output_tokens 1699 includes the 139 thinking tokens.
    assert end.usage == Usage(input=51, output=1699, reasoning=139)


def check_tool_no_args_body(provider: FakeProvider) -> None:
    provider.script(message_as_stream("anthropic-tool-no-args.json"))
    end = finish_of(run(provider))
    assert end.reason == "tool_calls"
    assert end.message.parts[1:] == [
        ToolCallPart(id="toolu_01LRmxn9vGM1d2DZSDBowdZ1", name="updateIssueList", input={})
    ]
    assert end.usage == Usage(input=602, output=93)


RECORDED_CHECKS: dict[str, Callable[[FakeProvider], None]] = {
    "anthropic-text.chunks.txt": check_text,
    "anthropic-clear-thinking.1.chunks.txt": check_clear_thinking,
    "anthropic-code-execution-20260120-prompt-cache.1.chunks.txt": check_code_execution,
    "anthropic-json-tool.1.chunks.txt": check_json_tool,
    "anthropic-tool-no-args.chunks.txt": check_tool_no_args,
    "anthropic-message-delta-input-tokens.chunks.txt": check_message_delta_input_tokens,
    "anthropic-refusal.chunks.txt": check_refusal,
    "extracted-overloaded-midstream.sse": check_overloaded_midstream,
    "extracted-overloaded-529-body.json": check_overloaded_529,
    # Non-streaming Message bodies, served as the equivalent stream.
    "anthropic-text.json": check_text_body,
    "anthropic-clear-thinking.1.json": check_clear_thinking_body,
    "anthropic-claude-opus-5-reasoning-high.1.json": check_opus_reasoning_body,
    "anthropic-tool-no-args.json": check_tool_no_args_body,
}


def test_every_recorded_anthropic_file_is_replayed() -> None:
    assert sorted(p.name for p in RECORDED.iterdir()) == sorted(RECORDED_CHECKS)


@pytest.mark.parametrize("name", sorted(RECORDED_CHECKS))
def test_recorded_file_replays(fake_provider: FakeProvider, name: str) -> None:
    RECORDED_CHECKS[name](fake_provider)


# --- round trip ----------------------------------------------------------------------------


def follow_up(first: Message, prompt: str = "Read it.") -> ModelRequest:
    """The next request of an agent loop: the streamed turn, then a result for each call."""
    results = [
        ToolResultPart(call_id=p.id, name=p.name, content=[TextPart(text=f"result of {p.id}")])
        for p in first.parts
        if isinstance(p, ToolCallPart)
    ]
    history = [Message(role="user", parts=[TextPart(text=prompt)]), first]
    if results:
        history.append(Message(role="tool", parts=list(results)))
    return ask(history=history)


def test_streamed_turn_replays_thinking_redacted_data_and_calls_verbatim(
    fake_provider: FakeProvider,
) -> None:
    signature = "EqQBCkYIAxgCKkD+/sig==\u00e9"
    call = ToolCallSpec("toolu_rt", "read_file", {"path": "ü/a.txt"})
    frames = [
        fake.message_start(),
        *fake.thinking_block(0, "I should read ü/a.txt.", signature=signature),
        *fake.redacted_thinking_block(1, "RkFLRV9SRURBQ1RFRA=="),
        *fake.text_block(2, "Reading."),
        *fake.tool_use_block(3, call),
        *fake.message_end(stop="tool_use"),
    ]
    fake_provider.script(SSEReply(frames), fake.text_turn("done"))
    first = finish_of(run(fake_provider)).message
    assert finish_of(run(fake_provider, follow_up(first))).reason == "stop"

    second = fake_provider.requests[1]
    assert assert_tool_results_paired(second, "anthropic") == 1
    messages = second.json()["messages"]
    assert isinstance(messages, list)
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should read ü/a.txt.", "signature": signature},
            {"type": "redacted_thinking", "data": "RkFLRV9SRURBQ1RFRA=="},
            {"type": "text", "text": "Reading."},
            {
                "type": "tool_use",
                "id": "toolu_rt",
                "name": "read_file",
                "input": {"path": "ü/a.txt"},
            },
        ],
    }
    assert messages[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_rt",
                "content": [{"type": "text", "text": "result of toolu_rt"}],
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }
    # Byte for byte: the signature as streamed is in the raw request body.
    assert signature.encode() in second.body


def test_recorded_signature_and_call_ids_round_trip(fake_provider: FakeProvider) -> None:
    thinking_file = "anthropic-clear-thinking.1.chunks.txt"
    fake_provider.script(
        replay(f"anthropic/{thinking_file}"), replay("anthropic/anthropic-json-tool.1.chunks.txt")
    )
    thinking_turn = finish_of(run(fake_provider)).message
    tool_turn = finish_of(run(fake_provider)).message
    merged = Message(role="assistant", parts=[*thinking_turn.parts, *tool_turn.parts])
    fake_provider.script(fake.text_turn("ok"))
    finish_of(run(fake_provider, follow_up(merged)))

    sent = fake_provider.requests[2]
    assert assert_tool_results_paired(sent, "anthropic") == 1
    messages = sent.json()["messages"]
    assert isinstance(messages, list)
    assistant = messages[1]
    assert isinstance(assistant, dict)
    content = assistant["content"]
    assert isinstance(content, list)
    assert content[0] == {
        "type": "thinking",
        "thinking": recorded_deltas(thinking_file, "thinking"),
        "signature": recorded_deltas(thinking_file, "signature"),
    }
    assert recorded_deltas(thinking_file, "signature").encode() in sent.body
    assert content[2] == {
        "type": "tool_use",
        "id": "toolu_01KFbKqPYSuAKujiL6mTfzYA",
        "name": "json",
        "input": {
            "elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]
        },
    }
