"""The openai-responses adapter over real HTTP against the scripted fake provider: text,
reasoning with encrypted content, tool calls, usage, finish reasons, HTTP and in-stream
errors, cut and malformed streams, abort, every recorded stream of the wire, and the agent
loop round trip that must replay encrypted reasoning byte for byte.

Every scenario asserts exactly one terminal event, and that it comes last.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

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
    ToolSpec,
    Usage,
    UsageEvent,
    text_of,
)
from tests.fake_provider import (
    FakeProvider,
    Frame,
    RawReply,
    RecordedRequest,
    SSEReply,
    ToolCallSpec,
    assert_tool_results_paired,
    openai_responses,
    reference_dir,
    replay,
    replay_error,
)
from tests.fake_provider.openai_responses import (
    DEFAULT_ENCRYPTED_CONTENT,
    PENDING_ENCRYPTED_CONTENT,
)
from tests.wire.cases import model_info
from tests.wire.streams import error_of as failure
from tests.wire.streams import finish_of as finish
from tests.wire.streams import reasonings, terminal, texts

FAST = RetryPolicy(base_delay=0.01)
KEY = "sk-test-responses-0123456789abcdef"
RECORDED = "openai-responses"


def target(fake: FakeProvider) -> Target:
    return Target(
        provider="openai",
        wire="openai-responses",
        base_url=fake.base_url,
        model="test-model",
        auth="bearer",
        api_key=Secret(KEY),
        info=model_info("openai"),
    )


def request(*messages: Message, tools: list[ToolSpec] | None = None) -> ModelRequest:
    history = list(messages) or [Message(role="user", parts=[TextPart(text="hi")])]
    return ModelRequest(
        model="test-model", system="Be brief.", messages=history, tools=list(tools or [])
    )


def run(fake: FakeProvider, req: ModelRequest | None = None) -> list[StreamEvent]:
    async def go() -> list[StreamEvent]:
        return await collect(req or request(), target(fake), retry=FAST)

    events = anyio.run(go)
    terminal(events)
    return events


def frames_of(reply: SSEReply) -> list[dict[str, JSONValue]]:
    out: list[dict[str, JSONValue]] = []
    for frame in reply.frames:
        value = json.loads(frame.data)
        assert isinstance(value, dict)
        out.append(value)
    return out


def rebuild(reply: SSEReply, events: list[dict[str, JSONValue]]) -> SSEReply:
    frames = [Frame.of(e, event=str(e["type"])) for e in events]
    return dataclasses.replace(reply, frames=frames)


def edit(reply: SSEReply, change: Callable[[list[dict[str, JSONValue]]], None]) -> SSEReply:
    events = frames_of(reply)
    change(events)
    return rebuild(reply, events)


def obj(value: JSONValue) -> dict[str, JSONValue]:
    assert isinstance(value, dict)
    return value


def sent_items(sent: RecordedRequest) -> list[dict[str, JSONValue]]:
    value = sent.json()["input"]
    assert isinstance(value, list)
    return [obj(item) for item in value]


# --- text, reasoning, tool calls -----------------------------------------------------------


def test_text_in_chunks_concatenates_into_the_finished_message(fake_provider: FakeProvider) -> None:
    fake_provider.script(openai_responses.text_turn("Hello there, world!", chunks=4))
    events = run(fake_provider)
    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "Hello",
        " ther",
        "e, wo",
        "rld!",
    ]
    end = finish(events)
    assert (end.reason, end.vendor_reason) == ("stop", "completed")
    assert end.message.parts == [
        TextPart(
            text="Hello there, world!", provider_metadata={"openai": {"item_id": "msg_fake_01"}}
        )
    ]
    sent = fake_provider.requests[0]
    assert (sent.method, sent.path) == ("POST", "/responses")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    body = sent.json()
    assert (body["store"], body["stream"], body["instructions"]) == (False, True, "Be brief.")


def test_reasoning_keeps_the_final_encrypted_content_and_summary(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(openai_responses.reasoning_turn("Think it through.", "Answer."))
    events = run(fake_provider)
    assert reasonings(events) == "Think it through."
    assert texts(events) == "Answer."
    parts = finish(events).message.parts
    assert parts[0] == ReasoningPart(
        text="Think it through.",
        provider_metadata={
            "openai": {
                "item_id": "rs_fake_01",
                "encrypted_content": DEFAULT_ENCRYPTED_CONTENT,
                "summary": ["Think it through."],
            }
        },
    )
    assert PENDING_ENCRYPTED_CONTENT not in repr(parts)
    assert isinstance(parts[1], TextPart)
    assert parts[1].text == "Answer."


def test_reasoning_with_no_summary_is_kept_for_its_encrypted_content(
    fake_provider: FakeProvider,
) -> None:
    call = ToolCallSpec("call_a", "read_file", {"path": "a.txt"})
    fake_provider.script(openai_responses.tool_calls_turn([call], reasoning=""))
    events = run(fake_provider)
    assert reasonings(events) == ""
    first = finish(events).message.parts[0]
    assert first == ReasoningPart(
        text="",
        provider_metadata={
            "openai": {
                "item_id": "rs_fake_01",
                "encrypted_content": DEFAULT_ENCRYPTED_CONTENT,
                "summary": [],
            }
        },
    )


def test_summary_parts_are_separated_by_a_blank_line(fake_provider: FakeProvider) -> None:
    def second_part(events: list[dict[str, JSONValue]]) -> None:
        done = next(i for i, e in enumerate(events) if e["type"] == "response.output_item.done")
        where: dict[str, JSONValue] = {"item_id": "rs_fake_01", "output_index": 0}
        events[done:done] = [
            {"type": "response.reasoning_summary_part.added", **where, "summary_index": 1},
            {
                "type": "response.reasoning_summary_text.delta",
                **where,
                "summary_index": 1,
                "delta": "Two.",
            },
        ]
        item = obj(events[done + 2]["item"])
        item["summary"] = [
            {"type": "summary_text", "text": "One."},
            {"type": "summary_text", "text": "Two."},
        ]

    fake_provider.script(edit(openai_responses.reasoning_turn("One.", "ok", chunks=1), second_part))
    events = run(fake_provider)
    assert reasonings(events) == "One.\n\nTwo."
    part = finish(events).message.parts[0]
    assert isinstance(part, ReasoningPart)
    assert obj(part.provider_metadata["openai"])["summary"] == ["One.", "Two."]


def test_several_tool_calls_including_one_without_arguments(fake_provider: FakeProvider) -> None:
    calls = [
        ToolCallSpec("call_a", "read_file", {"path": "a.txt"}),
        ToolCallSpec("call_b", "list_dir"),
    ]
    fake_provider.script(openai_responses.tool_calls_turn(calls, text="Reading.", arg_chunks=3))
    events = run(fake_provider)
    assert [(e.id, e.name) for e in events if isinstance(e, ToolCallStart)] == [
        ("call_a", "read_file"),
        ("call_b", "list_dir"),
    ]
    args_a = "".join(
        e.arguments for e in events if isinstance(e, ToolCallDelta) and e.id == "call_a"
    )
    assert args_a == '{"path":"a.txt"}'
    ends = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [
        ToolCallPart(
            id="call_a",
            name="read_file",
            input={"path": "a.txt"},
            provider_metadata={"openai": {"item_id": "fc_fake_01"}},
        ),
        ToolCallPart(
            id="call_b",
            name="list_dir",
            input={},
            provider_metadata={"openai": {"item_id": "fc_fake_02"}},
        ),
    ]
    end = finish(events)
    assert end.reason == "tool_calls"
    assert [type(p) for p in end.message.parts] == [TextPart, ToolCallPart, ToolCallPart]
    assert end.message.parts[1:] == ends


def test_whole_arguments_in_one_delta(fake_provider: FakeProvider) -> None:
    call = ToolCallSpec("call_a", "read_file", {"path": "src/main.py"})
    fake_provider.script(openai_responses.tool_calls_turn([call], arg_chunks=1))
    events = run(fake_provider)
    deltas = [e.arguments for e in events if isinstance(e, ToolCallDelta)]
    assert deltas == ['{"path":"src/main.py"}']
    ends = [e.call.input for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [{"path": "src/main.py"}]


def test_a_call_that_arrives_only_as_a_done_item_still_starts_and_ends(
    fake_provider: FakeProvider,
) -> None:
    call = ToolCallSpec("call_a", "read_file", {"path": "a.txt"})

    def only_done(events: list[dict[str, JSONValue]]) -> None:
        events[:] = [
            e
            for e in events
            if e["type"]
            not in ("response.output_item.added", "response.function_call_arguments.delta")
        ]

    fake_provider.script(edit(openai_responses.tool_calls_turn([call]), only_done))
    events = run(fake_provider)
    assert [type(e) for e in events if isinstance(e, ToolCallStart | ToolCallEnd)] == [
        ToolCallStart,
        ToolCallEnd,
    ]
    assert finish(events).message.parts[0] == ToolCallPart(
        id="call_a",
        name="read_file",
        input={"path": "a.txt"},
        provider_metadata={"openai": {"item_id": "fc_fake_01"}},
    )


# --- usage and finish reasons ------------------------------------------------------------------


def test_usage_excludes_cache_reads_and_writes_from_input(fake_provider: FakeProvider) -> None:
    usage = openai_responses.Usage(
        input_tokens=1000, cached_tokens=600, output_tokens=300, reasoning_tokens=120
    )

    def add_cache_write(events: list[dict[str, JSONValue]]) -> None:
        response = obj(events[-1]["response"])
        obj(obj(response["usage"])["input_tokens_details"])["cache_write_tokens"] = 150

    fake_provider.script(
        openai_responses.text_turn("ok", usage=usage),
        edit(openai_responses.text_turn("ok", usage=usage), add_cache_write),
    )
    plain = run(fake_provider)
    # 1000 prompt tokens of which 600 were read from the cache: 400 fresh.
    expected = Usage(input=400, output=300, cache_read=600, cache_write=0, reasoning=120)
    assert finish(plain).usage == expected
    assert [e.usage for e in plain if isinstance(e, UsageEvent)] == [expected]
    written = run(fake_provider, request())
    # 1000 = 250 fresh + 600 read + 150 written.
    assert finish(written).usage == Usage(
        input=250, output=300, cache_read=600, cache_write=150, reasoning=120
    )


@pytest.mark.parametrize(
    ("stop", "reason"),
    [("max_output_tokens", "length"), ("content_filter", "refusal")],
)
def test_incomplete_response_maps_its_reason(
    fake_provider: FakeProvider, stop: str, reason: str
) -> None:
    fake_provider.script(openai_responses.text_turn("partial answ", stop=stop))
    end = finish(run(fake_provider))
    assert (end.reason, end.vendor_reason) == (reason, stop)
    assert text_of(end.message) == "partial answ"


def test_refusal_deltas_are_text_and_finish_as_refusal(fake_provider: FakeProvider) -> None:
    def to_refusal(events: list[dict[str, JSONValue]]) -> None:
        for e in events:
            if e["type"] == "response.output_text.delta":
                e["type"] = "response.refusal.delta"
            if e["type"] == "response.output_item.done":
                obj(e["item"])["content"] = [{"type": "refusal", "refusal": "I can't help."}]

    fake_provider.script(edit(openai_responses.text_turn("I can't help."), to_refusal))
    events = run(fake_provider)
    assert texts(events) == "I can't help."
    end = finish(events)
    assert (end.reason, end.vendor_reason) == ("refusal", "completed")
    assert text_of(end.message) == "I can't help."


def test_message_text_that_was_not_streamed_comes_from_the_done_item(
    fake_provider: FakeProvider,
) -> None:
    def no_deltas(events: list[dict[str, JSONValue]]) -> None:
        events[:] = [e for e in events if e["type"] != "response.output_text.delta"]

    fake_provider.script(edit(openai_responses.text_turn("Whole text."), no_deltas))
    events = run(fake_provider)
    assert texts(events) == "Whole text."
    assert text_of(finish(events).message) == "Whole text."


def test_text_streamed_before_its_item_was_announced_still_gets_the_item_id(
    fake_provider: FakeProvider,
) -> None:
    def unannounced(events: list[dict[str, JSONValue]]) -> None:
        events[:] = [e for e in events if e["type"] != "response.output_item.added"]

    fake_provider.script(edit(openai_responses.text_turn("Late id."), unannounced))
    events = run(fake_provider)
    assert texts(events) == "Late id."
    assert finish(events).message.parts == [
        TextPart(text="Late id.", provider_metadata={"openai": {"item_id": "msg_fake_01"}})
    ]


# --- HTTP errors -------------------------------------------------------------------------------


def test_401_is_an_auth_error_not_retried_and_hides_the_key(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        openai_responses.error_reply(
            401, f"Incorrect API key provided: {KEY}.", code="invalid_api_key"
        )
    )
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("auth", False, 401)
    assert KEY not in error.message
    assert len(fake_provider.requests) == 1


def test_429_with_retry_after_then_success_is_one_clean_stream(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        openai_responses.error_reply(
            429, "Rate limit reached.", code="rate_limit_exceeded", headers={"retry-after": "0"}
        ),
        openai_responses.text_turn("after the wait"),
    )
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert not any(isinstance(e, ErrorEvent) for e in events)
    assert texts(events) == "after the wait"
    assert text_of(finish(events).message) == "after the wait"


def test_400_context_overflow_is_not_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        openai_responses.error_reply(
            400,
            "Your input exceeds the context window of this model.",
            code="context_length_exceeded",
        )
    )
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("context_overflow", False, 400)
    assert len(fake_provider.requests) == 1


def test_insufficient_quota_429_is_never_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        openai_responses.error_reply(
            429, "You exceeded your current quota.", code="insufficient_quota"
        ),
        openai_responses.text_turn("never sent"),
    )
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("rate_limit", False, 429)
    assert len(fake_provider.requests) == 1


def test_500_is_retried_then_succeeds(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        openai_responses.error_reply(500, "The server had an error."),
        openai_responses.text_turn("recovered"),
    )
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert text_of(finish(events).message) == "recovered"


def test_non_json_error_body_is_tolerated(fake_provider: FakeProvider) -> None:
    html = RawReply(502, b"<html><body>Bad gateway</body></html>", content_type="text/html")
    fake_provider.script(html, html, html)
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("server", True, 502)
    assert "Bad gateway" in error.message
    assert len(fake_provider.requests) == 3  # the first try and FAST's two retries


# --- broken streams ----------------------------------------------------------------------------


def test_stream_closed_cleanly_mid_way_is_an_incomplete_answer(
    fake_provider: FakeProvider,
) -> None:
    reply = openai_responses.text_turn("abcdefghij", chunks=5)
    fake_provider.script(dataclasses.replace(reply, cut_after=6))  # 4 lifecycle + 2 deltas
    events = run(fake_provider)
    error = failure(events)
    assert error.kind == "stream_incomplete"
    assert "response.completed" in error.message
    assert error.partial is not None
    assert text_of(error.partial) == texts(events) == "abcd"


def test_stream_cut_abruptly_after_output_is_a_network_error(fake_provider: FakeProvider) -> None:
    reply = openai_responses.text_turn("abcdefghij", chunks=5)
    fake_provider.script(
        dataclasses.replace(reply, cut_after=6, abrupt=True), openai_responses.text_turn("x")
    )
    events = run(fake_provider)
    error = failure(events)
    assert (error.kind, error.retryable) == ("network", True)
    assert texts(events) == "abcd"  # nothing repeated
    assert len(fake_provider.requests) == 1
    assert error.partial is not None
    assert text_of(error.partial) == "abcd"


def test_malformed_event_after_output_ends_the_stream_with_an_error(
    fake_provider: FakeProvider,
) -> None:
    reply = openai_responses.text_turn("abcdefghij", chunks=5)
    frames = [
        *reply.frames[:5],
        Frame("response.output_text.delta", '{"delta": "x", oops'),
        *reply.frames[5:],
    ]
    fake_provider.script(dataclasses.replace(reply, frames=frames))
    events = run(fake_provider)
    error = failure(events)
    assert (error.kind, error.retryable) == ("server", True)
    assert "malformed" in error.message
    assert texts(events) == "ab"


def test_malformed_first_event_is_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        SSEReply([Frame("response.created", "{not json")]), openai_responses.text_turn("fine")
    )
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert text_of(finish(events).message) == "fine"


def test_wrongly_typed_field_is_malformed_not_ignored(fake_provider: FakeProvider) -> None:
    reply = openai_responses.text_turn("abcdef", chunks=3)
    bad = Frame.of(
        {"type": "response.output_text.delta", "output_index": 0, "delta": 42},
        event="response.output_text.delta",
    )
    fake_provider.script(dataclasses.replace(reply, frames=[*reply.frames[:5], bad]))
    error = failure(run(fake_provider))
    assert error.kind == "server"
    assert "malformed" in error.message


# --- in-stream errors --------------------------------------------------------------------------


def test_in_stream_server_error_before_output_is_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(openai_responses.in_stream_error(), openai_responses.text_turn("again"))
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert text_of(finish(events).message) == "again"


def test_in_stream_error_after_output_is_terminal_with_the_partial_text(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(openai_responses.in_stream_error("partial reply"))
    events = run(fake_provider)
    error = failure(events)
    assert (error.kind, error.retryable) == ("server", True)
    assert "The server had an error" in error.message
    assert error.partial is not None
    assert texts(events) == text_of(error.partial) != ""
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("shape", ["nested", "flat"])
def test_in_stream_insufficient_quota_is_never_retried_in_either_shape(
    fake_provider: FakeProvider, shape: openai_responses.ErrorShape
) -> None:
    fake_provider.script(
        openai_responses.in_stream_error(
            message="You exceeded your current quota.",
            code="insufficient_quota",
            error_type="insufficient_quota",
            shape=shape,
        ),
        openai_responses.text_turn("never sent"),
    )
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable) == ("rate_limit", False)
    assert "current quota" in error.message
    assert len(fake_provider.requests) == 1


def test_in_stream_rate_limit_is_retryable_with_the_wait_it_names(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(
        openai_responses.in_stream_error(
            "some text",
            message="Rate limit reached. Please try again in 20ms.",
            code="rate_limit_exceeded",
            error_type="requests",
        )
    )
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.retry_after) == ("rate_limit", True, 0.02)


def test_response_failed_alone_is_an_error(fake_provider: FakeProvider) -> None:
    def failed_only(events: list[dict[str, JSONValue]]) -> None:
        events[:] = [e for e in events if e["type"] != "error"]

    reply = edit(
        openai_responses.in_stream_error("x", code="invalid_prompt", message="Bad prompt."),
        failed_only,
    )
    fake_provider.script(reply)
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable) == ("invalid_request", False)
    assert "Bad prompt." in error.message


# --- abort -----------------------------------------------------------------------------------


def test_abort_after_the_first_delta_finishes_aborted(fake_provider: FakeProvider) -> None:
    reply = openai_responses.text_turn("one two three four five six", chunks=6)
    fake_provider.script(dataclasses.replace(reply, delay=0.1))

    async def go() -> list[StreamEvent]:
        req = request()
        req.abort = anyio.Event()
        seen: list[StreamEvent] = []
        with anyio.fail_after(5):
            async for event in stream(req, target(fake_provider), retry=FAST):
                seen.append(event)
                if isinstance(event, TextDelta):
                    req.abort.set()
        return seen

    events = anyio.run(go)
    end = finish(events)
    assert end.reason == "aborted"
    assert len([e for e in events if isinstance(e, TextDelta)]) == 1


# --- recorded streams --------------------------------------------------------------------------


def recorded(name: str) -> Path:
    return reference_dir() / "wire" / RECORDED / name


def recorded_events(name: str) -> list[dict[str, JSONValue]]:
    lines = recorded(name).read_text(encoding="utf-8").splitlines()
    return [obj(json.loads(line)) for line in lines if line.strip()]


def deltas_in(events: list[dict[str, JSONValue]], kind: str) -> str:
    return "".join(str(e["delta"]) for e in events if e["type"] == kind)


def test_every_recorded_file_of_the_wire_is_replayed_here() -> None:
    covered = {
        "openai-phase.1.chunks.txt",
        "openai-reasoning-encrypted-content.1.chunks.txt",
        "azure-tool-call.1.chunks.txt",
        "openai-error.1.chunks.txt",
        "openai-error.1.json",
        "reasoning-model-temperature-error.json",
        # a non-streaming body: served as a stream of whole items (no deltas)
        "openai-reasoning-encrypted-content.1.json",
    }
    assert {p.name for p in recorded("").iterdir()} == covered


def test_replay_phase_text_turn(fake_provider: FakeProvider) -> None:
    fake_provider.script(replay(recorded("openai-phase.1.chunks.txt")))
    events = run(fake_provider)
    file = recorded_events("openai-phase.1.chunks.txt")
    assert texts(events) == deltas_in(file, "response.output_text.delta")
    end = finish(events)
    assert (end.reason, end.vendor_reason) == ("stop", "completed")
    assert all(isinstance(p, TextPart) for p in end.message.parts)
    assert [
        (text_of(Message(role="assistant", parts=[p]))[:6], p.provider_metadata)
        for p in end.message.parts
    ] == [
        (
            "Got it",
            {
                "openai": {
                    "item_id": "msg_0a63f40a2632b74300699f8819a5e08196ac270722d369af5a",
                    "phase": "commentary",
                }
            },
        ),
        (
            "Here a",
            {
                "openai": {
                    "item_id": "msg_0a63f40a2632b74300699f881bfbc88196aec38f30c3dd24b0",
                    "phase": "final_answer",
                }
            },
        ),
    ]
    # input_tokens 7112 includes cached_tokens 3072; output_tokens 463 includes reasoning 64.
    assert end.usage == Usage(input=4040, output=463, cache_read=3072, cache_write=0, reasoning=64)
    # The phases go back on the next request, without the item ids.
    follow = ModelRequest(
        model="test-model",
        messages=[Message(role="user", parts=[TextPart(text="news")]), end.message],
    )
    fake_provider.script(openai_responses.text_turn("ok"))
    run(fake_provider, follow)
    items = sent_items(fake_provider.requests[1])
    assert [(i.get("role"), i.get("phase"), "id" in i) for i in items] == [
        ("user", None, False),
        ("assistant", "commentary", False),
        ("assistant", "final_answer", False),
    ]


def test_replay_azure_tool_call(fake_provider: FakeProvider) -> None:
    fake_provider.script(replay(recorded("azure-tool-call.1.chunks.txt")))
    events = run(fake_provider)
    file = recorded_events("azure-tool-call.1.chunks.txt")
    args = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta))
    assert args == deltas_in(file, "response.function_call_arguments.delta")
    end = finish(events)
    assert (end.reason, end.vendor_reason) == ("tool_calls", "completed")
    assert end.message.parts == [
        ToolCallPart(
            id="call_H5DxLSFnsGhiROnUiDHmgyc8",
            name="weather",
            input={"location": "San Francisco"},
            provider_metadata={
                "openai": {"item_id": "fc_04041325ab8ae30400698c51c5468c8197a395f18875a5339f"}
            },
        )
    ]
    assert end.usage == Usage(input=45, output=24)


def test_replay_in_stream_quota_error(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        replay(recorded("openai-error.1.chunks.txt")), openai_responses.text_turn("never")
    )
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable) == ("rate_limit", False)
    assert "You exceeded your current quota" in error.message
    assert error.partial is None
    assert len(fake_provider.requests) == 1


def test_replay_quota_error_body(fake_provider: FakeProvider) -> None:
    fake_provider.script(replay_error(recorded("openai-error.1.json"), 429))
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("rate_limit", False, 429)
    assert error.message.startswith("openai: You exceeded your current quota")
    assert len(fake_provider.requests) == 1


def test_replay_unsupported_temperature_error_body(fake_provider: FakeProvider) -> None:
    fake_provider.script(replay_error(recorded("reasoning-model-temperature-error.json"), 400))
    error = failure(run(fake_provider))
    assert (error.kind, error.retryable, error.status) == ("invalid_request", False, 400)
    assert "'temperature' is not supported" in error.message
    assert len(fake_provider.requests) == 1


def test_replay_non_streaming_body_as_a_stream_of_whole_items(fake_provider: FakeProvider) -> None:
    """A server that sends each output item only whole (``output_item.done``, no deltas):
    the reasoning summary and the text still reach the consumer, from the items."""
    body = obj(json.loads(recorded("openai-reasoning-encrypted-content.1.json").read_bytes()))
    output = body["output"]
    assert isinstance(output, list)
    events: list[dict[str, JSONValue]] = [{"type": "response.created", "response": {}}]
    for index, item in enumerate(output):
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": body})
    fake_provider.script(SSEReply([Frame.of(e, event=str(e["type"])) for e in events]))
    result = run(fake_provider)
    reasoning_item, message_item = obj(output[0]), obj(output[1])
    summary_items = reasoning_item["summary"]
    assert isinstance(summary_items, list)
    summary: list[JSONValue] = [obj(s)["text"] for s in summary_items]
    assert reasonings(result) == summary[0]
    end = finish(result)
    assert end.message.parts == [
        ReasoningPart(
            text=str(summary[0]),
            provider_metadata={
                "openai": {
                    "item_id": reasoning_item["id"],
                    "encrypted_content": reasoning_item["encrypted_content"],
                    "summary": summary,
                }
            },
        ),
        TextPart(
            text="12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570",
            provider_metadata={"openai": {"item_id": message_item["id"]}},
        ),
    ]
    # input 865 (none cached); output 163 of which reasoning 128.
    assert end.usage == Usage(input=865, output=163, reasoning=128)
    assert (end.reason, end.vendor_reason) == ("stop", "completed")


CALCULATOR = ToolSpec(
    name="calculator",
    description="Compute a op b.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "op": {"type": "string"}},
        "required": ["a", "b", "op"],
    },
)


def test_replay_agent_loop_replays_encrypted_reasoning_byte_for_byte(
    fake_provider: FakeProvider,
) -> None:
    """The recorded four-response loop: reasoning + add, multiply, multiply, answer. Each
    Finish.message goes back with a tool result; the reasoning item of the first response is
    sent, unmodified and before its call, on every later request."""
    name = "openai-reasoning-encrypted-content.1.chunks.txt"
    file = recorded_events(name)
    responses: list[list[dict[str, JSONValue]]] = []
    for event in file:
        if event["type"] == "response.created":
            responses.append([])
        responses[-1].append(event)
    assert len(responses) == 4
    reasoning_done = next(
        obj(e["item"])
        for e in responses[0]
        if e["type"] == "response.output_item.done" and obj(e["item"])["type"] == "reasoning"
    )
    encrypted = reasoning_done["encrypted_content"]
    assert isinstance(encrypted, str)
    summary_text = deltas_in(responses[0], "response.reasoning_summary_text.delta")

    fake_provider.script(*(replay(recorded(name), part=n) for n in range(4)))
    history = [Message(role="user", parts=[TextPart(text="(12 + 7) * 3 * 10?")])]
    expected_calls = [
        ("calculator", {"a": 12, "b": 7, "op": "add"}, "19"),
        ("calculator", {"a": 19, "b": 3, "op": "multiply"}, "57"),
        ("calculator", {"a": 57, "b": 10, "op": "multiply"}, "570"),
    ]
    usages = [
        Usage(input=134, output=28),
        Usage(input=221, output=26),
        Usage(input=260, output=26),
        Usage(input=299, output=12),
    ]
    for turn in range(4):
        events = run(fake_provider, request(*history, tools=[CALCULATOR]))
        end = finish(events)
        assert end.usage == usages[turn]
        sent = fake_provider.requests[turn]
        assert_tool_results_paired(sent, "openai_responses")
        if turn:
            # The first response's reasoning, byte for byte, right before the first call.
            assert encrypted.encode() in sent.body
            items = sent_items(sent)
            kinds = [i.get("type", i.get("role")) for i in items]
            assert kinds[:3] == ["user", "reasoning", "function_call"]
            assert items[1] == {
                "type": "reasoning",
                "encrypted_content": encrypted,
                "summary": [{"type": "summary_text", "text": summary_text}],
            }
        if turn == 3:
            assert (end.reason, text_of(end.message)) == ("stop", "The final result is **570**.")
            assert texts(events) == deltas_in(responses[3], "response.output_text.delta")
            break
        assert end.reason == "tool_calls"
        calls = [p for p in end.message.parts if isinstance(p, ToolCallPart)]
        tool, args, answer = expected_calls[turn]
        assert [(c.name, c.input) for c in calls] == [(tool, args)]
        if turn == 0:
            assert reasonings(events) == summary_text
            first = end.message.parts[0]
            assert isinstance(first, ReasoningPart)
            assert first.text == summary_text
            md = obj(first.provider_metadata["openai"])
            assert md["encrypted_content"] == encrypted
            assert md["item_id"] == reasoning_done["id"]
        result = ToolResultPart(call_id=calls[0].id, name=tool, content=[TextPart(text=answer)])
        history += [end.message, Message(role="tool", parts=[result])]
    assert len(fake_provider.requests) == 4
