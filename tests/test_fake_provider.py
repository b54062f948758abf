"""The fake provider serves scripted vendor streams over real HTTP, exactly as framed.

Decoded with earshot's own SSE decoder through httpx, as the adapters will see them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeAlias

import httpx
import pytest

import tests.fake_provider as fake
from earshot.providers.sse import SSEDecoder, SSEEvent
from earshot.providers.types import JSONValue
from tests.fake_provider import (
    FakeProvider,
    Frame,
    RawReply,
    RecordedRequest,
    SSEReply,
    ToolCallSpec,
    anthropic,
    assert_tool_results_paired,
    gemini,
    openai_chat,
    openai_responses,
    recorded_streams,
    replay,
    replay_error,
)
from tests.fake_provider.fixtures import recorded_bodies, reference_dir

READ = ToolCallSpec("c1", "read", {"path": "a.py", "limit": 20})
LIST = ToolCallSpec("c2", "ls", {})


@pytest.fixture
def client(fake_provider: FakeProvider) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fake_provider.base_url, timeout=10, verify=False) as http:
        yield http


Serve: TypeAlias = Callable[[SSEReply], list[SSEEvent]]


@pytest.fixture
def serve(fake_provider: FakeProvider, client: httpx.Client) -> Serve:
    """Script one reply, POST for it, and decode the body as the adapters will."""

    def run(reply: SSEReply) -> list[SSEEvent]:
        fake_provider.script(reply)
        decoder = SSEDecoder()
        return decoder.feed(client.post("/v1/stream", json={}).content) + decoder.close()

    return run


def payloads(events: list[SSEEvent]) -> list[dict[str, JSONValue]]:
    parsed: list[dict[str, JSONValue]] = []
    for event in events:
        if event.data != "[DONE]":
            value = json.loads(event.data)
            assert isinstance(value, dict), event.data
            parsed.append(value)
    return parsed


def obj(value: JSONValue) -> dict[str, JSONValue]:
    assert isinstance(value, dict), f"{value!r} is not an object"
    return value


def seq(value: JSONValue) -> list[JSONValue]:
    assert isinstance(value, list), f"{value!r} is not a list"
    return value


def dig(value: JSONValue, *path: str | int) -> JSONValue:
    for key in path:
        value = seq(value)[key] if isinstance(key, int) else obj(value)[key]
    return value


# --- the server ------------------------------------------------------------------------------


def test_replies_are_served_in_the_order_scripted(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(RawReply(200, b"first"), RawReply(201, b"second"))
    assert client.post("/a").content == b"first"
    second = client.post("/b")
    assert (second.status_code, second.content) == (201, b"second")
    assert fake_provider.remaining == 0


def test_each_request_is_recorded_with_method_path_query_headers_and_body(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(RawReply(200, b"{}"))
    client.post(
        "/v1beta/models/g:streamGenerateContent?alt=sse",
        json={"contents": []},
        headers={"X-Goog-Api-Key": "secret"},
    )
    [request] = fake_provider.requests
    assert (request.method, request.path) == ("POST", "/v1beta/models/g:streamGenerateContent")
    assert request.query == {"alt": "sse"}
    assert request.headers["x-goog-api-key"] == "secret"
    assert request.json() == {"contents": []}


def test_each_answered_request_is_paired_with_when_its_reply_was_sent(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(RawReply(200, b"a"), RawReply(200, b"b"), RawReply(200, b"c"))
    for path in ("/a", "/b", "/c"):  # over one connection: /c is read once /b is recorded
        client.post(path)
    first, second, _ = fake_provider.requests
    (paired_first, first_sent), (paired_second, second_sent) = fake_provider.answered[:2]
    assert (paired_first, paired_second) == (first, second)
    assert paired_first is first and paired_second is second
    assert first.received_at <= first_sent <= second.received_at <= second_sent


def test_chunked_request_body_is_recorded_whole(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(RawReply(200, b""))
    client.post("/v1/messages", content=iter([b'{"a":', b"1}"]))
    assert fake_provider.requests[0].headers["transfer-encoding"] == "chunked"
    assert fake_provider.requests[0].body == b'{"a":1}'


def test_request_with_nothing_scripted_gets_a_500_naming_the_fake_provider(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    response = client.post("/v1/messages", json={})
    assert response.status_code == 500
    assert response.json()["error"]["message"] == "fake provider: no scripted reply"
    assert len(fake_provider.requests) == 1


def test_sequential_requests_share_one_keep_alive_connection(
    fake_provider: FakeProvider, client: httpx.Client, serve: Serve
) -> None:
    for _ in range(3):
        serve(anthropic.text_turn("hi"))
    fake_provider.script(RawReply(429, b"{}"))
    assert client.post("/v1/messages").status_code == 429
    assert fake_provider.connections == 1


def test_raw_reply_sends_its_status_headers_and_body(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(RawReply(529, b'{"x":1}', {"retry-after": "3"}))
    response = client.post("/v1/messages")
    assert response.status_code == 529
    assert response.headers["retry-after"] == "3"
    assert response.headers["content-type"] == "application/json"
    assert response.content == b'{"x":1}'


def test_sse_reply_is_a_chunked_event_stream_with_its_headers(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(SSEReply([Frame("ping", "{}")], headers={"request-id": "r1"}))
    response = client.post("/v1/messages")
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.headers["request-id"] == "r1"
    assert response.content == b"event: ping\ndata: {}\n\n"


def test_slow_stream_does_not_hold_up_another_request(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    slow = SSEReply([Frame(None, str(n)) for n in range(4)], delay=0.4)
    fake_provider.script(slow, RawReply(200, b"fast"))
    bodies: list[bytes] = []

    def read_slow() -> None:
        with httpx.Client(base_url=fake_provider.base_url, timeout=10) as other:
            bodies.append(other.post("/slow").content)

    thread = threading.Thread(target=read_slow)
    thread.start()
    while not fake_provider.requests:
        time.sleep(0.01)
    assert client.post("/fast").content == b"fast"
    assert not bodies, "the fast reply should not have waited for the slow stream"
    thread.join()
    assert bodies == [b"data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n"]


def test_close_returns_promptly_while_a_stream_is_still_sending() -> None:
    provider = FakeProvider()
    provider.script(SSEReply([Frame(None, "a"), Frame(None, "b")], delay=30))
    with (
        httpx.Client(base_url=provider.base_url) as http,
        http.stream("POST", "/v1/messages") as response,
    ):
        chunks = response.iter_raw()
        assert next(chunks) == b"data: a\n\n"
        started = time.monotonic()
        provider.close()
        assert time.monotonic() - started < 2
        with pytest.raises(httpx.RemoteProtocolError):
            list(chunks)


def test_abrupt_cut_leaves_the_client_with_an_incomplete_body(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    reply = anthropic.text_turn("hello world")
    fake_provider.script(SSEReply(reply.frames, cut_after=3, abrupt=True))
    received: list[bytes] = []
    with (
        client.stream("POST", "/v1/messages") as response,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        received.extend(response.iter_bytes())
    decoder = SSEDecoder()
    events = decoder.feed(b"".join(received)) + decoder.close()
    assert [event.event for event in events] == ["message_start", "ping", "content_block_start"]


def test_cut_without_abrupt_ends_the_body_cleanly_after_n_frames(serve: Serve) -> None:
    reply = SSEReply(openai_chat.text_turn("hello").frames, cut_after=2)
    events = serve(reply)
    assert len(events) == 2
    assert "[DONE]" not in [event.data for event in events]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_line_endings_arrive_as_configured(
    fake_provider: FakeProvider, client: httpx.Client, ending: str
) -> None:
    fake_provider.script(SSEReply([Frame("e", "a\nb"), Frame(None, "c")], line_ending=ending))
    raw = client.post("/x").content
    le = ending
    assert raw == f"event: e{le}data: a{le}data: b{le}{le}data: c{le}{le}".encode()
    decoder = SSEDecoder()
    decoded = [(e.event, e.data) for e in decoder.feed(raw) + decoder.close()]
    assert decoded == [("e", "a\nb"), ("message", "c")]


def test_raw_tail_is_sent_verbatim_after_the_frames(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(SSEReply([Frame(None, "{}")], raw_tail=b": note\r\ndata: {bro"))
    assert client.post("/x").content == b"data: {}\n\n: note\r\ndata: {bro"


def test_keepalive_frame_is_a_comment_that_dispatches_nothing(serve: Serve) -> None:
    reply = SSEReply([Frame.keepalive("OPENROUTER PROCESSING"), Frame(None, "x")])
    events = serve(reply)
    assert [event.data for event in events] == ["x"]
    assert reply.body_chunks()[0] == b": OPENROUTER PROCESSING\n\n"


# --- wire builders ---------------------------------------------------------------------------


def test_anthropic_text_turn_names_every_event_after_its_type(serve: Serve) -> None:
    usage = anthropic.Usage(input_tokens=5, output_tokens=9, cache_read_input_tokens=100)
    events = serve(anthropic.text_turn("Hello there", usage=usage))
    data = payloads(events)
    assert [e.event for e in events] == [d["type"] for d in data]
    block = ["content_block_start", *["content_block_delta"] * 3, "content_block_stop"]
    end = ["message_delta", "message_stop"]
    assert [e.event for e in events] == ["message_start", "ping", *block, *end]
    assert "".join(str(dig(d, "delta", "text")) for d in data[3:6]) == "Hello there"
    assert dig(data[-2], "delta", "stop_reason") == "end_turn"
    assert dig(data[-2], "usage") == {
        "input_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 100,
        "output_tokens": 9,
    }


def test_anthropic_thinking_ends_with_one_signature_delta_before_its_block_stops(
    serve: Serve,
) -> None:
    reply = anthropic.reasoning_turn("Let me see", "Yes", signature="sig1", redacted="opaque")
    data = payloads(serve(reply))
    thinking = [d for d in data if d.get("index") == 0]
    assert dig(thinking[0], "content_block", "type") == "thinking"
    assert dig(thinking[-2], "delta") == {"type": "signature_delta", "signature": "sig1"}
    assert thinking[-1]["type"] == "content_block_stop"
    starts = [d["content_block"] for d in data if d["type"] == "content_block_start"]
    assert starts[1] == {"type": "redacted_thinking", "data": "opaque"}
    assert [dig(s, "type") for s in starts] == ["thinking", "redacted_thinking", "text"]


def test_anthropic_tool_calls_stream_their_input_and_a_no_argument_call_sends_empty_json(
    serve: Serve,
) -> None:
    reply = anthropic.tool_calls_turn([READ, LIST], text="Looking", arg_chunks=3)
    data = payloads(serve(reply))
    starts = [d for d in data if d["type"] == "content_block_start"]
    assert [dig(s, "content_block", "type") for s in starts] == ["text", "tool_use", "tool_use"]
    assert dig(starts[1], "content_block") == {
        "type": "tool_use",
        "id": "c1",
        "name": "read",
        "input": {},
    }

    def pieces(index: int) -> list[str]:
        deltas = [d for d in data if d["type"] == "content_block_delta" and d["index"] == index]
        return [str(dig(d, "delta", "partial_json")) for d in deltas]

    assert pieces(1)[0] == "" and len(pieces(1)) == 4
    assert json.loads("".join(pieces(1))) == READ.arguments
    assert pieces(2) == [""]
    assert dig(data[-2], "delta", "stop_reason") == "tool_use"


def test_anthropic_errors_have_the_vendor_body_over_http_and_in_the_stream(serve: Serve) -> None:
    reply = anthropic.error_reply(529, "Overloaded", headers={"retry-after": "2"})
    assert json.loads(reply.body) == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
        "request_id": "req_fake_01",
    }
    assert reply.headers == {"request-id": "req_fake_01", "retry-after": "2"}
    events = serve(anthropic.in_stream_error("Hel"))
    assert events[-1].event == "error"
    assert dig(payloads(events)[-1], "error", "type") == "overloaded_error"
    assert "message_stop" not in [e.event for e in events]


def test_chat_text_turn_has_only_data_lines_and_ends_with_usage_then_done(serve: Serve) -> None:
    usage = openai_chat.Usage(prompt_tokens=20, completion_tokens=4, cached_tokens=8)
    events = serve(openai_chat.text_turn("Hi you", usage=usage))
    assert {e.event for e in events} == {"message"}
    assert events[-1].data == "[DONE]"
    data = payloads(events)
    assert dig(data[0], "choices", 0, "delta") == {"role": "assistant", "content": ""}
    assert "".join(str(dig(d, "choices", 0, "delta", "content")) for d in data[1:-2]) == "Hi you"
    assert dig(data[-2], "choices", 0, "finish_reason") == "stop"
    assert data[-1]["choices"] == []
    assert dig(data[-1], "usage", "prompt_tokens_details", "cached_tokens") == 8
    assert dig(data[-1], "usage", "total_tokens") == 24


def test_chat_tool_call_fragments_accumulate_by_index_with_id_and_name_first(serve: Serve) -> None:
    reply = openai_chat.tool_calls_turn([READ, LIST], first_index=1, usage_placement="none")
    data = payloads(serve(reply))
    calls: dict[JSONValue, dict[str, str]] = {}
    for d in data:
        for raw in seq(obj(dig(d, "choices", 0, "delta")).get("tool_calls", [])):
            fragment = obj(raw)
            if fragment["index"] not in calls:
                name = str(dig(fragment, "function", "name"))
                calls[fragment["index"]] = {"id": str(fragment["id"]), "name": name, "args": ""}
            else:
                assert "id" not in fragment and "name" not in obj(fragment["function"])
            calls[fragment["index"]]["args"] += str(dig(fragment, "function", "arguments"))
    assert calls == {
        1: {"id": "c1", "name": "read", "args": READ.arguments_json()},
        2: {"id": "c2", "name": "ls", "args": "{}"},
    }
    assert dig(data[-1], "choices", 0, "finish_reason") == "tool_calls"
    assert all(d["usage"] is None for d in data)


def test_chat_reasoning_arrives_in_the_field_the_server_uses(serve: Serve) -> None:
    reply = openai_chat.reasoning_turn("hmm", "ok", reasoning_field="reasoning")
    data = payloads(serve(reply))
    deltas = [obj(dig(d, "choices", 0, "delta")) for d in data if d["choices"]]
    assert "".join(str(delta.get("reasoning", "")) for delta in deltas) == "hmm"
    assert "".join(str(delta.get("content", "")) for delta in deltas) == "ok"


def test_chat_errors_have_the_vendor_body_and_openrouter_fails_mid_stream(serve: Serve) -> None:
    reply = openai_chat.error_reply(429, "You exceeded your quota", code="insufficient_quota")
    assert json.loads(reply.body) == {
        "error": {
            "message": "You exceeded your quota",
            "type": "requests",
            "param": None,
            "code": "insufficient_quota",
        }
    }
    events = serve(openai_chat.in_stream_error("Par"))
    last = payloads(events)[-1]
    assert dig(last, "error", "message") == "Provider disconnected unexpectedly"
    assert dig(last, "choices", 0, "finish_reason") == "error"


def test_responses_events_are_numbered_in_order_and_named_after_their_type(serve: Serve) -> None:
    usage = openai_responses.Usage(input_tokens=30, output_tokens=5, reasoning_tokens=2)
    events = serve(openai_responses.text_turn("Sure thing", usage=usage))
    data = payloads(events)
    assert [d["sequence_number"] for d in data] == list(range(len(data)))
    assert [e.event for e in events] == [d["type"] for d in data]
    deltas = [str(d["delta"]) for d in data if d["type"] == "response.output_text.delta"]
    assert "".join(deltas) == "Sure thing"
    assert data[-1]["type"] == "response.completed"
    assert dig(data[-1], "response", "usage", "output_tokens_details", "reasoning_tokens") == 2
    assert dig(data[-1], "response", "output", 0, "content", 0, "text") == "Sure thing"


def test_responses_reasoning_and_calls_are_whole_in_output_item_done(serve: Serve) -> None:
    reply = openai_responses.tool_calls_turn([READ, LIST], reasoning="plan", encrypted_content="E")
    data = payloads(serve(reply))
    added = [d["item"] for d in data if d["type"] == "response.output_item.added"]
    done = [d["item"] for d in data if d["type"] == "response.output_item.done"]
    assert dig(added[0], "encrypted_content") != "E"
    assert dig(done[0], "encrypted_content") == "E"
    assert dig(done[0], "summary") == [{"type": "summary_text", "text": "plan"}]
    assert [(dig(i, "call_id"), dig(i, "arguments")) for i in done[1:]] == [
        ("c1", READ.arguments_json()),
        ("c2", "{}"),
    ]


def test_responses_incomplete_turn_reports_its_reason(serve: Serve) -> None:
    reply = openai_responses.text_turn("cut", stop="max_output_tokens")
    last = payloads(serve(reply))[-1]
    assert last["type"] == "response.incomplete"
    assert dig(last, "response", "incomplete_details") == {"reason": "max_output_tokens"}


@pytest.mark.parametrize("shape", ["nested", "flat"])
def test_responses_in_stream_error_is_followed_by_response_failed(
    serve: Serve, shape: openai_responses.ErrorShape
) -> None:
    reply = openai_responses.in_stream_error("a", code="insufficient_quota", shape=shape)
    data = payloads(serve(reply))
    assert [d["type"] for d in data[-2:]] == ["error", "response.failed"]
    code = dig(data[-2], "error", "code") if shape == "nested" else data[-2]["code"]
    assert code == "insufficient_quota"
    assert [d["sequence_number"] for d in data] == list(range(len(data)))


def test_gemini_text_turn_ends_with_a_signed_empty_part_and_the_final_usage(serve: Serve) -> None:
    usage = gemini.Usage(prompt_token_count=9, candidates_token_count=23, thoughts_token_count=185)
    events = serve(gemini.text_turn("Three r's", usage=usage))
    assert {e.event for e in events} == {"message"}
    data = payloads(events)
    parts = [dig(d, "candidates", 0, "content", "parts", 0) for d in data]
    assert "".join(str(dig(p, "text")) for p in parts) == "Three r's"
    assert parts[-1] == {"text": "", "thoughtSignature": gemini.DEFAULT_SIGNATURE}
    assert dig(data[-1], "candidates", 0, "finishReason") == "STOP"
    assert dig(data[-1], "usageMetadata", "totalTokenCount") == 217
    counts = [dig(d, "usageMetadata", "candidatesTokenCount") for d in data]
    assert counts == [5, 11, 17, 23], "usage repeats and grows; the last chunk holds the total"


def test_gemini_parallel_calls_come_whole_with_a_signature_on_the_first_only(serve: Serve) -> None:
    reply = gemini.tool_calls_turn([READ, LIST], thought_signature="S")
    data = payloads(serve(reply))
    parts = dig(data[0], "candidates", 0, "content", "parts")
    assert parts == [
        {"functionCall": {"name": "read", "args": READ.arguments}, "thoughtSignature": "S"},
        {"functionCall": {"name": "ls"}},
    ]
    assert dig(data[-1], "candidates", 0, "finishReason") == "STOP"


def test_gemini_error_reply_gives_the_retry_delay_in_retry_info() -> None:
    reply = gemini.error_reply(429, "Quota exceeded", retry_delay="34.4s", quota_id="PerDay")
    error = dig(json.loads(reply.body), "error")
    assert dig(error, "status") == "RESOURCE_EXHAUSTED" and dig(error, "code") == 429
    assert dig(error, "details", 1) == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "34.4s",
    }


# --- recorded streams ------------------------------------------------------------------------


@pytest.mark.parametrize("path", recorded_streams(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_recorded_stream_replays_with_its_wire_framing(serve: Serve, path: Path) -> None:
    events = serve(replay(path))
    assert events
    data = payloads(events)
    folder = path.parent.name
    if path.suffix == ".sse":
        return
    recorded = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert [e.data for e in events if e.data != "[DONE]"] == recorded
    if folder in ("anthropic", "openai-responses"):
        assert [e.event for e in events] == [d["type"] for d in data]
    else:
        assert {e.event for e in events} == {"message"}
    assert (events[-1].data == "[DONE]") == (folder == "openai-chat")


def test_recorded_sse_file_arrives_byte_for_byte(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    path = reference_dir() / "wire/anthropic/extracted-overloaded-midstream.sse"
    fake_provider.script(replay(path))
    assert client.post("/v1/messages").content == path.read_bytes()


@pytest.mark.parametrize("path", recorded_bodies(), ids=lambda p: p.name)
def test_recorded_body_is_served_with_the_status_given(
    fake_provider: FakeProvider, client: httpx.Client, path: Path
) -> None:
    fake_provider.script(replay_error(path, 429))
    response = client.post("/x")
    assert (response.status_code, response.content) == (429, path.read_bytes())


def test_replay_part_picks_one_response_of_a_recording_that_holds_several() -> None:
    name = "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt"
    parts = [replay(name, part=n).frames for n in range(4)]
    assert sum(map(len, parts)) == len(replay(name).frames)
    assert all(p[0].event == "response.created" for p in parts)


def test_reference_dir_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EARSHOT_REFERENCE_DIR", str(tmp_path))
    assert reference_dir() == tmp_path


# --- protocol invariants ---------------------------------------------------------------------

NAMES = {"c1": "read", "c2": "ls", "c9": "grep"}
PATHS = {
    "anthropic": "/v1/messages",
    "openai_chat": "/v1/chat/completions",
    "openai_responses": "/v1/responses",
    "gemini": "/v1beta/models/g:generateContent",
}


def history(wire: str, answered: list[str]) -> RecordedRequest:
    """A request whose history has calls c1 (read) and c2 (ls), answered by ``answered``."""
    called = ["c1", "c2"]
    messages: list[JSONValue]
    if wire == "anthropic":
        calls: list[JSONValue] = [
            {"type": "tool_use", "id": i, "name": NAMES[i], "input": {}} for i in called
        ]
        results: list[JSONValue] = [
            {"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in answered
        ]
        messages = [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": calls},
            {"role": "user", "content": [*results, {"type": "text", "text": "on"}]},
        ]
        body: dict[str, JSONValue] = {"messages": messages}
    elif wire == "openai_chat":
        tool_calls: list[JSONValue] = [
            {"id": i, "type": "function", "function": {"name": NAMES[i], "arguments": "{}"}}
            for i in called
        ]
        replies: list[JSONValue] = [
            {"role": "tool", "tool_call_id": i, "content": "ok"} for i in answered
        ]
        messages = [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": tool_calls},
            *replies,
            {"role": "user", "content": "on"},
        ]
        body = {"messages": messages}
    elif wire == "openai_responses":
        items: list[JSONValue] = [{"role": "user", "content": "go"}]
        for i in called:
            items.append({"type": "function_call", "call_id": i, "name": NAMES[i], "arguments": ""})
        for i in answered:
            items.append({"type": "function_call_output", "call_id": i, "output": "ok"})
        body = {"input": items}
    else:
        call_parts: list[JSONValue] = [
            {"functionCall": {"name": NAMES[i], "args": {}}} for i in called
        ]
        response_parts: list[JSONValue] = [
            {"functionResponse": {"name": NAMES[i], "response": {}}} for i in answered
        ]
        contents: list[JSONValue] = [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": call_parts},
            {"role": "user", "parts": response_parts},
        ]
        body = {"contents": contents}
    return RecordedRequest("POST", PATHS[wire], {}, {}, json.dumps(body).encode())


@pytest.mark.parametrize("wire", fake.WIRES)
def test_history_with_every_call_answered_once_passes(wire: str) -> None:
    assert assert_tool_results_paired(history(wire, ["c2", "c1"]), wire) == 2


@pytest.mark.parametrize("wire", fake.WIRES)
def test_unanswered_call_fails_naming_the_call(wire: str) -> None:
    call = "'ls'" if wire == "gemini" else "'c2'"
    with pytest.raises(
        AssertionError, match=f"{call}.* has no (later function_call_)?(result|out)"
    ):
        assert_tool_results_paired(history(wire, ["c1"]), wire)


@pytest.mark.parametrize("wire", fake.WIRES)
def test_orphan_result_fails_naming_the_result(wire: str) -> None:
    result = "'grep'" if wire == "gemini" else "'c9'"
    with pytest.raises(AssertionError, match=f"orphan .*{result}"):
        assert_tool_results_paired(history(wire, ["c1", "c2", "c9"]), wire)


def test_call_answered_twice_fails() -> None:
    with pytest.raises(AssertionError, match=r"'c1' .* answered 2 times"):
        assert_tool_results_paired(history("openai_chat", ["c1", "c2", "c1"]), "openai-chat")


def test_anthropic_tool_results_must_lead_their_user_message() -> None:
    request = history("anthropic", ["c1", "c2"])
    body = request.json()
    seq(dig(body, "messages", 2, "content")).reverse()
    moved = RecordedRequest("POST", "/v1/messages", {}, {}, json.dumps(body).encode())
    with pytest.raises(AssertionError, match="tool_result blocks must come before"):
        assert_tool_results_paired(moved, "anthropic")


def test_provider_checks_every_recorded_request_it_can_place_on_a_wire(
    fake_provider: FakeProvider, client: httpx.Client
) -> None:
    fake_provider.script(RawReply(200, b"{}"), RawReply(200, b"{}"))
    client.post("/v1/chat/completions", content=history("openai_chat", ["c1", "c2"]).body)
    fake_provider.assert_protocol_invariants()
    client.post("/v1/chat/completions", content=history("openai_chat", ["c1"]).body)
    with pytest.raises(AssertionError, match="'c2'"):
        fake_provider.assert_protocol_invariants()


def test_package_exports_are_sorted_and_present() -> None:
    assert fake.__all__ == sorted(fake.__all__, key=lambda n: (not n.isupper(), n))
    assert all(hasattr(fake, name) for name in fake.__all__)
