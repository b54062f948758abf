"""The openai-chat adapter over real HTTP: the fake provider serves scripted and recorded
streams, ``earshot.providers.stream`` drives the call, and every scenario ends in exactly
one terminal event."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from earshot.providers.models import ModelInfo
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect, stream
from earshot.providers.target import Secret, Target
from earshot.providers.types import (
    ErrorEvent,
    Finish,
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
    openai_chat,
    replay,
    replay_error,
)
from tests.fake_provider.fixtures import wire_dir
from tests.fake_provider.openai_chat import DONE, chunk, usage_chunk
from tests.wire.cases import READ_TOOL
from tests.wire.streams import error_of, finish_of, reasonings, texts

KEY = "sk-test-0123456789abcdefghij"
RETRY = RetryPolicy(base_delay=0.01)
RECORDED = wire_dir() / "openai-chat"


def make_target(
    fake: FakeProvider, provider: str = "openai", info: ModelInfo | None = None
) -> Target:
    return Target(
        provider=provider,
        wire="openai-chat",
        base_url=f"{fake.base_url}/v1",
        model="gpt-fake-1",
        auth="bearer",
        api_key=Secret(KEY),
        info=info,
    )


def make_request(text: str = "Say hi", **changes: object) -> ModelRequest:
    request = ModelRequest(
        model="gpt-fake-1",
        system="You are terse.",
        messages=[Message(role="user", parts=[TextPart(text=text)])],
        tools=[READ_TOOL],
    )
    for name, value in changes.items():
        setattr(request, name, value)
    return request


def run(
    fake: FakeProvider,
    *replies: SSEReply | RawReply,
    provider: str = "openai",
    request: ModelRequest | None = None,
) -> list[StreamEvent]:
    fake.script(*replies)
    target = make_target(fake, provider)

    async def go() -> list[StreamEvent]:
        return await collect(request or make_request(), target, retry=RETRY)

    return anyio.run(go)


def calls_of(message: Message) -> list[ToolCallPart]:
    return [p for p in message.parts if isinstance(p, ToolCallPart)]


def data_lines(path: Path) -> list[dict[str, JSONValue]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def delta_field(lines: list[dict[str, JSONValue]], name: str) -> str:
    """The concatenation of ``delta[name]`` over a recorded stream's chunks."""
    out: list[str] = []
    for line in lines:
        choices = line.get("choices")
        if not isinstance(choices, list):
            continue
        for choice in choices:
            assert isinstance(choice, dict)
            delta = choice.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get(name), str):
                value = delta[name]
                assert isinstance(value, str)
                out.append(value)
    return "".join(out)


# --- text, reasoning, usage -------------------------------------------------------------------


def test_text_in_chunks_concatenates_and_finishes_with_the_message(
    fake_provider: FakeProvider,
) -> None:
    events = run(fake_provider, openai_chat.text_turn("Hello there, world!", chunks=4))
    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "Hello",
        " ther",
        "e, wo",
        "rld!",
    ]
    end = finish_of(events)
    assert end.reason == "stop"
    assert end.vendor_reason == "stop"
    assert end.message == Message(role="assistant", parts=[TextPart(text="Hello there, world!")])
    assert end.usage == Usage(input=12, output=7)
    (sent,) = fake_provider.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    body = sent.json()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_deltas_record_the_field_they_came_in(
    fake_provider: FakeProvider, field: openai_chat.ReasoningField
) -> None:
    reply = openai_chat.reasoning_turn(
        "Think first, then answer.", "Answer.", reasoning_field=field
    )
    events = run(fake_provider, reply, provider="deepseek")
    assert reasonings(events) == "Think first, then answer."
    assert texts(events) == "Answer."
    end = finish_of(events)
    assert end.message.parts == [
        ReasoningPart(
            text="Think first, then answer.", provider_metadata={"deepseek": {"field": field}}
        ),
        TextPart(text="Answer."),
    ]


def test_openrouter_reasoning_details_merge_into_whole_items_with_their_signature(
    fake_provider: FakeProvider,
) -> None:
    def detail(text: str, **extra: JSONValue) -> dict[str, JSONValue]:
        return {"type": "reasoning.text", "text": text, "format": "anthropic-claude-v1", **extra}

    frames = [
        chunk({"role": "assistant", "content": ""}),
        Frame.keepalive("OPENROUTER PROCESSING"),
        chunk({"reasoning": "Let me ", "reasoning_details": [detail("Let me ", index=0)]}),
        chunk({"reasoning": "look.", "reasoning_details": [detail("look.", index=0)]}),
        chunk(
            {
                "reasoning": "",
                "reasoning_details": [detail("", index=0, signature="sig-or-1")],
            }
        ),
        chunk({"reasoning_details": [{"type": "reasoning.encrypted", "data": "enc", "index": 1}]}),
        chunk({"content": "Done."}),
        chunk({}, finish_reason="stop"),
        usage_chunk(),
        DONE,
    ]
    events = run(fake_provider, SSEReply(frames), provider="openrouter")
    assert reasonings(events) == "Let me look."
    end = finish_of(events)
    reasoning = end.message.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text == "Let me look."
    assert reasoning.provider_metadata == {
        "openrouter": {
            "field": "reasoning",
            "details": [
                {
                    "type": "reasoning.text",
                    "text": "Let me look.",
                    "format": "anthropic-claude-v1",
                    "index": 0,
                    "signature": "sig-or-1",
                },
                {"type": "reasoning.encrypted", "data": "enc", "index": 1},
            ],
        }
    }
    assert end.message.parts[1] == TextPart(text="Done.")


def test_usage_splits_cache_reads_out_of_prompt_tokens(fake_provider: FakeProvider) -> None:
    usage = openai_chat.Usage(
        prompt_tokens=1000, completion_tokens=300, cached_tokens=600, reasoning_tokens=120
    )
    events = run(fake_provider, openai_chat.text_turn("ok", usage=usage))
    # prompt 1000 includes 600 cached -> input 400; completion 300 includes 120 reasoning.
    expected = Usage(input=400, output=300, cache_read=600, reasoning=120)
    assert [e.usage for e in events if isinstance(e, UsageEvent)] == [expected]
    assert finish_of(events).usage == expected


def test_usage_after_the_finish_reason_chunk_is_in_the_finish(
    fake_provider: FakeProvider,
) -> None:
    """The include_usage chunk follows the finish_reason chunk: Finish waits for [DONE]."""
    usage = openai_chat.Usage(prompt_tokens=50, completion_tokens=5)
    reply = openai_chat.text_turn("ok", usage=usage, usage_placement="final_chunk")
    assert reply.frames[-3].data.count('"finish_reason":"stop"') == 1
    end = finish_of(run(fake_provider, reply))
    assert end.usage == Usage(input=50, output=5)


def test_usage_with_cache_writes_and_deepseek_hit_tokens(fake_provider: FakeProvider) -> None:
    written: dict[str, JSONValue] = {
        "prompt_tokens": 2000,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 500, "cache_write_tokens": 1200},
    }
    frames = [chunk({"content": "a"}), chunk({}, finish_reason="stop", usage=written), DONE]
    end = finish_of(run(fake_provider, SSEReply(frames), provider="openrouter"))
    assert end.usage == Usage(input=300, output=10, cache_read=500, cache_write=1200)

    hit: dict[str, JSONValue] = {
        "prompt_tokens": 339,
        "completion_tokens": 83,
        "prompt_cache_hit_tokens": 320,
        "prompt_cache_miss_tokens": 19,
    }
    frames = [chunk({"content": "a"}), chunk({}, finish_reason="stop", usage=hit), DONE]
    end = finish_of(run(fake_provider, SSEReply(frames), provider="deepseek"))
    assert end.usage == Usage(input=19, output=83, cache_read=320)


def test_mistral_content_chunks_split_into_thinking_and_text(fake_provider: FakeProvider) -> None:
    thinking: dict[str, JSONValue] = {
        "type": "thinking",
        "thinking": [{"type": "text", "text": "Weigh it."}],
    }
    frames = [
        chunk({"role": "assistant", "content": [thinking]}),
        chunk({"content": [{"type": "text", "text": "Yes"}]}),
        chunk({"content": "."}),
        chunk({}, finish_reason="stop"),
        DONE,
    ]
    events = run(fake_provider, SSEReply(frames), provider="mistral")
    assert reasonings(events) == "Weigh it."
    end = finish_of(events)
    assert end.message.parts == [
        ReasoningPart(text="Weigh it.", provider_metadata={"mistral": {"field": "thinking"}}),
        TextPart(text="Yes."),
    ]


@pytest.mark.parametrize(
    ("vendor", "reason"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("model_length", "length"),
        ("content_filter", "refusal"),
        ("sensitive", "refusal"),
        ("tool_calls", "stop"),  # no call arrived: nothing for the loop to run
        ("eos", "stop"),
    ],
)
def test_finish_reason_mapping(fake_provider: FakeProvider, vendor: str, reason: str) -> None:
    end = finish_of(run(fake_provider, openai_chat.text_turn("partial", stop=vendor)))
    assert end.reason == reason
    assert end.vendor_reason == vendor


def test_refusal_delta_is_shown_and_turns_stop_into_refusal(fake_provider: FakeProvider) -> None:
    frames = [chunk({"refusal": "I can't help with that."}), chunk({}, finish_reason="stop"), DONE]
    events = run(fake_provider, SSEReply(frames))
    end = finish_of(events)
    assert end.reason == "refusal"
    assert text_of(end.message) == "I can't help with that."


# --- tool calls ---------------------------------------------------------------------------


def test_one_tool_call_streams_start_deltas_end(fake_provider: FakeProvider) -> None:
    call = ToolCallSpec("call_a", "read_file", {"path": "src/app.py"})
    events = run(fake_provider, openai_chat.tool_calls_turn([call], text="Reading.", arg_chunks=3))
    tool_events = [e for e in events if isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd)]
    assert tool_events[0] == ToolCallStart(id="call_a", name="read_file")
    assert "".join(e.arguments for e in tool_events if isinstance(e, ToolCallDelta)) == (
        '{"path":"src/app.py"}'
    )
    expected = ToolCallPart(id="call_a", name="read_file", input={"path": "src/app.py"})
    assert tool_events[-1] == ToolCallEnd(call=expected)
    end = finish_of(events)
    assert end.reason == "tool_calls"
    assert end.message.parts == [TextPart(text="Reading."), expected]


def test_legacy_function_call_reason_with_a_call_is_tool_calls(
    fake_provider: FakeProvider,
) -> None:
    call = ToolCallSpec("call_f", "list_dir")
    reply = openai_chat.tool_calls_turn([call], stop="function_call")
    end = finish_of(run(fake_provider, reply))
    assert (end.reason, end.vendor_reason) == ("tool_calls", "function_call")
    assert calls_of(end.message) == [ToolCallPart(id="call_f", name="list_dir", input={})]


def test_several_tool_calls_keyed_by_index_starting_at_one(fake_provider: FakeProvider) -> None:
    calls = [
        ToolCallSpec("call_1", "read_file", {"path": "a"}),
        ToolCallSpec("call_2", "list_dir"),
        ToolCallSpec("call_3", "read_file", {"path": "b"}),
    ]
    events = run(fake_provider, openai_chat.tool_calls_turn(calls, first_index=1))
    end = finish_of(events)
    assert calls_of(end.message) == [
        ToolCallPart(id="call_1", name="read_file", input={"path": "a"}),
        ToolCallPart(id="call_2", name="list_dir", input={}),
        ToolCallPart(id="call_3", name="read_file", input={"path": "b"}),
    ]
    assert [e.call.id for e in events if isinstance(e, ToolCallEnd)] == [
        "call_1",
        "call_2",
        "call_3",
    ]


def test_interleaved_argument_fragments_follow_their_index(fake_provider: FakeProvider) -> None:
    def frag(index: int, **fields: JSONValue) -> Frame:
        return chunk({"tool_calls": [{"index": index, **fields}]})

    frames = [
        frag(0, id="c0", type="function", function={"name": "read_file", "arguments": ""}),
        frag(1, id="c1", type="function", function={"name": "read_file", "arguments": '{"pa'}),
        frag(0, function={"arguments": '{"path":'}),
        frag(1, function={"arguments": 'th":"y"}'}),
        frag(0, function={"arguments": '"x"}'}),
        chunk({}, finish_reason="tool_calls"),
        DONE,
    ]
    end = finish_of(run(fake_provider, SSEReply(frames)))
    assert calls_of(end.message) == [
        ToolCallPart(id="c0", name="read_file", input={"path": "x"}),
        ToolCallPart(id="c1", name="read_file", input={"path": "y"}),
    ]


def test_call_with_empty_arguments_is_an_empty_object(fake_provider: FakeProvider) -> None:
    head: dict[str, JSONValue] = {
        "index": 0,
        "id": "call_x",
        "type": "function",
        "function": {"name": "list_dir", "arguments": ""},
    }
    frames = [chunk({"tool_calls": [head]}), chunk({}, finish_reason="tool_calls"), DONE]
    events = run(fake_provider, SSEReply(frames))
    assert not [e for e in events if isinstance(e, ToolCallDelta)]
    end = finish_of(events)
    assert calls_of(end.message) == [ToolCallPart(id="call_x", name="list_dir", input={})]


def test_whole_call_in_one_delta_like_groq(fake_provider: FakeProvider) -> None:
    whole: dict[str, JSONValue] = {
        "id": "tk85n1k4m",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path":"README.md"}'},
        "index": 0,
    }
    frames = [chunk({"role": "assistant", "content": None}), chunk({"tool_calls": [whole]})]
    frames += [chunk({}, finish_reason="tool_calls"), DONE]
    events = run(fake_provider, SSEReply(frames), provider="groq")
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ToolCallStart", "ToolCallDelta", "ToolCallEnd", "Finish"]
    call = ToolCallPart(id="tk85n1k4m", name="read_file", input={"path": "README.md"})
    assert calls_of(finish_of(events).message) == [call]


def test_a_new_id_at_a_reused_index_is_a_new_call(fake_provider: FakeProvider) -> None:
    def whole(call_id: str, path: str) -> Frame:
        arguments = json.dumps({"path": path})
        fn: dict[str, JSONValue] = {"name": "read_file", "arguments": arguments}
        return chunk({"tool_calls": [{"index": 0, "id": call_id, "function": fn}]})

    frames = [whole("c1", "a"), whole("c2", "b"), chunk({}, finish_reason="tool_calls"), DONE]
    end = finish_of(run(fake_provider, SSEReply(frames), provider="ollama"))
    assert calls_of(end.message) == [
        ToolCallPart(id="c1", name="read_file", input={"path": "a"}),
        ToolCallPart(id="c2", name="read_file", input={"path": "b"}),
    ]


def test_call_without_id_gets_one(fake_provider: FakeProvider) -> None:
    fn: dict[str, JSONValue] = {"name": "list_dir", "arguments": "{}"}
    frames = [
        chunk({"tool_calls": [{"index": 0, "function": fn}]}),
        chunk({}, finish_reason="tool_calls"),
        DONE,
    ]
    (call,) = calls_of(finish_of(run(fake_provider, SSEReply(frames))).message)
    assert call.id.startswith("call_")
    assert len(call.id) > len("call_")


# --- HTTP errors and retries ----------------------------------------------------------------


def test_401_is_auth_and_not_retried(fake_provider: FakeProvider) -> None:
    reply = openai_chat.error_reply(401, f"Incorrect API key provided: {KEY}.")
    error = error_of(run(fake_provider, reply))
    assert error.kind == "auth"
    assert not error.retryable
    assert error.status == 401
    assert KEY not in error.message
    assert len(fake_provider.requests) == 1


def test_429_with_retry_after_then_success_is_one_clean_stream(
    fake_provider: FakeProvider,
) -> None:
    limited = openai_chat.error_reply(429, "Rate limit reached", headers={"retry-after": "0"})
    events = run(fake_provider, limited, openai_chat.text_turn("after the wait"))
    assert len(fake_provider.requests) == 2
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert texts(events) == "after the wait"
    assert finish_of(events).reason == "stop"


def test_429_waits_for_an_exhausted_ratelimit_window(fake_provider: FakeProvider) -> None:
    headers = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20ms"}
    limited = openai_chat.error_reply(429, "Rate limit reached", headers=headers)
    events = run(fake_provider, limited, openai_chat.text_turn("ok"))
    assert len(fake_provider.requests) == 2
    assert finish_of(events).reason == "stop"


def test_400_context_overflow_is_not_retried(fake_provider: FakeProvider) -> None:
    reply = openai_chat.error_reply(
        400,
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 130000 tokens.",
        code="context_length_exceeded",
        param="messages",
    )
    error = error_of(run(fake_provider, reply))
    assert error.kind == "context_overflow"
    assert not error.retryable
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize(
    ("message", "code", "status"),
    [
        ("You exceeded your current quota, please check your plan.", "insufficient_quota", 429),
        (
            "Rate limit reached for model `llama-3.3-70b-versatile` on tokens per day (TPD): "
            "Limit 100000, Used 99990, Requested 500.",
            "rate_limit_exceeded",
            429,
        ),
        ("Insufficient credits. Add more using https://openrouter.ai/settings.", None, 402),
    ],
)
def test_quota_and_spend_caps_are_not_retried(
    fake_provider: FakeProvider, message: str, code: str | None, status: int
) -> None:
    reply = openai_chat.error_reply(status, message, code=code, headers={"retry-after": "0"})
    error = error_of(run(fake_provider, reply))
    assert not error.retryable
    assert error.status == status
    assert len(fake_provider.requests) == 1


def test_500_is_retried(fake_provider: FakeProvider) -> None:
    failed = openai_chat.error_reply(500, "The server had an error processing your request.")
    events = run(fake_provider, failed, openai_chat.text_turn("recovered"))
    assert len(fake_provider.requests) == 2
    assert texts(events) == "recovered"
    assert finish_of(events).reason == "stop"


def test_500_three_times_is_a_server_error(fake_provider: FakeProvider) -> None:
    failed = openai_chat.error_reply(503, "Service unavailable")
    error = error_of(run(fake_provider, failed, failed, failed))
    assert error.kind == "server"
    assert error.retryable
    assert len(fake_provider.requests) == 3


def test_non_json_error_body_keeps_its_text(fake_provider: FakeProvider) -> None:
    page = RawReply(404, b"<html><body>404 page not found</body></html>", content_type="text/html")
    error = error_of(run(fake_provider, page))
    assert error.kind == "invalid_request"
    assert "404 page not found" in error.message


def test_bare_message_error_body_from_a_compatible_server(fake_provider: FakeProvider) -> None:
    body = RawReply.json(400, {"object": "error", "message": "model 'x' not found", "code": 400})
    error = error_of(run(fake_provider, body))
    assert error.kind == "invalid_request"
    assert error.message == "openai: model 'x' not found"


def test_error_body_as_a_list_like_gemini_compat(fake_provider: FakeProvider) -> None:
    payload: JSONValue = [
        {"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}}
    ]
    error = error_of(run(fake_provider, RawReply.json(400, payload)))
    assert (error.kind, error.message) == ("invalid_request", "openai: Invalid JSON payload")


# --- streams that end badly ---------------------------------------------------------------


def test_stream_cut_cleanly_mid_way_is_an_incomplete_answer(
    fake_provider: FakeProvider,
) -> None:
    reply = openai_chat.text_turn("one two three", chunks=3)
    reply.cut_after = 3  # the role chunk and two content chunks
    events = run(fake_provider, reply)
    error = error_of(events)
    assert error.kind == "stream_incomplete"
    assert "finish_reason" in error.message
    assert error.partial is not None
    assert text_of(error.partial) == texts(events) == "one two t"


def test_stream_ending_after_the_finish_reason_without_done_still_finishes(
    fake_provider: FakeProvider,
) -> None:
    reply = openai_chat.text_turn("all of it", stop="length")
    reply.cut_after = len(reply.frames) - 2  # no usage chunk, no [DONE]
    end = finish_of(run(fake_provider, reply))
    assert end.reason == "length"
    assert end.vendor_reason == "length"
    assert text_of(end.message) == "all of it"


def test_tool_call_cut_before_finish_is_incomplete_with_the_whole_call_kept(
    fake_provider: FakeProvider,
) -> None:
    call = ToolCallSpec("call_c", "read_file", {"path": "x"})
    reply = openai_chat.tool_calls_turn([call], arg_chunks=1)
    reply.cut_after = 3  # role, head, the whole arguments
    events = run(fake_provider, reply)
    error = error_of(events)
    assert error.kind == "stream_incomplete"
    assert error.partial is not None
    assert calls_of(error.partial) == []  # its arguments never closed: not run


def test_abrupt_cut_after_output_is_a_network_error_without_duplicates(
    fake_provider: FakeProvider,
) -> None:
    reply = openai_chat.text_turn("abcdef", chunks=3)
    reply.cut_after = 3
    reply.abrupt = True
    events = run(fake_provider, reply, openai_chat.text_turn("never sent"))
    error = error_of(events)
    assert error.kind == "network"
    assert texts(events) == "abcd"
    assert error.partial is not None
    assert text_of(error.partial) == "abcd"
    assert len(fake_provider.requests) == 1


def test_malformed_chunk_mid_stream_is_a_server_error(fake_provider: FakeProvider) -> None:
    frames = [chunk({"content": "Hi"}), Frame(None, '{"choices": [ oops'), DONE]
    events = run(fake_provider, SSEReply(frames))
    error = error_of(events)
    assert error.kind == "server"
    assert "malformed" in error.message
    assert texts(events) == "Hi"
    assert len(fake_provider.requests) == 1


def test_malformed_first_chunk_is_retried(fake_provider: FakeProvider) -> None:
    bad = SSEReply([Frame(None, "not json at all"), DONE])
    events = run(fake_provider, bad, openai_chat.text_turn("fine"))
    assert len(fake_provider.requests) == 2
    assert finish_of(events).reason == "stop"


def test_openrouter_error_chunk_mid_stream_ends_with_error(fake_provider: FakeProvider) -> None:
    reply = openai_chat.in_stream_error("Partial answer", message="Provider disconnected")
    events = run(fake_provider, reply, provider="openrouter")
    error = error_of(events)
    assert error.kind == "server"
    assert error.retryable
    assert error.message == "openrouter: Provider disconnected"
    assert texts(events) == "Partial answer"
    assert error.partial is not None
    assert text_of(error.partial) == "Partial answer"
    assert len(fake_provider.requests) == 1


def test_openrouter_error_chunk_before_any_output_is_retried(
    fake_provider: FakeProvider,
) -> None:
    events = run(
        fake_provider,
        openai_chat.in_stream_error(code=502, message="Upstream error"),
        openai_chat.text_turn("second try"),
        provider="openrouter",
    )
    assert len(fake_provider.requests) == 2
    assert texts(events) == "second try"
    assert finish_of(events).reason == "stop"


@pytest.mark.parametrize(
    ("code", "message", "kind", "retryable"),
    [
        ("context_length_exceeded", "maximum context length exceeded", "context_overflow", False),
        (429, "Rate limit exceeded upstream", "rate_limit", True),
        (401, "User not found.", "auth", False),
        ("insufficient_quota", "quota exhausted", "rate_limit", False),
    ],
)
def test_in_stream_error_codes_map_onto_the_taxonomy(
    fake_provider: FakeProvider, code: str | int, message: str, kind: str, retryable: bool
) -> None:
    reply = openai_chat.in_stream_error("x", code=code, message=message, done=True)
    error = error_of(run(fake_provider, reply, provider="openrouter"))
    assert (error.kind, error.retryable) == (kind, retryable)


def test_done_without_a_finish_reason_finishes_cleanly(fake_provider: FakeProvider) -> None:
    frames = [chunk({"content": "short"}), DONE]
    end = finish_of(run(fake_provider, SSEReply(frames)))
    assert (end.reason, end.vendor_reason) == ("stop", None)
    assert text_of(end.message) == "short"


def test_named_error_event_ends_the_stream(fake_provider: FakeProvider) -> None:
    body = json.dumps({"error": {"message": "upstream overloaded", "code": 503}})
    frames = [chunk({"content": "so far"}), Frame("error", body)]
    error = error_of(run(fake_provider, SSEReply(frames)))
    assert (error.kind, error.retryable, error.message) == (
        "server",
        True,
        "openai: upstream overloaded",
    )
    assert error.partial is not None
    assert text_of(error.partial) == "so far"


def test_failure_finish_reason_is_an_error(fake_provider: FakeProvider) -> None:
    reply = openai_chat.text_turn("half", stop="insufficient_system_resource")
    error = error_of(run(fake_provider, reply, provider="deepseek"))
    assert error.kind == "server"
    assert "insufficient_system_resource" in error.message


def test_abort_mid_stream_finishes_aborted(fake_provider: FakeProvider) -> None:
    slow = openai_chat.text_turn("a slow answer in many parts", chunks=8)
    slow.delay = 0.2
    fake_provider.script(slow)
    target = make_target(fake_provider)
    request = make_request()
    abort = anyio.Event()
    request.abort = abort

    async def go() -> list[StreamEvent]:
        events: list[StreamEvent] = []
        with anyio.fail_after(5):
            async for event in stream(request, target, retry=RETRY):
                events.append(event)
                if isinstance(event, TextDelta):
                    abort.set()
        return events

    events = anyio.run(go)
    end = finish_of(events)
    assert end.reason == "aborted"
    assert texts(events) == "a sl"
    assert text_of(end.message) == "a sl"


def test_crlf_framing_and_keepalives_are_transparent(fake_provider: FakeProvider) -> None:
    reply = openai_chat.text_turn("line endings", chunks=2)
    reply.frames.insert(1, Frame.keepalive("OPENROUTER PROCESSING"))
    reply.line_ending = "\r\n"
    end = finish_of(run(fake_provider, reply, provider="openrouter"))
    assert text_of(end.message) == "line endings"


# --- recorded streams -----------------------------------------------------------------------


def test_every_recorded_file_is_covered() -> None:
    names = {p.name for p in RECORDED.iterdir()}
    assert names == {
        "anthropic-fallback-tool-call.sse",
        "deepseek-tool-call.chunks.txt",
        "groq-tool-call.chunks.txt",
        "openai-text.chunks.txt",
        "openai-text.json",
        "reasoning-model-legacy-parameter-error.json",
    }


def test_recorded_openai_text(fake_provider: FakeProvider) -> None:
    path = RECORDED / "openai-text.chunks.txt"
    lines = data_lines(path)
    assert len(lines) == 303
    events = run(fake_provider, replay(path))
    expected_text = delta_field(lines, "content")
    assert len(expected_text) == 1724
    assert texts(events) == expected_text
    end = finish_of(events)
    assert end.message == Message(role="assistant", parts=[TextPart(text=expected_text)])
    assert (end.reason, end.vendor_reason) == ("stop", "stop")
    # usage: prompt_tokens 16 (cached 0), completion_tokens 300 (reasoning 0)
    assert end.usage == Usage(input=16, output=300, cache_read=0, reasoning=0)


def test_recorded_groq_tool_call(fake_provider: FakeProvider) -> None:
    events = run(fake_provider, replay(RECORDED / "groq-tool-call.chunks.txt"), provider="groq")
    assert [type(e).__name__ for e in events] == [
        "ToolCallStart",
        "ToolCallDelta",
        "ToolCallEnd",
        "UsageEvent",
        "Finish",
    ]
    end = finish_of(events)
    assert end.message.parts == [ToolCallPart(id="tk85n1k4m", name="weather", input={})]
    assert (end.reason, end.vendor_reason) == ("tool_calls", "tool_calls")
    # top-level usage (x_groq.usage repeats it): prompt 210, completion 15
    assert end.usage == Usage(input=210, output=15)


def test_recorded_deepseek_reasoning_and_tool_call(fake_provider: FakeProvider) -> None:
    path = RECORDED / "deepseek-tool-call.chunks.txt"
    lines = data_lines(path)
    events = run(fake_provider, replay(path), provider="deepseek")
    reasoning = delta_field(lines, "reasoning_content")
    assert reasoning.startswith("The user is asking for the weather in San Francisco.")
    assert reasonings(events) == reasoning
    assert texts(events) == ""
    end = finish_of(events)
    assert end.message.parts == [
        ReasoningPart(
            text=reasoning, provider_metadata={"deepseek": {"field": "reasoning_content"}}
        ),
        ToolCallPart(
            id="call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
            name="weather",
            input={"location": "San Francisco"},
        ),
    ]
    assert (end.reason, end.vendor_reason) == ("tool_calls", "tool_calls")
    # prompt 339 with 320 cached -> input 19; completion 83 with 39 reasoning
    assert end.usage == Usage(input=19, output=83, cache_read=320, reasoning=39)


def test_recorded_proxy_sse_with_tool_index_starting_at_one(fake_provider: FakeProvider) -> None:
    path = RECORDED / "anthropic-fallback-tool-call.sse"
    assert b"data: [DONE]" in path.read_bytes()
    events = run(fake_provider, replay(path), provider="openai-compatible")
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Reading", " it."]
    end = finish_of(events)
    assert end.message.parts == [
        TextPart(text="Reading it."),
        ToolCallPart(id="toolu_sanitized", name="read_file", input={"path": "a.txt"}),
    ]
    assert (end.reason, end.vendor_reason) == ("tool_calls", "tool_calls")
    assert end.usage == Usage()  # this proxy sent no usage


def test_recorded_legacy_parameter_error_as_400(fake_provider: FakeProvider) -> None:
    path = RECORDED / "reasoning-model-legacy-parameter-error.json"
    error = error_of(run(fake_provider, replay_error(path, 400)))
    assert error.kind == "invalid_request"
    assert not error.retryable
    assert error.status == 400
    assert error.message == (
        "openai: Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead."
    )
    assert len(fake_provider.requests) == 1


def test_recorded_non_streaming_body_is_decoded_as_the_whole_answer(
    fake_provider: FakeProvider,
) -> None:
    """A server that ignores ``stream: true`` answers with a whole JSON completion: it is
    read as the answer it is, not lost as an empty stream."""
    path = RECORDED / "openai-text.json"
    events = run(fake_provider, RawReply(200, path.read_bytes()))
    end = finish_of(events)
    assert end.reason == "stop"
    assert text_of(end.message) == texts(events) != ""
    assert len(fake_provider.requests) == 1


# --- round trip -------------------------------------------------------------------------------


def _next_turn(first: Finish, call: ToolCallPart) -> ModelRequest:
    return make_request(
        "What's the weather in San Francisco?",
        messages=[
            Message(role="user", parts=[TextPart(text="What's the weather in San Francisco?")]),
            first.message,
            Message(
                role="tool",
                parts=[
                    ToolResultPart(call_id=call.id, name=call.name, content=[TextPart(text="18C")])
                ],
            ),
        ],
    )


def test_deepseek_turn_round_trips_reasoning_and_call(fake_provider: FakeProvider) -> None:
    path = RECORDED / "deepseek-tool-call.chunks.txt"
    lines = data_lines(path)
    first = finish_of(run(fake_provider, replay(path), provider="deepseek"))
    (call,) = calls_of(first.message)
    second = run(
        fake_provider,
        openai_chat.text_turn("It is 18C."),
        provider="deepseek",
        request=_next_turn(first, call),
    )
    assert finish_of(second).reason == "stop"
    sent = fake_provider.requests[1]
    assert_tool_results_paired(sent, "openai_chat")
    messages = sent.json()["messages"]
    assert isinstance(messages, list)
    assistant = messages[2]
    assert isinstance(assistant, dict)
    recorded_args = delta_field_tool_arguments(lines)
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"location":"San Francisco"}'},
            }
        ],
        "reasoning_content": delta_field(lines, "reasoning_content"),
    }
    assert json.loads(recorded_args) == {"location": "San Francisco"}
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
        "content": "18C",
    }


def test_openrouter_turn_round_trips_reasoning_details(fake_provider: FakeProvider) -> None:
    signed: dict[str, JSONValue] = {
        "type": "reasoning.text",
        "text": "Check the weather.",
        "signature": "EqQBCkYIAxgCKkD+sig/==",
        "format": "anthropic-claude-v1",
        "index": 0,
    }
    frames = [
        chunk({"reasoning": "Check the weather.", "reasoning_details": [signed]}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "toolu_01",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city":"SF"}'},
                    }
                ]
            }
        ),
        chunk({}, finish_reason="tool_calls"),
        DONE,
    ]
    first = finish_of(run(fake_provider, SSEReply(frames), provider="openrouter"))
    (call,) = calls_of(first.message)
    run(
        fake_provider,
        openai_chat.text_turn("Sunny."),
        provider="openrouter",
        request=_next_turn(first, call),
    )
    sent = fake_provider.requests[1]
    assert_tool_results_paired(sent, "openai_chat")
    messages = sent.json()["messages"]
    assert isinstance(messages, list)
    assistant = messages[2]
    assert isinstance(assistant, dict)
    assert assistant["reasoning_details"] == [signed]
    raw = sent.body.decode()
    assert '"signature":"EqQBCkYIAxgCKkD+sig/=="' in raw


def test_gemini_extra_content_on_a_call_round_trips(fake_provider: FakeProvider) -> None:
    extra: dict[str, JSONValue] = {"google": {"thought_signature": "CiQB+sig=="}}
    fn: dict[str, JSONValue] = {"name": "weather", "arguments": '{"city":"SF"}'}
    whole: dict[str, JSONValue] = {
        "index": 0,
        "id": "function-call-1",
        "type": "function",
        "function": fn,
        "extra_content": extra,
    }
    frames = [chunk({"tool_calls": [whole]}), chunk({}, finish_reason="tool_calls"), DONE]
    first = finish_of(run(fake_provider, SSEReply(frames), provider="openai-compatible"))
    (call,) = calls_of(first.message)
    assert call.provider_metadata == {"openai-compatible": {"extra_content": extra}}
    run(
        fake_provider,
        openai_chat.text_turn("Sunny."),
        provider="openai-compatible",
        request=_next_turn(first, call),
    )
    sent = fake_provider.requests[1]
    assert_tool_results_paired(sent, "openai_chat")
    messages = sent.json()["messages"]
    assert isinstance(messages, list)
    assistant = messages[2]
    assert isinstance(assistant, dict)
    tool_calls = assistant["tool_calls"]
    assert isinstance(tool_calls, list)
    assert tool_calls == [
        {"id": "function-call-1", "type": "function", "function": fn, "extra_content": extra}
    ]


def delta_field_tool_arguments(lines: list[dict[str, JSONValue]]) -> str:
    out: list[str] = []
    for line in lines:
        choices = line.get("choices")
        assert isinstance(choices, list)
        for choice in choices:
            assert isinstance(choice, dict)
            delta = choice.get("delta")
            calls = delta.get("tool_calls") if isinstance(delta, dict) else None
            for fragment in calls if isinstance(calls, list) else []:
                assert isinstance(fragment, dict)
                function = fragment.get("function")
                assert isinstance(function, dict)
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    out.append(arguments)
    return "".join(out)
