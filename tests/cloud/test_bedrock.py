"""Amazon Bedrock end to end: earshot's ConverseStream calls against a loopback fake that
checks SigV4 signatures as the service does and answers in AWS event-stream frames; boto3
itself is run against the same fake, so the fake cannot drift from the real service."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import boto3
import pytest

from earshot.providers.registry import get_provider, resolve_target
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect
from earshot.providers.target import Target
from earshot.providers.types import (
    ErrorEvent,
    JSONValue,
    Message,
    ModelRequest,
    ReasoningPart,
    StreamEvent,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from earshot.providers.wire.anthropic._request import build_body as anthropic_body
from tests.fake_cloud._http import Answer
from tests.fake_cloud.aws import BEARER, FakeAws, event, exception, text_reply
from tests.wire.cases import READ_TOOL, model_info
from tests.wire.streams import error_of, finish_of, texts

FAST = RetryPolicy(base_delay=0.01)
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
ACCESS, SECRET = "AKIDLOCALTEST", "local/secret+key"


def env_for(fake: FakeAws, **extra: str) -> dict[str, str]:
    fake.extra_keys[ACCESS] = SECRET
    return {
        "AWS_ACCESS_KEY_ID": ACCESS,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": "us-west-2",
        "AMAZON_BEDROCK_BASE_URL": fake.base_url,
        **extra,
    }


def run(
    monkeypatch: pytest.MonkeyPatch,
    env: Mapping[str, str],
    request: ModelRequest,
) -> tuple[list[StreamEvent], Target]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    spec = get_provider("amazon-bedrock")
    tgt = resolve_target(spec, request.model, info=model_info("amazon-bedrock"), env=env)

    async def go() -> list[StreamEvent]:
        return await collect(request, tgt, retry=FAST)

    return anyio.run(go), tgt


def ask(text: str = "hi", model: str = CLAUDE, **kw: object) -> ModelRequest:
    return ModelRequest(
        model=model,
        messages=[Message(role="user", parts=[TextPart(text=text)])],
        system="Be brief.",
        **kw,  # type: ignore[arg-type]  # test helper passes ModelRequest fields through
    )


def test_boto3_streams_from_the_fake_with_its_own_signature(fake_aws: FakeAws) -> None:
    fake_aws.extra_keys[ACCESS] = SECRET
    fake_aws.streams.append(text_reply("Hello from the fake."))
    client = boto3.client(
        "bedrock-runtime",
        region_name="us-west-2",
        endpoint_url=fake_aws.base_url,
        aws_access_key_id=ACCESS,
        aws_secret_access_key=SECRET,
    )
    answer = client.converse_stream(
        modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "hi"}]}]
    )
    text = ""
    usage = None
    for item in answer["stream"]:
        text += item.get("contentBlockDelta", {}).get("delta", {}).get("text", "")
        usage = item.get("metadata", {}).get("usage", usage)
    assert text == "Hello from the fake."
    assert usage == {"inputTokens": 11, "outputTokens": 7, "totalTokens": 18}
    assert (
        fake_aws.requests[-1].path
        == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    )


def test_signed_text_turn_with_usage_and_pinned_body(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    fake_aws.streams.append(text_reply("Hi there."))
    events, tgt = run(monkeypatch, env_for(fake_aws), ask(temperature=0.2))
    end = finish_of(events)
    assert texts(events) == "Hi there."
    assert end.reason == "stop"
    assert (end.usage.input, end.usage.output) == (11, 7)
    assert tgt.cloud["region"] == "us-west-2"
    assert fake_aws.seen_regions == ["us-west-2"]
    sent = fake_aws.requests[-1]
    assert sent.path.endswith(
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    )
    assert sent.headers["accept"] == "application/vnd.amazon.eventstream"
    assert sent.json() == {
        "messages": [
            {"role": "user", "content": [{"text": "hi"}, {"cachePoint": {"type": "default"}}]}
        ],
        "system": [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}],
        "inferenceConfig": {"maxTokens": 32000, "temperature": 0.2},
    }


def test_a_wrong_secret_is_refused_as_auth(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    env = env_for(fake_aws, AWS_SECRET_ACCESS_KEY="not-the-secret")
    events, _ = run(monkeypatch, env, ask())
    error = error_of(events)
    assert error.kind == "auth"
    assert "InvalidSignatureException" in error.message
    assert "not-the-secret" not in error.message


def test_bedrock_api_key_is_sent_as_bearer(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    fake_aws.streams.append(text_reply("ok"))
    env = {"AWS_BEARER_TOKEN_BEDROCK": BEARER, "AMAZON_BEDROCK_BASE_URL": fake_aws.base_url}
    events, _ = run(monkeypatch, env, ask())
    assert texts(events) == "ok"
    assert fake_aws.requests[-1].headers["authorization"] == f"Bearer {BEARER}"


def _reasoning_and_tool_turn() -> list[bytes]:
    return [
        event("messageStart", {"role": "assistant"}),
        event(
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Let me look."}}},
        ),
        event(
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig-abc"}}},
        ),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event(
            "contentBlockStart",
            {
                "contentBlockIndex": 1,
                "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "read"}},
            },
        ),
        event(
            "contentBlockDelta",
            {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"path": '}}},
        ),
        event(
            "contentBlockDelta",
            {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"a.txt"}'}}},
        ),
        event("contentBlockStop", {"contentBlockIndex": 1}),
        event("messageStop", {"stopReason": "tool_use"}),
        event(
            "metadata",
            {
                "usage": {
                    "inputTokens": 5,
                    "outputTokens": 9,
                    "cacheReadInputTokens": 100,
                    "cacheWriteInputTokens": 20,
                }
            },
        ),
    ]


def test_reasoning_signature_and_tool_call_replay_on_bedrock_only(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    fake_aws.streams.append(_reasoning_and_tool_turn())
    events, _ = run(
        monkeypatch, env_for(fake_aws), ask("read a.txt", tools=[READ_TOOL], reasoning_effort="low")
    )
    end = finish_of(events)
    assert end.reason == "tool_calls"
    assert (end.usage.cache_read, end.usage.cache_write) == (100, 20)
    reasoning, call = end.message.parts
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.provider_metadata == {"amazon-bedrock": {"signature": "sig-abc"}}
    assert isinstance(call, ToolCallPart)
    assert call.input == {"path": "a.txt"}
    first = fake_aws.requests[-1].json()
    # Claude's reasoning fields are the Anthropic wire's, in additionalModelRequestFields.
    fields = first["additionalModelRequestFields"]
    assert isinstance(fields, dict)
    assert fields["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert fields["output_config"] == {"effort": "low"}
    assert first["inferenceConfig"] == {"maxTokens": 32000}

    history = [
        Message(role="user", parts=[TextPart(text="read a.txt")]),
        end.message,
        Message(
            role="tool",
            parts=[ToolResultPart(call_id=call.id, name="read", content=[TextPart(text="hello")])],
        ),
    ]
    fake_aws.streams.append(text_reply("It says hello."))
    events, _ = run(
        monkeypatch,
        env_for(fake_aws),
        ModelRequest(model=CLAUDE, messages=history, tools=[READ_TOOL]),
    )
    assert texts(events) == "It says hello."
    replayed: Any = json.loads(fake_aws.requests[-1].body)["messages"]
    assert replayed[1]["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "Let me look.", "signature": "sig-abc"}}
    }
    assert replayed[2]["content"][0]["toolResult"] == {
        "toolUseId": "tooluse_1",
        "content": [{"text": "hello"}],
    }
    # The same session resumed on Anthropic's own API: Bedrock's signature stays behind.
    on_anthropic = anthropic_body(
        ModelRequest(model="claude-sonnet-4-5", messages=history), _anthropic_target()
    )
    sent: JSONValue = on_anthropic["messages"]
    assert "sig-abc" not in json.dumps(sent)
    assert "thinking" not in json.dumps(sent)


def _anthropic_target() -> Target:
    return Target(
        provider="anthropic",
        wire="anthropic-messages",
        base_url="http://x",
        model="m",
        auth="x-api-key",
    )


def test_anthropic_signatures_do_not_replay_on_bedrock(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    fake_aws.streams.append(text_reply("fine"))
    history = [
        Message(role="user", parts=[TextPart(text="q")]),
        Message(
            role="assistant",
            parts=[
                ReasoningPart(text="t", provider_metadata={"anthropic": {"signature": "anth-sig"}}),
                TextPart(text="a"),
            ],
        ),
        Message(role="user", parts=[TextPart(text="again")]),
    ]
    events, _ = run(monkeypatch, env_for(fake_aws), ModelRequest(model=CLAUDE, messages=history))
    assert texts(events) == "fine"
    assert b"anth-sig" not in fake_aws.requests[-1].body


@pytest.mark.parametrize(
    ("answer", "kind", "retryable"),
    [
        (
            Answer.json(
                400,
                {"message": "Input is too long for requested model."},
                **{"x-amzn-ErrorType": "ValidationException:http://x/"},
            ),
            "context_overflow",
            False,
        ),
        (
            Answer.json(
                429,
                {"message": "Too many requests, please wait."},
                **{"x-amzn-ErrorType": "ThrottlingException:http://x/"},
            ),
            "rate_limit",
            True,
        ),
        (
            Answer.json(
                403,
                {"message": "The security token included in the request is expired"},
                **{"x-amzn-ErrorType": "ExpiredTokenException:http://x/"},
            ),
            "auth",
            False,
        ),
        (
            Answer.json(
                404,
                {"__type": "com.amazon#ResourceNotFoundException", "message": "Model not found"},
            ),
            "invalid_request",
            False,
        ),
    ],
    ids=["too-long", "throttled", "expired", "not-found"],
)
def test_http_errors_map_onto_the_taxonomy(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws, answer: Answer, kind: str, retryable: bool
) -> None:
    fake_aws.streams.extend([answer] * 4)
    events, _ = run(monkeypatch, env_for(fake_aws), ask())
    error = error_of(events)
    assert (error.kind, error.retryable) == (kind, retryable)


def test_in_stream_throttling_is_retried_then_succeeds(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    fake_aws.streams.append(
        [
            event("messageStart", {"role": "assistant"}),
            exception("throttlingException", "slow down"),
        ]
    )
    fake_aws.streams.append(text_reply("second try"))
    events, _ = run(monkeypatch, env_for(fake_aws), ask())
    assert texts(events) == "second try"
    assert not any(isinstance(e, ErrorEvent) for e in events)


def test_a_corrupted_frame_ends_the_stream_with_a_server_error(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    frames = text_reply("abcdef")
    damaged = bytearray(frames[1])
    damaged[-6] ^= 0xFF
    fake_aws.streams.extend([[frames[0], bytes(damaged), *frames[2:]]] * 4)
    events, _ = run(monkeypatch, env_for(fake_aws), ask())
    error = error_of(events)
    assert error.kind == "server"
    assert "CRC" in error.message
