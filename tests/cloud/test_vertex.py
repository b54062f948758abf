"""Google Vertex AI end to end: Gemini (streamGenerateContent) and Claude (streamRawPredict)
against a loopback fake that only accepts tokens it issued for a verified service-account
JWT; google-genai and the Anthropic SDK's Vertex client run against the same fake."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from anthropic import AnthropicVertex
from google import genai
from google.genai import types as genai_types
from google.oauth2 import service_account

from earshot.providers.cloud import google as adc
from earshot.providers.errors import ProviderError
from earshot.providers.http import new_client
from earshot.providers.registry import get_provider, resolve_target
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect
from earshot.providers.types import Message, ModelRequest, StreamEvent, TextPart
from tests.fake_cloud.google import FakeGoogle
from tests.fake_provider import anthropic as fake_anthropic
from tests.fake_provider import gemini as fake_gemini
from tests.wire.cases import model_info
from tests.wire.streams import error_of, finish_of, texts

FAST = RetryPolicy(base_delay=0.01)


@pytest.fixture
def vertex_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle) -> Path:
    key_file = fake_google.service_account_file(tmp_path / "sa.json", project="my-proj")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", fake_google.base_url)
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-east5")
    return key_file


def run(model: str, text: str = "hi") -> list[StreamEvent]:
    spec = get_provider("google-vertex")
    tgt = resolve_target(spec, model, info=model_info("google-vertex"))
    request = ModelRequest(
        model=model, messages=[Message(role="user", parts=[TextPart(text=text)])]
    )

    async def go() -> list[StreamEvent]:
        return await collect(request, tgt, retry=FAST)

    return anyio.run(go)


def test_gemini_on_vertex_with_a_service_account(vertex_env: Path, fake_google: FakeGoogle) -> None:
    fake_google.replies.append(fake_gemini.text_turn("Hello from Vertex."))
    events = run("gemini-2.5-pro")
    assert texts(events) == "Hello from Vertex."
    assert finish_of(events).reason == "stop"
    (call,) = fake_google.calls
    assert (call.project, call.location, call.publisher, call.model, call.method) == (
        "my-proj",
        "us-east5",
        "google",
        "gemini-2.5-pro",
        "streamGenerateContent",
    )
    assert call.request.query == {"alt": "sse"}
    assert "contents" in call.request.json()


def test_token_is_reused_across_calls(vertex_env: Path, fake_google: FakeGoogle) -> None:
    fake_google.replies += [fake_gemini.text_turn("one"), fake_gemini.text_turn("two")]
    assert texts(run("gemini-2.5-pro")) == "one"
    assert texts(run("gemini-2.5-pro")) == "two"
    assert fake_google.token_requests == 1


def test_claude_on_vertex_uses_raw_predict_with_vertex_body(
    vertex_env: Path, fake_google: FakeGoogle
) -> None:
    fake_google.replies.append(fake_anthropic.text_turn("Claude via Vertex."))
    events = run("claude-sonnet-4-5@20250929")
    assert texts(events) == "Claude via Vertex."
    (call,) = fake_google.calls
    assert (call.publisher, call.model, call.method) == (
        "anthropic",
        "claude-sonnet-4-5@20250929",
        "streamRawPredict",
    )
    body = call.request.json()
    assert body["anthropic_version"] == "vertex-2023-10-16"
    assert "model" not in body
    assert body["stream"] is True


def test_default_version_suffix_is_dropped_from_the_url(
    vertex_env: Path, fake_google: FakeGoogle
) -> None:
    fake_google.replies.append(fake_anthropic.text_turn("ok"))
    run("claude-opus-4-6@default")
    assert fake_google.calls[0].model == "claude-opus-4-6"


def test_unauthenticated_answer_is_an_auth_error(vertex_env: Path, fake_google: FakeGoogle) -> None:
    fake_google.issued.clear()
    adc.clear_cache()
    # A token the fake did not issue (it forgot them all): the service answers 401.
    fake_google.replies.append(fake_gemini.text_turn("never"))
    original = fake_google._issue

    def forgetful() -> object:
        answer = original()
        fake_google.issued.clear()
        return answer

    fake_google._issue = forgetful  # type: ignore[method-assign,assignment]  # fake-only hook
    error = error_of(run("gemini-2.5-pro"))
    assert error.kind == "auth"


def test_missing_project_says_how_to_set_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    key_file = fake_google.service_account_file(tmp_path / "sa.json", project="")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    with pytest.raises(ProviderError, match="GOOGLE_CLOUD_PROJECT"):
        resolve_target(get_provider("google-vertex"), "gemini-2.5-pro", info=None)


def test_only_the_metadata_server_names_the_project(
    monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    monkeypatch.setenv("GCE_METADATA_HOST", fake_google.server.host)
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", fake_google.base_url)
    fake_google.replies += [fake_gemini.text_turn("one"), fake_gemini.text_turn("two")]
    assert texts(run("gemini-2.5-pro")) == "one"
    assert texts(run("gemini-2.5-pro")) == "two"
    assert [c.project for c in fake_google.calls] == ["meta-project", "meta-project"]
    assert fake_google.project_requests == 1, "the metadata server's answer is cached"


def test_a_metadata_server_that_names_no_project_says_how_to_set_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    error = error_of(run("gemini-2.5-pro"))
    assert error.kind == "auth"
    assert "GOOGLE_CLOUD_PROJECT" in error.message


def test_google_genai_streams_from_the_fake(vertex_env: Path, fake_google: FakeGoogle) -> None:
    # A real thoughtSignature is base64 bytes (google-genai checks it).
    fake_google.replies.append(
        fake_gemini.text_turn("genai hello", thought_signature="CiQBZmFrZQ==")
    )
    creds = service_account.Credentials.from_service_account_file(
        str(vertex_env), scopes=[adc.SCOPE]
    )
    client = genai.Client(
        vertexai=True,
        project="my-proj",
        location="us-east5",
        credentials=creds,
        http_options=genai_types.HttpOptions(base_url=fake_google.base_url),
    )
    text = "".join(
        chunk.text or ""
        for chunk in client.models.generate_content_stream(model="gemini-2.5-pro", contents="hi")
    )
    client.close()
    assert text == "genai hello"
    assert fake_google.calls[-1].method == "streamGenerateContent"


def test_anthropic_vertex_client_streams_from_the_fake(
    vertex_env: Path, fake_google: FakeGoogle
) -> None:
    async def fetch() -> str:
        async with new_client(tls=False) as http:
            secret, _ = await adc.access_token(client=http)
        return secret.reveal()

    token = anyio.run(fetch)
    fake_google.replies.append(fake_anthropic.text_turn("sdk hello"))
    client = AnthropicVertex(
        region="us-east5",
        project_id="my-proj",
        access_token=token,
        base_url=fake_google.base_url + "/v1",
    )
    with client.messages.stream(
        model="claude-sonnet-4-5@20250929",
        max_tokens=100,
        messages=[{"role": "user", "content": "hi"}],
    ) as answer:
        text = "".join(answer.text_stream)
    client.close()
    assert text == "sdk hello"
    assert fake_google.calls[-1].method == "streamRawPredict"
