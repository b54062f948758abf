"""The AWS credential chain: each step found in the AWS tools' order, and, where the step
talks to a service, the same keys that boto3 gets from the same fake endpoint."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import anyio
import boto3
import botocore.credentials
import botocore.tokens
import httpx
import pytest

from earshot.providers.cloud import aws
from earshot.providers.errors import ProviderError
from tests.fake_cloud.aws import (
    ROLE_ARN,
    SSO_ACCESS_TOKEN,
    SSO_CLIENT,
    SSO_REFRESH_TOKEN,
    WEB_IDENTITY_TOKEN,
    FakeAws,
    expiry,
)


def _resolve() -> aws.AwsAuth:
    async def run() -> aws.AwsAuth:
        async with httpx.AsyncClient() as client:
            return await aws.resolve(client=client)

    return anyio.run(run)


def _boto_keys(profile: str | None = None) -> tuple[str, str, str | None]:
    creds = boto3.Session(profile_name=profile).get_credentials()
    assert creds is not None
    frozen = creds.get_frozen_credentials()
    return frozen.access_key, frozen.secret_key, frozen.token


def _keys(auth: aws.AwsAuth) -> tuple[str, str, str | None]:
    assert auth.credentials is not None
    c = auth.credentials
    return c.access_key_id, c.secret_access_key, c.session_token


def test_bedrock_api_key_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "br-key")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKID")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    auth = _resolve()
    assert auth.bearer is not None
    assert auth.bearer.reveal() == "br-key"
    assert auth.source.kind == "bearer"
    assert "br-key" not in repr(auth)


def test_environment_keys_and_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKID")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    auth = _resolve()
    assert _keys(auth) == ("AKID", "secret", "token") == _boto_keys()
    assert auth.region == "eu-central-1"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_named_profile_from_credentials_file_with_region_from_config(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        hermetic_env / ".aws/credentials",
        "[work]\naws_access_key_id = AKW\naws_secret_access_key = sw\n",
    )
    _write(hermetic_env / ".aws/config", "[profile work]\nregion = ap-south-1\n")
    monkeypatch.setenv("AWS_PROFILE", "work")
    auth = _resolve()
    assert _keys(auth) == ("AKW", "sw", None) == _boto_keys("work")
    assert auth.region == "ap-south-1"
    assert auth.source.describe == "profile work (~/.aws/credentials)"


def test_credential_process_output_is_used(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = hermetic_env / "creds.py"
    payload = {
        "Version": 1,
        "AccessKeyId": "AKP",
        "SecretAccessKey": "sp",
        "SessionToken": "tp",
        "Expiration": expiry(),
    }
    script.write_text(f"import json\nprint(json.dumps({payload!r}))\n")
    _write(
        hermetic_env / ".aws/config", f"[default]\ncredential_process = {sys.executable} {script}\n"
    )
    auth = _resolve()
    assert _keys(auth) == ("AKP", "sp", "tp") == _boto_keys()
    assert auth.source.kind == "process"


def test_failing_credential_process_is_an_auth_error(hermetic_env: Path) -> None:
    _write(
        hermetic_env / ".aws/config",
        f"[default]\ncredential_process = {sys.executable} -c 'import sys; sys.exit(3)'\n",
    )
    with pytest.raises(ProviderError, match="exited with status 3") as caught:
        _resolve()
    assert caught.value.kind == "auth"


def _sso_profile(
    home: Path, fake: FakeAws, *, expired: bool = False, refreshable: bool = False
) -> Path:
    _write(
        home / ".aws/config",
        "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\n"
        "sso_role_name = Dev\nregion = us-west-2\n"
        "[sso-session corp]\nsso_region = us-east-1\nsso_start_url = https://corp.awsapps.com/start\n",
    )
    cache = home / ".aws/sso/cache" / (hashlib.sha1(b"corp").hexdigest() + ".json")
    token: dict[str, str] = {
        "accessToken": SSO_ACCESS_TOKEN,
        "expiresAt": "2001-01-01T00:00:00Z" if expired else expiry(),
        "region": "us-east-1",
        "startUrl": "https://corp.awsapps.com/start",
    }
    if refreshable:
        token |= {
            "clientId": SSO_CLIENT[0],
            "clientSecret": SSO_CLIENT[1],
            "registrationExpiresAt": expiry(60 * 24 * 30),
            "refreshToken": SSO_REFRESH_TOKEN,
        }
    _write(cache, json.dumps(token))
    cache.chmod(0o600)
    return cache


def _boto_sso_cache(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    # botocore fixes its SSO cache directory from HOME at import time: point it at ours.
    cache_dir = str(home / ".aws/sso/cache")
    monkeypatch.setattr(botocore.credentials.SSOProvider, "_SSO_TOKEN_CACHE_DIR", cache_dir)
    monkeypatch.setattr(botocore.tokens.SSOTokenProvider, "_SSO_TOKEN_CACHE_DIR", cache_dir)


def test_sso_profile_exchanges_the_cached_token(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    _sso_profile(hermetic_env, fake_aws)
    monkeypatch.setenv("AWS_PROFILE", "dev")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO", fake_aws.base_url)
    _boto_sso_cache(monkeypatch, hermetic_env)
    auth = _resolve()
    issued = fake_aws.issued
    assert _keys(auth) == (issued.access_key_id, issued.secret_access_key, issued.session_token)
    assert _boto_keys("dev") == _keys(auth)
    assert auth.region == "us-west-2"
    sso_calls = [r for r in fake_aws.requests if r.path == "/federation/credentials"]
    assert sso_calls[0].query == {"role_name": "Dev", "account_id": "111122223333"}


def test_expired_sso_session_says_to_log_in(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    _sso_profile(hermetic_env, fake_aws, expired=True)
    monkeypatch.setenv("AWS_PROFILE", "dev")
    with pytest.raises(ProviderError, match="aws sso login"):
        _resolve()


def test_expired_sso_session_is_refreshed_and_written_back(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    cache = _sso_profile(hermetic_env, fake_aws, expired=True, refreshable=True)
    monkeypatch.setenv("AWS_PROFILE", "dev")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO", fake_aws.base_url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO_OIDC", fake_aws.base_url)
    auth = _resolve()
    assert _keys(auth)[0] == fake_aws.issued.access_key_id
    assert fake_aws.sso_refreshes == [
        {
            "grantType": "refresh_token",
            "clientId": SSO_CLIENT[0],
            "clientSecret": SSO_CLIENT[1],
            "refreshToken": SSO_REFRESH_TOKEN,
        }
    ]
    saved = json.loads(cache.read_text())
    assert saved["accessToken"] == fake_aws.sso_tokens[-1] != SSO_ACCESS_TOKEN
    assert saved["refreshToken"] == fake_aws.sso_refresh_token != SSO_REFRESH_TOKEN
    assert saved["expiresAt"] > expiry(60)  # 8 hours from now
    assert saved["startUrl"] == "https://corp.awsapps.com/start"
    assert cache.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in cache.parent.iterdir()] == [cache.name]


def test_botocore_refreshes_an_sso_session_at_the_same_fake(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    cache = _sso_profile(hermetic_env, fake_aws, expired=True, refreshable=True)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO", fake_aws.base_url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO_OIDC", fake_aws.base_url)
    _boto_sso_cache(monkeypatch, hermetic_env)
    assert _boto_keys("dev")[0] == fake_aws.issued.access_key_id
    assert len(fake_aws.sso_refreshes) == 1
    assert json.loads(cache.read_text())["accessToken"] == fake_aws.sso_tokens[-1]


def test_a_refused_sso_refresh_says_to_log_in(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    _sso_profile(hermetic_env, fake_aws, expired=True, refreshable=True)
    fake_aws.sso_refresh_token = "revoked-elsewhere"
    monkeypatch.setenv("AWS_PROFILE", "dev")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO_OIDC", fake_aws.base_url)
    with pytest.raises(ProviderError, match="aws sso login") as caught:
        _resolve()
    assert "invalid_grant" in caught.value.message
    assert SSO_CLIENT[1] not in caught.value.message


def test_container_endpoint_with_authorization_token(
    monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    fake_aws.container_token = "container-auth"
    monkeypatch.setenv(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI", fake_aws.base_url + "/container-credentials"
    )
    monkeypatch.setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "container-auth")
    auth = _resolve()
    assert _keys(auth) == _boto_keys()
    assert auth.source.kind == "container"


def test_instance_metadata_v2_and_cache(monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws) -> None:
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    monkeypatch.setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", fake_aws.base_url)
    auth = _resolve()
    assert _keys(auth) == _boto_keys()
    served = len(fake_aws.requests)
    assert _keys(_resolve()) == _keys(auth)
    assert len(fake_aws.requests) == served, "fresh temporary keys are reused, not refetched"


def test_nothing_found_names_what_to_set() -> None:
    with pytest.raises(ProviderError, match="AWS_PROFILE") as caught:
        _resolve()
    assert caught.value.kind == "auth"


def _role_profile(home: Path, fake: FakeAws, role_arn: str = ROLE_ARN) -> None:
    _write(
        home / ".aws/credentials",
        "[base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = base/secret\n",
    )
    _write(
        home / ".aws/config",
        f"[profile role]\nrole_arn = {role_arn}\nsource_profile = base\n"
        "role_session_name = earshot-test\nregion = us-west-2\n",
    )
    fake.extra_keys["AKIDBASE"] = "base/secret"


def test_role_profile_assumes_the_role_with_its_source_profile(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    _role_profile(hermetic_env, fake_aws)
    monkeypatch.setenv("AWS_PROFILE", "role")
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", fake_aws.base_url)
    auth = _resolve()
    issued = fake_aws.issued
    assert _keys(auth) == (issued.access_key_id, issued.secret_access_key, issued.session_token)
    assert auth.source.kind == "assume-role"
    assert fake_aws.assumed[0]["RoleSessionName"] == "earshot-test"
    assert _boto_keys("role") == _keys(auth)


def test_a_refused_role_is_an_auth_error(
    hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    _role_profile(hermetic_env, fake_aws, role_arn="arn:aws:iam::1:role/other")
    monkeypatch.setenv("AWS_PROFILE", "role")
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", fake_aws.base_url)
    with pytest.raises(ProviderError, match="not authorized") as caught:
        _resolve()
    assert caught.value.kind == "auth"


def test_web_identity_token_file_is_exchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    token = tmp_path / "token"
    token.write_text(WEB_IDENTITY_TOKEN)
    monkeypatch.setenv("AWS_WEB_IDENTITY_TOKEN_FILE", str(token))
    monkeypatch.setenv("AWS_ROLE_ARN", ROLE_ARN)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", fake_aws.base_url)
    auth = _resolve()
    assert auth.source.kind == "web-identity"
    assert _keys(auth) == _boto_keys()
    assert fake_aws.assumed[0]["Action"] == "AssumeRoleWithWebIdentity"
