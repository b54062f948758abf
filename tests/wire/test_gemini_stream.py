"""The ``google-gemini`` wire over real HTTP: the fake provider serves Gemini streams and
errors on loopback, ``providers.stream`` drives the adapter, and every scenario ends in
exactly one terminal event. Also: every recorded Gemini file replayed, and round trips that
send a streamed turn back with its signatures byte for byte."""

from __future__ import annotations

import json

import anyio
import pytest

from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect, stream
from earshot.providers.target import Secret, Target
from earshot.providers.types import (
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
from tests.fake_provider import gemini as fake
from tests.fake_provider.fixtures import wire_dir
from tests.wire.cases import LIST_TOOL, READ_TOOL, model_info
from tests.wire.streams import error_of, finish_of, reasonings, texts

FAST = RetryPolicy(base_delay=0.01)
KEY = "AIzaSyStreamTestKey0123456789abcdefgh"
RECORDED = wire_dir() / "google"
SIG = fake.DEFAULT_SIGNATURE


# --- helpers -------------------------------------------------------------------------------


def target_for(provider: FakeProvider) -> Target:
    return Target(
        provider="google",
        wire="google-gemini",
        base_url=provider.base_url,
        model="test-model",
        auth="x-goog-api-key",
        api_key=Secret(KEY),
        info=model_info("google"),
    )


def ask(text: str = "hi", *, history: list[Message] | None = None) -> ModelRequest:
    messages = history if history is not None else [user(text)]
    return ModelRequest(model="test-model", messages=messages, tools=[READ_TOOL, LIST_TOOL])


def user(text: str) -> Message:
    return Message(role="user", parts=[TextPart(text=text)])


def run(
    provider: FakeProvider, request: ModelRequest | None = None, retry: RetryPolicy = FAST
) -> list[StreamEvent]:
    async def go() -> list[StreamEvent]:
        return await collect(request or ask(), target_for(provider), retry=retry)

    return anyio.run(go)


def calls_of(message: Message) -> list[ToolCallPart]:
    return [p for p in message.parts if isinstance(p, ToolCallPart)]


def signed(signature: str, **extra: JSONValue) -> dict[str, JSONValue]:
    return {"google": {"thoughtSignature": signature, **extra}}


def frames(*parts_per_chunk: list[JSONValue], stop: str | None = "STOP") -> SSEReply:
    """One chunk per parts list; the last carries ``finishReason`` and usage."""
    out = [fake.chunk(parts) for parts in parts_per_chunk[:-1]]
    out.append(fake.chunk(parts_per_chunk[-1], finish_reason=stop, usage=fake.Usage().payload()))
    return SSEReply(out)


def recorded_lines(name: str) -> list[dict[str, JSONValue]]:
    text = (RECORDED / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def recorded_parts(name: str) -> list[dict[str, JSONValue]]:
    """Every part of every chunk of a recorded stream, in order."""
    found: list[dict[str, JSONValue]] = []
    for chunk in recorded_lines(name):
        for candidate in as_list(chunk.get("candidates")):
            content = as_dict(as_dict(candidate).get("content"))
            found.extend(as_dict(part) for part in as_list(content.get("parts")))
    return found


def as_list(value: JSONValue) -> list[JSONValue]:
    assert isinstance(value, list)
    return value


def as_dict(value: JSONValue) -> dict[str, JSONValue]:
    assert isinstance(value, dict)
    return value


# --- text and reasoning --------------------------------------------------------------------


def test_text_in_chunks_concatenates_into_the_finish_message(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.text_turn("Hello there, general Kenobi.", chunks=5))
    events = run(fake_provider)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) == 5
    assert "".join(deltas) == "Hello there, general Kenobi."
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("stop", "STOP")
    assert end.message == Message(
        role="assistant",
        parts=[
            TextPart(text="Hello there, general Kenobi."),
            TextPart(text="", provider_metadata=signed(SIG)),
        ],
    )
    [request] = fake_provider.requests
    assert request.path == "/v1beta/models/test-model:streamGenerateContent"
    assert request.query == {"alt": "sse"}
    assert request.headers["x-goog-api-key"] == KEY


def test_thought_parts_are_reasoning_deltas(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.reasoning_turn("Let me think about it.", "Forty-two."))
    events = run(fake_provider)
    assert reasonings(events) == "Let me think about it."
    assert texts(events) == "Forty-two."
    assert finish_of(events).message.parts == [
        ReasoningPart(text="Let me think about it."),
        TextPart(text="Forty-two."),
        TextPart(text="", provider_metadata=signed(SIG)),
    ]


def test_a_signature_stays_on_the_part_that_carried_it(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        frames(
            [{"text": "weigh", "thought": True}],
            [{"text": "ing", "thought": True, "thoughtSignature": "sig-thought"}],
            [{"text": "A"}],
            [{"text": "B", "thoughtSignature": "sig-text"}],
            [{"text": "C"}],
            [{"text": "", "thoughtSignature": "sig-tail"}],
        )
    )
    events = run(fake_provider)
    assert texts(events) == "ABC"
    assert finish_of(events).message.parts == [
        ReasoningPart(text="weighing", provider_metadata=signed("sig-thought")),
        TextPart(text="AB", provider_metadata=signed("sig-text")),
        TextPart(text="C"),
        TextPart(text="", provider_metadata=signed("sig-tail")),
    ]


# --- tool calls ----------------------------------------------------------------------------


def test_one_tool_call_arrives_whole(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.tool_calls_turn([ToolCallSpec("x", "read_file", {"path": "a.txt"})]))
    events = run(fake_provider)
    start = next(e for e in events if isinstance(e, ToolCallStart))
    assert start.name == "read_file"
    assert start.id.startswith("gemini-call-")
    assert [e.arguments for e in events if isinstance(e, ToolCallDelta)] == ['{"path":"a.txt"}']
    [done] = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert done == ToolCallPart(
        id=start.id, name="read_file", input={"path": "a.txt"}, provider_metadata=signed(SIG)
    )
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("tool_calls", "STOP")
    assert end.message.parts == [done]


def test_several_calls_including_one_without_arguments(fake_provider: FakeProvider) -> None:
    specs = [ToolCallSpec("a", "read_file", {"path": "a.txt"}), ToolCallSpec("b", "list_dir")]
    fake_provider.script(fake.tool_calls_turn(specs, text="Looking.", reasoning="Plan."))
    events = run(fake_provider)
    message = finish_of(events).message
    first, second = calls_of(message)
    assert (first.name, first.input, first.provider_metadata) == (
        "read_file",
        {"path": "a.txt"},
        signed(SIG),
    )
    assert (second.name, second.input, second.provider_metadata) == ("list_dir", {}, {})
    assert first.id != second.id
    assert [e.id for e in events if isinstance(e, ToolCallDelta)] == [first.id]
    assert [type(p).__name__ for p in message.parts] == [
        "ReasoningPart",
        "TextPart",
        "ToolCallPart",
        "ToolCallPart",
    ]


def test_calls_in_separate_chunks(fake_provider: FakeProvider) -> None:
    specs = [ToolCallSpec("a", "read_file", {"path": "1"}), ToolCallSpec("b", "read_file", {})]
    fake_provider.script(fake.tool_calls_turn(specs, separate_chunks=True))
    calls = calls_of(finish_of(run(fake_provider)).message)
    assert [c.input for c in calls] == [{"path": "1"}, {}]


def test_gemini_issued_call_ids_are_used_and_remembered(fake_provider: FakeProvider) -> None:
    specs = [ToolCallSpec("fc-1", "read_file", {"path": "a"}), ToolCallSpec("fc-2", "list_dir")]
    fake_provider.script(fake.tool_calls_turn(specs, with_ids=True))
    calls = calls_of(finish_of(run(fake_provider)).message)
    assert [(c.id, c.provider_metadata) for c in calls] == [
        ("fc-1", signed(SIG, id="fc-1")),
        ("fc-2", {"google": {"id": "fc-2"}}),
    ]


def test_streamed_function_call_arguments_assemble(fake_provider: FakeProvider) -> None:
    def piece(*args: JSONValue, more: bool = True) -> list[JSONValue]:
        return [{"functionCall": {"partialArgs": list(args), "willContinue": more}}]

    fake_provider.script(
        frames(
            [{"functionCall": {"name": "edit", "willContinue": True}, "thoughtSignature": "s"}],
            piece({"jsonPath": "$.path", "stringValue": "src/", "willContinue": True}),
            piece({"jsonPath": "$.path", "stringValue": "a.py"}),
            piece(
                {"jsonPath": "$.options.count", "numberValue": 3},
                {"jsonPath": "$.options.ratio", "numberValue": 0.5},
            ),
            piece({"jsonPath": "$.flags[0]", "boolValue": True}),
            piece({"jsonPath": "$.flags[1]", "boolValue": False}),
            piece({"jsonPath": "$['odd key']", "nullValue": "NULL_VALUE"}),
            piece({"jsonPath": "$.text", "stringValue": "line1\n", "willContinue": True}),
            piece({"jsonPath": "$.text", "stringValue": "line2", "willContinue": False}),
            [{"functionCall": {}}],
            [{"text": ""}],
        )
    )
    events = run(fake_provider)
    expected: JSONValue = {
        "path": "src/a.py",
        "options": {"count": 3, "ratio": 0.5},
        "flags": [True, False],
        "odd key": None,
        "text": "line1\nline2",
    }
    [call] = calls_of(finish_of(events).message)
    assert (call.name, call.input, call.provider_metadata) == ("edit", expected, signed("s"))
    arguments = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta))
    assert json.loads(arguments) == expected


def test_a_call_cut_off_mid_arguments_is_not_runnable(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        SSEReply(
            [
                fake.chunk([{"functionCall": {"name": "edit", "willContinue": True}}]),
                fake.chunk(
                    [
                        {
                            "functionCall": {
                                "partialArgs": [{"jsonPath": "$.path", "stringValue": "src/"}],
                                "willContinue": True,
                            }
                        }
                    ]
                ),
            ]
        )
    )
    end = error_of(run(fake_provider))
    assert end.kind == "stream_incomplete"
    assert end.partial is not None
    [call] = calls_of(end.partial)
    assert call.input == '{"path":"src/"}'  # text, not an object: never run as given


# --- usage and stop reasons ------------------------------------------------------------------


def test_usage_maps_cache_and_thoughts(fake_provider: FakeProvider) -> None:
    usage = fake.Usage(
        prompt_token_count=1200,
        candidates_token_count=40,
        thoughts_token_count=300,
        cached_content_token_count=1000,
    )
    fake_provider.script(fake.text_turn("ok", usage=usage))
    events = run(fake_provider)
    # input = 1200 prompt - 1000 cached; output = 40 candidates + 300 thoughts.
    expected = Usage(input=200, output=340, cache_read=1000, reasoning=300)
    assert finish_of(events).usage == expected
    assert [e.usage for e in events if isinstance(e, UsageEvent)][-1] == expected


def test_last_usage_with_counts_wins_and_tool_use_prompt_counts_as_input(
    fake_provider: FakeProvider,
) -> None:
    first: dict[str, JSONValue] = {"promptTokenCount": 10, "candidatesTokenCount": 1}
    last: dict[str, JSONValue] = {
        "promptTokenCount": 10,
        "candidatesTokenCount": 5,
        "toolUsePromptTokenCount": 7,
    }
    fake_provider.script(
        SSEReply(
            [
                fake.chunk([{"text": "a"}], usage=first),
                fake.chunk([{"text": "b"}], usage=last),
                fake.chunk([{"text": ""}], finish_reason="STOP", usage={"trafficType": "X"}),
            ]
        )
    )
    events = run(fake_provider)
    assert finish_of(events).usage == Usage(input=17, output=5)
    assert len([e for e in events if isinstance(e, UsageEvent)]) == 2


@pytest.mark.parametrize(
    ("vendor", "reason"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "refusal"),
        ("RECITATION", "refusal"),
        ("BLOCKLIST", "refusal"),
        ("PROHIBITED_CONTENT", "refusal"),
        ("SPII", "refusal"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("OTHER", "error"),
    ],
)
def test_finish_reason_mapping(fake_provider: FakeProvider, vendor: str, reason: str) -> None:
    fake_provider.script(fake.text_turn("partial", stop=vendor, thought_signature=None))
    end = finish_of(run(fake_provider))
    assert (end.reason, end.vendor_reason) == (reason, vendor)
    assert text_of(end.message) == "partial"


def test_a_blocked_prompt_is_a_refusal(fake_provider: FakeProvider) -> None:
    blocked: JSONValue = {
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8},
    }
    fake_provider.script(SSEReply([Frame.of(blocked)]))
    end = finish_of(run(fake_provider))
    assert (end.reason, end.vendor_reason) == ("refusal", "PROHIBITED_CONTENT")
    assert end.message.parts == []
    assert end.usage == Usage(input=8)


# --- HTTP errors -----------------------------------------------------------------------------


def test_invalid_api_key_is_auth_and_not_retried(fake_provider: FakeProvider) -> None:
    info: JSONValue = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
    }
    fake_provider.script(
        fake.error_reply(400, "API key not valid. Please pass a valid API key.", details=[info])
    )
    err = error_of(run(fake_provider))
    assert (err.kind, err.retryable, err.status) == ("auth", False, 400)
    assert KEY not in err.message
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_401_and_403_are_auth(fake_provider: FakeProvider, status: int) -> None:
    fake_provider.script(fake.error_reply(status, "denied"))
    err = error_of(run(fake_provider))
    assert (err.kind, err.retryable) == ("auth", False)
    assert len(fake_provider.requests) == 1


def test_429_waits_the_retry_info_delay_then_succeeds(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        fake.error_reply(429, "Resource exhausted.", retry_delay="0.05s"),
        fake.text_turn("second time lucky"),
    )
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert texts(events) == "second time lucky"
    assert text_of(finish_of(events).message) == "second time lucky"


def test_retry_after_from_the_message_when_no_retry_info(fake_provider: FakeProvider) -> None:
    fake_provider.script(fake.error_reply(429, "Quota exceeded. Please retry in 48.8s."))
    err = error_of(run(fake_provider, retry=RetryPolicy(max_retries=0)))
    assert (err.kind, err.retryable, err.retry_after) == ("rate_limit", True, 48.8)


def test_context_overflow_is_not_retried(fake_provider: FakeProvider) -> None:
    message = (
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    )
    fake_provider.script(fake.error_reply(400, message))
    err = error_of(run(fake_provider))
    assert (err.kind, err.retryable, err.status) == ("context_overflow", False, 400)
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        fake.error_reply(
            429,
            "You exceeded your current quota.",
            quota_id="GenerateRequestsPerDayPerProjectPerModel-FreeTier",
            retry_delay="0.01s",
        ),
        fake.error_reply(429, "Your project has exceeded its monthly spending cap."),
        fake.error_reply(
            429,
            "Quota exceeded.",
            details=[
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{"quotaId": "InputTokensPerMinute", "quotaValue": "0"}],
                }
            ],
        ),
    ],
    ids=["per-day-quota", "spending-cap", "zero-quota"],
)
def test_quotas_that_will_not_clear_are_not_retried(
    fake_provider: FakeProvider, reply: RawReply
) -> None:
    fake_provider.script(reply)
    err = error_of(run(fake_provider))
    assert (err.kind, err.retryable) == ("rate_limit", False)
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        fake.error_reply(500, "Internal error encountered."),
        fake.error_reply(503, "The model is overloaded. Please try again later."),
        RawReply(502, b"<html>Bad Gateway</html>", content_type="text/html"),
    ],
    ids=["500", "503-unavailable", "502-html"],
)
def test_server_errors_are_retried(fake_provider: FakeProvider, reply: RawReply) -> None:
    fake_provider.script(reply, fake.text_turn("recovered"))
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert text_of(finish_of(events).message) == "recovered"


def test_server_error_that_persists_ends_in_one_error(fake_provider: FakeProvider) -> None:
    overloaded = fake.error_reply(503, "The model is overloaded.")
    fake_provider.script(overloaded, overloaded, overloaded)
    err = error_of(run(fake_provider))
    assert (err.kind, err.retryable, err.status) == ("server", True, 503)
    assert err.message == "google: The model is overloaded. (UNAVAILABLE)"
    assert len(fake_provider.requests) == 3


# --- broken streams --------------------------------------------------------------------------


def test_clean_cut_mid_stream_is_an_incomplete_answer(fake_provider: FakeProvider) -> None:
    reply = fake.text_turn("aaaabbbbccccdddd", chunks=4)
    reply.cut_after = 2
    fake_provider.script(reply)
    events = run(fake_provider)
    end = error_of(events)
    assert end.kind == "stream_incomplete"
    assert "finishReason" in end.message
    assert end.partial is not None
    assert text_of(end.partial) == texts(events) == "aaaabbbb"


def test_abrupt_cut_after_output_is_a_network_error(fake_provider: FakeProvider) -> None:
    reply = fake.text_turn("aaaabbbbccccdddd", chunks=4)
    reply.cut_after = 2
    reply.abrupt = True
    fake_provider.script(reply, fake.text_turn("never sent"))
    events = run(fake_provider)
    err = error_of(events)
    assert (err.kind, err.retryable) == ("network", True)
    assert texts(events) == "aaaabbbb"  # nothing duplicated, no retry after output
    assert err.partial is not None
    assert text_of(err.partial) == "aaaabbbb"
    assert len(fake_provider.requests) == 1


def test_abrupt_cut_after_the_finish_reason_still_finishes(fake_provider: FakeProvider) -> None:
    reply = fake.text_turn("complete answer")
    reply.abrupt = True
    fake_provider.script(reply)
    end = finish_of(run(fake_provider))
    assert (end.reason, end.vendor_reason) == ("stop", "STOP")
    assert text_of(end.message) == "complete answer"


def test_malformed_chunk_after_output_is_a_server_error(fake_provider: FakeProvider) -> None:
    fake_provider.script(SSEReply([fake.chunk([{"text": "ok so far"}]), Frame(None, "{not json")]))
    events = run(fake_provider)
    err = error_of(events)
    assert err.kind == "server"
    assert "malformed" in err.message
    assert texts(events) == "ok so far"


def test_malformed_first_chunk_is_retried(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        SSEReply([Frame(None, '{"candidates": 7}')]), fake.text_turn("fine the second time")
    )
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert text_of(finish_of(events).message) == "fine the second time"


def test_in_stream_error_after_output_ends_the_stream(fake_provider: FakeProvider) -> None:
    failure = fake.error_body(503, "The model is overloaded.")
    fake_provider.script(SSEReply([fake.chunk([{"text": "Half an ans"}]), Frame.of(failure)]))
    events = run(fake_provider)
    err = error_of(events)
    assert (err.kind, err.retryable, err.status) == ("server", True, 503)
    assert err.partial is not None
    assert text_of(err.partial) == "Half an ans"
    assert len(fake_provider.requests) == 1


def test_in_stream_error_before_output_is_retried(fake_provider: FakeProvider) -> None:
    failure = fake.error_body(500, "Internal error encountered.")
    fake_provider.script(SSEReply([Frame.of(failure)]), fake.text_turn("ok"))
    events = run(fake_provider)
    assert len(fake_provider.requests) == 2
    assert text_of(finish_of(events).message) == "ok"


def test_abort_mid_stream_finishes_aborted(fake_provider: FakeProvider) -> None:
    reply = fake.text_turn("a b c d e f", chunks=6)
    reply.delay = 0.3
    fake_provider.script(reply)
    request = ask()
    request.abort = anyio.Event()

    async def go() -> list[StreamEvent]:
        seen: list[StreamEvent] = []
        async for event in stream(request, target_for(fake_provider)):
            seen.append(event)
            if isinstance(event, TextDelta) and request.abort is not None:
                request.abort.set()
        return seen

    events = anyio.run(go)
    end = finish_of(events)
    assert end.reason == "aborted"
    assert texts(events) == "a "
    assert text_of(end.message) == "a "


# --- recorded streams ------------------------------------------------------------------------

REPLAYED = {
    "google-text.chunks.txt",
    "google-reasoning-gemini3.chunks.txt",
    "google-tool-call-gemini3.chunks.txt",
    "google-stream-no-args-tool-call.chunks.txt",
    "google-text.json",
    "google-tool-call-gemini3.json",
    "google-429-retry-info.json",
}


def test_every_recorded_gemini_file_is_replayed() -> None:
    assert {p.name for p in RECORDED.iterdir() if p.is_file()} == REPLAYED


def body_as_stream(name: str) -> SSEReply:
    """A recorded non-streaming body as the one ``data:`` event of a stream: a whole
    GenerateContentResponse is exactly what each stream chunk is. Sent verbatim, one
    ``data:`` line per line of the file."""
    return SSEReply([Frame(None, (RECORDED / name).read_text(encoding="utf-8").strip())])


@pytest.mark.parametrize(
    ("name", "usage"),
    [
        # prompt 9; output = candidates 23 + thoughts 185 (total 217) / 23 + 302 (total 334)
        ("google-text.chunks.txt", Usage(input=9, output=208, reasoning=185)),
        ("google-reasoning-gemini3.chunks.txt", Usage(input=9, output=325, reasoning=302)),
    ],
)
def test_replay_recorded_text_streams(fake_provider: FakeProvider, name: str, usage: Usage) -> None:
    parts = recorded_parts(name)
    fake_provider.script(replay(RECORDED / name))
    events = run(fake_provider)
    text = "".join(str(p["text"]) for p in parts)
    signature = parts[-1]["thoughtSignature"]
    assert isinstance(signature, str)
    assert texts(events) == text
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("stop", "STOP")
    assert end.usage == usage
    assert end.message.parts == [
        TextPart(text=text),
        TextPart(text="", provider_metadata=signed(signature)),
    ]


def test_replay_recorded_tool_call_stream(fake_provider: FakeProvider) -> None:
    name = "google-tool-call-gemini3.chunks.txt"
    signature = recorded_parts(name)[0]["thoughtSignature"]
    assert isinstance(signature, str)
    fake_provider.script(replay(RECORDED / name))
    events = run(fake_provider)
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("tool_calls", "STOP")
    [call] = calls_of(end.message)
    assert (call.name, call.input) == ("weather", {"location": "San Francisco"})
    assert call.provider_metadata == signed(signature)
    assert end.message.parts == [call]  # the trailing unsigned empty text part is dropped
    # prompt 29; output = candidates 15 + thoughts 804 (total 848)
    assert end.usage == Usage(input=29, output=819, reasoning=804)


def test_replay_recorded_streamed_arguments(fake_provider: FakeProvider) -> None:
    name = "google-stream-no-args-tool-call.chunks.txt"
    parts = recorded_parts(name)
    thought, theme = parts[0], parts[1]
    fake_provider.script(replay(RECORDED / name))
    events = run(fake_provider)
    assert reasonings(events) == thought["text"]
    end = finish_of(events)
    assert (end.reason, end.vendor_reason) == ("tool_calls", "STOP")
    assert end.message.parts[0] == ReasoningPart(text=str(thought["text"]))
    calls = calls_of(end.message)
    assert [(c.name, c.input) for c in calls] == [
        ("read_theme", {}),
        ("read_screen", {"id": "A"}),
        ("read_screen", {"id": "B"}),
        ("read_screen", {"id": "C"}),
    ]
    assert calls[0].provider_metadata == signed(str(theme["thoughtSignature"]))
    assert [c.provider_metadata for c in calls[1:]] == [{}, {}, {}]
    assert len({c.id for c in calls}) == 4
    # prompt 249; output = candidates 58 + thoughts 183 (total 490); earlier count-less
    # usage objects ({"trafficType": ...}) are ignored.
    assert end.usage == Usage(input=249, output=241, reasoning=183)


def test_replay_recorded_text_body_as_one_chunk(fake_provider: FakeProvider) -> None:
    name = "google-text.json"
    body = json.loads((RECORDED / name).read_text(encoding="utf-8"))
    part = body["candidates"][0]["content"]["parts"][0]
    fake_provider.script(body_as_stream(name))
    end = finish_of(run(fake_provider))
    assert end.message.parts == [
        TextPart(text=part["text"], provider_metadata=signed(part["thoughtSignature"]))
    ]
    # prompt 9; output = candidates 28 + thoughts 244 (total 281)
    assert end.usage == Usage(input=9, output=272, reasoning=244)
    assert (end.reason, end.vendor_reason) == ("stop", "STOP")


def test_replay_recorded_tool_call_body_as_one_chunk(fake_provider: FakeProvider) -> None:
    name = "google-tool-call-gemini3.json"
    body = json.loads((RECORDED / name).read_text(encoding="utf-8"))
    part = body["candidates"][0]["content"]["parts"][0]
    fake_provider.script(body_as_stream(name))
    end = finish_of(run(fake_provider))
    [call] = calls_of(end.message)
    assert (call.name, call.input) == ("weather", {"location": "San Francisco"})
    assert call.provider_metadata == signed(part["thoughtSignature"])
    # prompt 29; output = candidates 15 + thoughts 1801 (total 1845)
    assert end.usage == Usage(input=29, output=1816, reasoning=1801)
    assert end.reason == "tool_calls"


def test_replay_recorded_429_carries_retry_info(fake_provider: FakeProvider) -> None:
    fake_provider.script(replay_error(RECORDED / "google-429-retry-info.json", 429))
    err = error_of(run(fake_provider, retry=RetryPolicy(max_retries=0)))
    assert (err.kind, err.retryable, err.status, err.retry_after) == ("rate_limit", True, 429, 34.4)
    assert err.message == (
        "google: You exceeded your current quota, please check your plan. (RESOURCE_EXHAUSTED)"
    )


def test_replay_recorded_429_wait_longer_than_allowed_is_refused(
    fake_provider: FakeProvider,
) -> None:
    fake_provider.script(replay_error(RECORDED / "google-429-retry-info.json", 429))
    policy = RetryPolicy(base_delay=0.01, max_retry_after=10.0)
    err = error_of(run(fake_provider, retry=policy))
    assert err.retry_after == 34.4
    assert len(fake_provider.requests) == 1  # 34.4 s > 10 s: given up, not slept on


# --- round trips -----------------------------------------------------------------------------


def model_contents(body: dict[str, JSONValue]) -> list[dict[str, JSONValue]]:
    items = body["contents"]
    assert isinstance(items, list)
    return [c for c in items if isinstance(c, dict) and c.get("role") == "model"]


def answer(calls: list[ToolCallPart]) -> Message:
    return Message(
        role="tool",
        parts=[
            ToolResultPart(call_id=c.id, name=c.name, content=[TextPart(text="done")])
            for c in calls
        ],
    )


def test_round_trip_replays_the_call_signature_byte_for_byte(fake_provider: FakeProvider) -> None:
    name = "google-tool-call-gemini3.chunks.txt"
    line = (RECORDED / name).read_text(encoding="utf-8").splitlines()[0]
    fake_provider.script(replay(RECORDED / name), fake.text_turn("Sunny."))
    message = finish_of(run(fake_provider)).message
    history = [user("Weather in SF?"), message, answer(calls_of(message))]
    finish_of(run(fake_provider, ask(history=history)))
    sent = fake_provider.requests[1]
    assert_tool_results_paired(sent, "gemini")
    [model] = model_contents(sent.json())
    recorded_part = json.loads(line)["candidates"][0]["content"]["parts"][0]
    assert model["parts"] == [recorded_part]  # functionCall and thoughtSignature as received
    assert f'"thoughtSignature":"{recorded_part["thoughtSignature"]}"'.encode() in sent.body


def test_round_trip_keeps_the_trailing_signed_empty_part(fake_provider: FakeProvider) -> None:
    name = "google-text.chunks.txt"
    parts = recorded_parts(name)
    fake_provider.script(replay(RECORDED / name), fake.text_turn("You're welcome."))
    message = finish_of(run(fake_provider)).message
    finish_of(run(fake_provider, ask(history=[user("q"), message, user("thanks")])))
    [model] = model_contents(fake_provider.requests[1].json())
    text = "".join(str(p["text"]) for p in parts)
    assert model["parts"] == [
        {"text": text},
        {"text": "", "thoughtSignature": parts[-1]["thoughtSignature"]},
    ]


def test_round_trip_of_parallel_streamed_calls(fake_provider: FakeProvider) -> None:
    name = "google-stream-no-args-tool-call.chunks.txt"
    theme = recorded_parts(name)[1]
    fake_provider.script(replay(RECORDED / name), fake.text_turn("All read."))
    message = finish_of(run(fake_provider)).message
    history = [user("Read the theme and screens"), message, answer(calls_of(message))]
    finish_of(run(fake_provider, ask(history=history)))
    sent = fake_provider.requests[1]
    assert assert_tool_results_paired(sent, "gemini") == 4
    [model] = model_contents(sent.json())
    # The thought summary has no signature: not replayed. Only the first call is signed.
    assert model["parts"] == [
        {
            "functionCall": {"name": "read_theme", "args": {}},
            "thoughtSignature": theme["thoughtSignature"],
        },
        {"functionCall": {"name": "read_screen", "args": {"id": "A"}}},
        {"functionCall": {"name": "read_screen", "args": {"id": "B"}}},
        {"functionCall": {"name": "read_screen", "args": {"id": "C"}}},
    ]


def test_round_trip_echoes_gemini_issued_ids(fake_provider: FakeProvider) -> None:
    specs = [ToolCallSpec("fc-1", "read_file", {"path": "a"}), ToolCallSpec("fc-2", "list_dir")]
    fake_provider.script(fake.tool_calls_turn(specs, with_ids=True), fake.text_turn("ok"))
    message = finish_of(run(fake_provider)).message
    finish_of(run(fake_provider, ask(history=[user("go"), message, answer(calls_of(message))])))
    sent = fake_provider.requests[1]
    assert assert_tool_results_paired(sent, "gemini") == 2
    contents = sent.json()["contents"]
    assert isinstance(contents, list)
    responses = contents[2]
    assert responses == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "read_file",
                    "response": {"output": "done"},
                    "id": "fc-1",
                }
            },
            {
                "functionResponse": {
                    "name": "list_dir",
                    "response": {"output": "done"},
                    "id": "fc-2",
                }
            },
        ],
    }


def test_history_from_another_provider_pairs_and_gets_the_placeholder(
    fake_provider: FakeProvider,
) -> None:
    foreign = Message(
        role="assistant",
        parts=[
            ReasoningPart(text="hmm", provider_metadata={"anthropic": {"signature": "a-sig"}}),
            ToolCallPart(id="toolu_1", name="read_file", input={"path": "x"}),
            ToolCallPart(id="toolu_2", name="list_dir", input={}),
        ],
    )
    fake_provider.script(fake.text_turn("ok"))
    finish_of(run(fake_provider, ask(history=[user("go"), foreign, answer(calls_of(foreign))])))
    sent = fake_provider.requests[0]
    assert assert_tool_results_paired(sent, "gemini") == 2
    [model] = model_contents(sent.json())
    assert model["parts"] == [
        {
            "functionCall": {"name": "read_file", "args": {"path": "x"}},
            "thoughtSignature": "skip_thought_signature_validator",
        },
        {"functionCall": {"name": "list_dir", "args": {}}},
    ]
