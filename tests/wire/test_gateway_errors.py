"""Error answers from gateways and local servers read the same on every wire: the body's
message behind the provider's name, never the raw body; and a server that wants a key
earshot did not send says which variable to set, at once, without retries."""

from __future__ import annotations

import anyio
import pytest

from earshot.providers.retry import NO_RETRY, RetryPolicy
from earshot.providers.stream import collect
from earshot.providers.target import Secret, Target, WireName
from earshot.providers.types import ErrorEvent, JSONValue, Message, ModelRequest, TextPart
from earshot.providers.wire import implemented_wires
from tests.fake_provider import FakeProvider, Frame, RawReply, SSEReply, openai_chat
from tests.wire.streams import error_of

WIRES: list[WireName] = ["openai-chat", "openai-responses", "anthropic-messages", "google-gemini"]
RETRY = RetryPolicy(base_delay=0.01)
KEY = "sk-gateway-0123456789abcdefghij"


# The cloud wires are reached only through their cloud provider, never through a gateway;
# their error answers are tested in tests/cloud.
CLOUD_WIRES = {"amazon-bedrock", "google-vertex", "azure-openai"}


def test_every_implemented_wire_is_covered() -> None:
    assert sorted(WIRES) == sorted(set(implemented_wires()) - CLOUD_WIRES)


def call(
    fake: FakeProvider,
    wire: WireName,
    *replies: RawReply,
    provider: str = "openai-compatible",
    key: str | None = None,
    headers: dict[str, str] | None = None,
) -> ErrorEvent:
    fake.script(*replies)
    target = Target(
        provider=provider,
        wire=wire,
        base_url=fake.base_url,
        model="gw-gpt",
        auth="bearer",
        api_key=Secret(key) if key else None,
        headers=headers or {},
    )
    request = ModelRequest(
        model="gw-gpt", messages=[Message(role="user", parts=[TextPart(text="hi")])]
    )

    async def go() -> ErrorEvent:
        return error_of(await collect(request, target, retry=RETRY))

    return anyio.run(go)


# The body LiteLLM's proxy answers with: OpenAI's shape, ``code`` a string, extra fields.
LITELLM_400: JSONValue = {
    "error": {
        "message": "litellm.BadRequestError: Invalid model name passed in model=gw-gpt",
        "type": "invalid_request_error",
        "param": None,
        "code": "400",
        "provider_specific_fields": {"trace": [1, 2]},
    }
}


@pytest.mark.parametrize("wire", WIRES)
def test_a_gateway_error_body_reads_as_provider_and_message(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    error = call(fake_provider, wire, RawReply.json(400, LITELLM_400), key=KEY)
    assert error.kind == "invalid_request"
    assert not error.retryable
    assert error.message.startswith(
        "openai-compatible: litellm.BadRequestError: Invalid model name passed in model=gw-gpt"
    )
    assert "{" not in error.message
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("code", [429, "429", "rate_limit_exceeded"])
def test_a_rate_limit_with_any_code_is_retried_then_reported(
    fake_provider: FakeProvider, wire: WireName, code: JSONValue
) -> None:
    body = RawReply.json(429, {"error": {"message": "Too many requests", "code": code}})
    error = call(fake_provider, wire, body, body, body, key=KEY)
    assert (error.kind, error.status) == ("rate_limit", 429)
    assert error.message.startswith("openai-compatible: Too many requests")
    assert len(fake_provider.requests) == 3


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": "model 'qwen3:8b' not found, try pulling it first"}, "model 'qwen3:8b' not"),
        ({"object": "error", "message": "The model `x` does not exist.", "code": 404}, "The model"),
        ({"detail": [{"loc": ["body", "model"], "msg": "field required"}]}, "field required"),
        (
            [{"error": {"code": 404, "message": "models/x is not found", "status": "NOT_FOUND"}}],
            "models/x is not found",
        ),
        (
            {
                "error": {
                    "message": 'OpenAIException - {"error":{"message":"Unknown model gw",'
                    '"type":"invalid_request_error","code":null}}',
                    "code": "404",
                }
            },
            "OpenAIException: Unknown model gw",
        ),
    ],
    ids=["ollama", "vllm", "fastapi", "gemini-list", "wrapped-upstream"],
)
def test_every_server_shape_gives_its_message(
    fake_provider: FakeProvider, wire: WireName, body: JSONValue, message: str
) -> None:
    error = call(fake_provider, wire, RawReply.json(404, body), key=KEY)
    assert error.kind == "invalid_request"
    assert error.message.startswith(f"openai-compatible: {message}")
    assert "{" not in error.message


@pytest.mark.parametrize("wire", WIRES)
def test_a_body_that_is_not_json_is_quoted_as_short_text(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    page = b"<html><body><h1>502 Bad Gateway</h1>" + b"<p>nginx</p>" * 200 + b"</body></html>"
    reply = RawReply(502, page, content_type="text/html")
    error = call(fake_provider, wire, reply, reply, reply, key=KEY)
    assert error.kind == "server"
    assert error.message.startswith("openai-compatible: 502 Bad Gateway nginx")
    assert "<" not in error.message
    assert len(error.message) < 260


@pytest.mark.parametrize("wire", WIRES)
def test_a_json_body_of_no_known_shape_is_named_not_dumped(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    error = call(fake_provider, wire, RawReply.json(400, {"oops": ["x" * 600]}), key=KEY)
    assert error.message.startswith(
        "openai-compatible: HTTP 400 with an error body earshot cannot read:"
    )
    assert len(error.message) < 300


# --- no key sent ---------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_401_without_a_key_names_the_variable_to_set(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    body: JSONValue = {
        "error": {
            "message": "Authentication Error, No api key passed in.",
            "type": "auth_error",
            "param": "None",
            "code": "401",
        }
    }
    error = call(fake_provider, wire, RawReply.json(401, body))
    assert (error.kind, error.retryable, error.status) == ("auth", False, 401)
    assert "OPENAI_COMPATIBLE_API_KEY" in error.message
    assert "earshot auth login openai-compatible" in error.message
    assert "No api key passed in" in error.message
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("status", [400, 500])
def test_a_gateway_no_key_answer_is_not_retried_as_a_server_error(
    fake_provider: FakeProvider, wire: WireName, status: int
) -> None:
    body = RawReply.json(status, {"error": {"message": "API key is missing", "code": status}})
    error = call(fake_provider, wire, body, body, body, provider="ollama")
    assert (error.kind, error.retryable) == ("auth", False)
    assert "set OLLAMA_API_KEY" in error.message
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("wire", WIRES)
def test_a_bare_500_to_a_keyless_request_says_no_key_was_sent_and_is_not_retried(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    bare = RawReply(500, b"Internal Server Error", content_type="text/plain")
    error = call(fake_provider, wire, bare, bare, bare)
    assert (error.kind, error.retryable, error.status) == ("server", False, 500)
    assert error.message.startswith("openai-compatible: HTTP 500: Internal Server Error;")
    assert "earshot sent no API key" in error.message
    assert "set OPENAI_COMPATIBLE_API_KEY" in error.message
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("wire", WIRES)
def test_a_bare_500_with_a_key_is_retried_as_before(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    bare = RawReply(500, b"Internal Server Error", content_type="text/plain")
    error = call(fake_provider, wire, bare, bare, bare, key=KEY)
    assert (error.kind, error.retryable) == ("server", True)
    assert error.message == "openai-compatible: Internal Server Error"
    assert len(fake_provider.requests) == 3


@pytest.mark.parametrize("wire", WIRES)
def test_a_message_in_paragraphs_is_shown_on_one_line(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    text = "litellm.BadRequestError: bad temperature\n\nLiteLLM: model group 'gw' failed."
    body = RawReply.json(400, {"error": {"message": text, "code": "400"}})
    error = call(fake_provider, wire, body, key=KEY)
    assert error.message.startswith(
        "openai-compatible: litellm.BadRequestError: bad temperature LiteLLM: model group"
    )


@pytest.mark.parametrize("wire", WIRES)
def test_an_ordinary_500_without_a_key_is_still_a_retried_server_error(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    body = RawReply.json(500, {"error": {"message": "Internal Server Error", "code": "500"}})
    error = call(fake_provider, wire, body, body, body)
    assert (error.kind, error.retryable) == ("server", True)
    assert "API_KEY" not in error.message
    assert len(fake_provider.requests) == 3


@pytest.mark.parametrize("wire", WIRES)
def test_a_refused_key_is_an_auth_error_without_the_hint_and_never_shown(
    fake_provider: FakeProvider, wire: WireName
) -> None:
    body: JSONValue = {"error": {"message": f"Incorrect API key provided: {KEY}", "code": "401"}}
    error = call(fake_provider, wire, RawReply.json(401, body), key=KEY)
    assert error.kind == "auth"
    assert "OPENAI_COMPATIBLE_API_KEY" not in error.message
    assert KEY not in error.message
    assert fake_provider.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_credential_header_from_settings_counts_as_a_key_sent(
    fake_provider: FakeProvider,
) -> None:
    body = RawReply.json(401, {"error": {"message": "key revoked", "code": 401}})
    error = call(
        fake_provider, "openai-chat", body, headers={"Authorization": "Bearer team-token-1"}
    )
    assert error.kind == "auth"
    assert "OPENAI_COMPATIBLE_API_KEY" not in error.message
    assert error.message.startswith("openai-compatible: key revoked")


# --- errors inside a 200 chat stream (gateways pass upstream failures on this way) ----------


def stream_call(fake: FakeProvider, reply: SSEReply) -> ErrorEvent:
    fake.script(reply)
    target = Target(
        provider="openai-compatible",
        wire="openai-chat",
        base_url=fake.base_url,
        model="gw-gpt",
        auth="bearer",
        api_key=Secret(KEY),
    )
    request = ModelRequest(
        model="gw-gpt", messages=[Message(role="user", parts=[TextPart(text="hi")])]
    )

    async def go() -> ErrorEvent:
        return error_of(await collect(request, target, retry=NO_RETRY))

    return anyio.run(go)


@pytest.mark.parametrize("code", [429, "429"])
def test_an_in_stream_status_code_as_number_or_string_classifies_the_error(
    fake_provider: FakeProvider, code: str | int
) -> None:
    reply = openai_chat.in_stream_error("partial", message="Rate limited upstream", code=code)
    error = stream_call(fake_provider, reply)
    assert (error.kind, error.status) == ("rate_limit", 429)
    assert error.message == "openai-compatible: Rate limited upstream"


def test_an_in_stream_error_given_as_a_bare_string_ends_the_stream(
    fake_provider: FakeProvider,
) -> None:
    frames = [Frame.of({"error": "upstream went away"})]
    error = stream_call(fake_provider, SSEReply(frames))
    assert error.message == "openai-compatible: upstream went away"
