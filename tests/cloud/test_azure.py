"""Azure OpenAI end to end: a deployment over chat completions and over the v1 Responses
API, with an api-key or an Entra ID token, against a loopback fake that openai's own
AzureOpenAI and OpenAI clients also run against."""

from __future__ import annotations

import anyio
import openai
import pytest

from earshot.core.config.settings import Settings
from earshot.core.config.targets import load_catalog, target_for
from earshot.providers.registry import ProviderSettings
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import collect
from earshot.providers.target import Target
from earshot.providers.types import JSONObject, Message, ModelRequest, StreamEvent, TextPart
from tests.fake_cloud.azure import API_KEY, ENTRA_TOKEN, FakeAzure
from tests.fake_provider import openai_chat as fake_chat
from tests.fake_provider import openai_responses as fake_responses
from tests.wire.streams import error_of, texts

FAST = RetryPolicy(base_delay=0.01)


def settings_with(**fields: object) -> Settings:
    settings = Settings()
    settings.providers["azure"] = ProviderSettings(**fields)  # type: ignore[arg-type]  # test helper
    return settings


def target(deployment: str, settings: Settings | None = None) -> Target:
    chosen = settings or Settings()
    return target_for(f"azure/{deployment}", settings=chosen, catalog=load_catalog(chosen))


def run(tgt: Target) -> list[StreamEvent]:
    request = ModelRequest(
        model=tgt.model, messages=[Message(role="user", parts=[TextPart(text="hi")])]
    )

    async def go() -> list[StreamEvent]:
        return await collect(request, tgt, retry=FAST)

    return anyio.run(go)


@pytest.fixture
def azure_env(monkeypatch: pytest.MonkeyPatch, fake_azure: FakeAzure) -> FakeAzure:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", fake_azure.base_url + "/")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", API_KEY)
    return fake_azure


def test_chat_deployment_with_api_key(azure_env: FakeAzure) -> None:
    azure_env.replies.append(fake_chat.text_turn("Hello from Azure."))
    tgt = target("my-4o", settings_with(deployments={"my-4o": "gpt-4o"}))
    assert tgt.info is not None and tgt.info.id == "gpt-4o", "prices and limits from the map"
    events = run(tgt)
    assert texts(events) == "Hello from Azure."
    sent = azure_env.requests[-1]
    assert sent.path == "/openai/deployments/my-4o/chat/completions"
    assert sent.query == {"api-version": "2024-10-21"}
    assert sent.headers["api-key"] == API_KEY
    assert "authorization" not in sent.headers


def test_api_version_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, azure_env: FakeAzure
) -> None:
    monkeypatch.setenv("OPENAI_API_VERSION", "2025-04-01-preview")
    azure_env.replies.append(fake_chat.text_turn("ok"))
    run(target("my-4o"))
    assert azure_env.requests[-1].query == {"api-version": "2025-04-01-preview"}


def test_reasoning_deployment_uses_the_v1_responses_api(azure_env: FakeAzure) -> None:
    azure_env.replies.append(fake_responses.text_turn("Responses via Azure."))
    tgt = target("my-gpt", settings_with(deployments={"my-gpt": "gpt-5.1"}))
    events = run(tgt)
    assert texts(events) == "Responses via Azure."
    sent = azure_env.requests[-1]
    assert sent.path == "/openai/v1/responses"
    assert sent.json()["model"] == "my-gpt"


@pytest.mark.parametrize("fields", [{"wire": "openai-chat"}, {"shape": "completions"}])
def test_wire_setting_picks_the_deployments_api(azure_env: FakeAzure, fields: JSONObject) -> None:
    settings = settings_with(deployments={"my-gpt": "gpt-5.1"})
    settings.models["azure"] = {"my-gpt": fields}
    azure_env.replies.append(fake_chat.text_turn("chat after all"))
    tgt = target("my-gpt", settings)
    assert tgt.wire == "azure-openai"
    assert texts(run(tgt)) == "chat after all"
    assert azure_env.requests[-1].path.endswith("/chat/completions")


def test_entra_token_without_a_key(monkeypatch: pytest.MonkeyPatch, azure_env: FakeAzure) -> None:
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", ENTRA_TOKEN)
    azure_env.replies.append(fake_chat.text_turn("token ok"))
    assert texts(run(target("my-4o"))) == "token ok"
    assert azure_env.requests[-1].headers["authorization"] == f"Bearer {ENTRA_TOKEN}"


def test_resource_name_in_settings_becomes_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", API_KEY)
    tgt = target("my-4o", settings_with(base_url="contoso"))
    assert tgt.base_url == "https://contoso.openai.azure.com"


def test_unknown_deployment_and_bad_key_map_onto_the_taxonomy(
    monkeypatch: pytest.MonkeyPatch, azure_env: FakeAzure
) -> None:
    assert error_of(run(target("nope"))).kind == "invalid_request"
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "wrong")
    error = error_of(run(target("my-4o")))
    assert error.kind == "auth"
    assert "wrong" not in error.message


def test_no_endpoint_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", API_KEY)
    with pytest.raises(Exception, match="AZURE_OPENAI_ENDPOINT"):
        target("my-4o")


def test_openai_azure_client_streams_chat_from_the_fake(azure_env: FakeAzure) -> None:
    azure_env.replies.append(fake_chat.text_turn("sdk chat"))
    client = openai.AzureOpenAI(
        azure_endpoint=azure_env.base_url, api_key=API_KEY, api_version="2024-10-21"
    )
    chunks = client.chat.completions.create(
        model="my-4o", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    client.close()
    assert text == "sdk chat"


def test_openai_client_streams_v1_responses_from_the_fake(azure_env: FakeAzure) -> None:
    azure_env.replies.append(fake_responses.text_turn("sdk responses"))
    client = openai.OpenAI(base_url=azure_env.base_url + "/openai/v1/", api_key=API_KEY)
    events = client.responses.create(model="my-gpt", input="hi", stream=True)
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    client.close()
    assert text == "sdk responses"


def test_a_refused_entra_token_is_not_reported_as_a_missing_key(
    monkeypatch: pytest.MonkeyPatch, azure_env: FakeAzure
) -> None:
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "revoked-token")
    error = error_of(run(target("my-4o")))
    assert error.kind == "auth"
    assert "sent none" not in error.message
    assert "revoked-token" not in error.message
