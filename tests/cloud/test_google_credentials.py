"""Google application default credentials: service-account JWTs the token endpoint accepts
(verified with google-auth), gcloud user credentials, the metadata server, the token cache,
and project and location resolution. google-auth itself gets tokens from the same fake."""

from __future__ import annotations

from pathlib import Path

import anyio
import google.auth.compute_engine
import google.auth.compute_engine._metadata
import google.auth.transport.requests
import google.oauth2.credentials
import httpx
import pytest
from google.oauth2 import service_account

from earshot.providers.cloud import google as adc
from earshot.providers.errors import ProviderError
from tests.fake_cloud.google import USER_CLIENT, FakeGoogle


def _token() -> tuple[str, adc.GoogleSource]:
    async def run() -> tuple[str, adc.GoogleSource]:
        async with httpx.AsyncClient() as client:
            secret, source = await adc.access_token(client=client)
        return secret.reveal(), source

    return anyio.run(run)


def _project() -> str:
    async def run() -> str:
        async with httpx.AsyncClient() as client:
            return await adc.project_for(client=client)

    return anyio.run(run)


def test_service_account_jwt_is_accepted_and_token_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    key_file = fake_google.service_account_file(tmp_path / "sa.json")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    token, source = _token()
    assert token in fake_google.issued
    assert source.kind == "service_account"
    assert _token()[0] == token
    assert fake_google.token_requests == 1, "a fresh token is reused"
    assert _project() == "sa-project"


def test_google_auth_gets_a_token_from_the_same_fake(
    tmp_path: Path, fake_google: FakeGoogle
) -> None:
    key_file = fake_google.service_account_file(tmp_path / "sa.json")
    creds = service_account.Credentials.from_service_account_file(str(key_file), scopes=[adc.SCOPE])
    creds.refresh(google.auth.transport.requests.Request())
    assert creds.token in fake_google.issued


def test_token_near_expiry_is_refreshed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    fake_google.lifetime = 120  # inside the five-minute refresh margin
    monkeypatch.setenv(
        "GOOGLE_APPLICATION_CREDENTIALS",
        str(fake_google.service_account_file(tmp_path / "sa.json")),
    )
    first, _ = _token()
    second, _ = _token()
    assert first != second
    assert fake_google.token_requests == 2


def test_gcloud_user_credentials_with_quota_project(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    fake_google.user_file(hermetic_env / ".config/gcloud/application_default_credentials.json")
    token, source = _token()
    assert token in fake_google.issued
    assert source.kind == "authorized_user"
    assert _project() == "user-project"
    creds = google.oauth2.credentials.Credentials(
        None, token_uri=fake_google.token_uri, **USER_CLIENT
    )
    creds.refresh(google.auth.transport.requests.Request())
    assert creds.token in fake_google.issued


def test_project_from_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    monkeypatch.setenv(
        "GOOGLE_APPLICATION_CREDENTIALS",
        str(fake_google.service_account_file(tmp_path / "sa.json")),
    )
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "env-project")
    assert _project() == "env-project"


def test_metadata_server_token_and_project(
    monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    monkeypatch.setenv("GCE_METADATA_HOST", fake_google.server.host)
    token, source = _token()
    assert source.kind == "metadata"
    assert token in fake_google.issued
    assert _project() == "meta-project"
    # google-auth reads GCE_METADATA_HOST once, at import: hand it the fake's host too.
    monkeypatch.setattr(
        google.auth.compute_engine._metadata, "_GCE_METADATA_HOST", fake_google.server.host
    )
    creds = google.auth.compute_engine.Credentials()
    creds.refresh(google.auth.transport.requests.Request())
    assert creds.token in fake_google.issued


def test_no_credentials_says_what_to_do() -> None:
    with pytest.raises(ProviderError, match="GOOGLE_APPLICATION_CREDENTIALS") as caught:
        _token()
    assert caught.value.kind == "auth"


def test_unsupported_credentials_type_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ext.json"
    path.write_text('{"type": "external_account"}')
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    with pytest.raises(ProviderError, match=r"ext\.json.*external_account"):
        _token()


def test_refused_grant_is_an_auth_error_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    path = fake_google.user_file(tmp_path / "user.json")
    path.write_text(path.read_text().replace("fake-refresh", "revoked-refresh"))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    with pytest.raises(ProviderError, match="HTTP 400") as caught:
        _token()
    assert "revoked-refresh" not in str(caught.value)


@pytest.mark.parametrize(
    ("model", "location"),
    [
        ("gemini-2.5-pro", "global"),
        ("gemini-1.5-flash-002", "us-central1"),
        ("claude-sonnet-4-5@20250929", "global"),
        ("claude-3-5-haiku@20241022", "us-central1"),
    ],
)
def test_default_location_per_model(model: str, location: str) -> None:
    assert adc.location_for({}, model) == location
    assert adc.location_for({"GOOGLE_CLOUD_LOCATION": "europe-west4"}, model) == "europe-west4"
