"""The AWS chain's steps that need I/O, but no STS: ``credential_process``, SSO role
credentials, the container endpoint and instance metadata (IMDSv2). ``aws.resolve`` calls
``fetch`` only when its cache holds nothing fresh for the step; ``_aws_sts`` calls it for a
role's source credentials."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from datetime import UTC, datetime

import anyio
import httpx

from earshot.providers.cloud._aws_profile import (
    AwsSource,
    Profile,
    auth_error,
    credentials_from_json,
    load_json,
    parse_time,
    sso_cache_file,
)
from earshot.providers.cloud.sigv4 import AwsCredentials
from earshot.providers.http import shared_client

_METADATA_TIMEOUT = httpx.Timeout(2.0, read=5.0)
_CONTAINER_HOST = "http://169.254.170.2"
_IMDS = "http://169.254.169.254"
_UPPER = ("AccessKeyId", "SecretAccessKey", "Token", "Expiration")


async def fetch(
    source: AwsSource,
    profile: Profile,
    env: Mapping[str, str],
    client: httpx.AsyncClient | None,
) -> AwsCredentials:
    match source.kind:
        case "process":
            return await _process(profile)
        case "sso":
            return await _sso(profile, env, client)
        case "container":
            return await _container(env, client)
        case "imds":
            return await _imds(env, client)
    raise auth_error(f"no fetcher for credential source {source.kind!r}")


async def _process(profile: Profile) -> AwsCredentials:
    command = profile.config["credential_process"]
    what = f"credential_process of profile {profile.name}"
    try:
        done = await anyio.run_process(shlex.split(command), check=False)
    except OSError as exc:
        raise auth_error(f"{what} could not start: {exc}") from exc
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise auth_error(f"{what} exited with status {done.returncode}: {tail[0][:200]}")
    try:
        data = json.loads(done.stdout)
    except ValueError as exc:
        raise auth_error(f"{what} printed no JSON object") from exc
    if not isinstance(data, dict) or data.get("Version") != 1:
        raise auth_error(f"{what} must print a JSON object with Version 1")
    return credentials_from_json(
        data, what, keys=("AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration")
    )


async def _sso(
    profile: Profile, env: Mapping[str, str], client: httpx.AsyncClient | None
) -> AwsCredentials:
    config = profile.config
    path = sso_cache_file(env, config)
    token = load_json(path, "the SSO token cache")
    expires = parse_time(token.get("expiresAt"))
    access = token.get("accessToken")
    if not isinstance(access, str) or expires is None or expires <= datetime.now(UTC):
        raise auth_error(
            f"the SSO session of profile {profile.name} has expired: run `aws sso login`"
        )
    region = profile.sso_session.get("sso_region") or config.get("sso_region", "")
    base = env.get("AWS_ENDPOINT_URL_SSO", "").strip().rstrip("/")
    base = base or f"https://portal.sso.{region}.amazonaws.com"
    http = client or shared_client(tls=base.startswith("https"))
    try:
        response = await http.get(
            f"{base}/federation/credentials",
            params={"role_name": config["sso_role_name"], "account_id": config["sso_account_id"]},
            headers={"x-amz-sso_bearer_token": access},
            timeout=_METADATA_TIMEOUT,
        )
    except httpx.HTTPError as exc:
        raise auth_error(f"SSO credentials request failed ({type(exc).__name__})") from exc
    if response.status_code in (401, 403):
        raise auth_error(
            f"the SSO session of profile {profile.name} was refused: run `aws sso login`"
        )
    if response.status_code != 200:
        raise auth_error(f"SSO credentials request answered HTTP {response.status_code}")
    role = _json(response, "SSO").get("roleCredentials")
    return credentials_from_json(
        role,
        f"SSO (profile {profile.name})",
        keys=("accessKeyId", "secretAccessKey", "sessionToken", "expiration"),
    )


async def _container(env: Mapping[str, str], client: httpx.AsyncClient | None) -> AwsCredentials:
    relative = env.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "").strip()
    url = _CONTAINER_HOST + relative if relative else env["AWS_CONTAINER_CREDENTIALS_FULL_URI"]
    headers: dict[str, str] = {}
    token = env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN", "").strip()
    token_file = env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "").strip()
    if token_file:
        try:
            token = (await anyio.Path(token_file).read_text(encoding="utf-8")).strip()
        except OSError as exc:
            raise auth_error(f"cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: {exc}") from exc
    if token:
        headers["authorization"] = token
    http = client or shared_client(tls=url.startswith("https"))
    try:
        response = await http.get(url, headers=headers, timeout=_METADATA_TIMEOUT)
    except httpx.HTTPError as exc:
        raise auth_error(
            f"container credentials endpoint unreachable ({type(exc).__name__})"
        ) from exc
    if response.status_code != 200:
        raise auth_error(f"container credentials endpoint answered HTTP {response.status_code}")
    return credentials_from_json(_json(response, "container"), "container credentials", keys=_UPPER)


async def _imds(env: Mapping[str, str], client: httpx.AsyncClient | None) -> AwsCredentials:
    base = env.get("AWS_EC2_METADATA_SERVICE_ENDPOINT", "").strip().rstrip("/") or _IMDS
    http = client or shared_client(tls=base.startswith("https"))
    try:
        got = await http.put(
            f"{base}/latest/api/token",
            headers={"x-aws-ec2-metadata-token-ttl-seconds": "21600"},
            timeout=_METADATA_TIMEOUT,
        )
        if got.status_code != 200:
            raise auth_error(f"instance metadata token request answered HTTP {got.status_code}")
        headers = {"x-aws-ec2-metadata-token": got.text.strip()}
        roles_url = f"{base}/latest/meta-data/iam/security-credentials/"
        roles = await http.get(roles_url, headers=headers, timeout=_METADATA_TIMEOUT)
        role = roles.text.strip().splitlines()[0] if roles.status_code == 200 else ""
        if not role:
            raise auth_error("this instance has no IAM role (instance metadata)")
        creds = await http.get(roles_url + role, headers=headers, timeout=_METADATA_TIMEOUT)
    except httpx.HTTPError as exc:
        raise auth_error(
            "no AWS credentials found (environment, profile, container or instance metadata)"
        ) from exc
    if creds.status_code != 200:
        raise auth_error(f"instance metadata credentials answered HTTP {creds.status_code}")
    return credentials_from_json(
        _json(creds, "instance metadata"), "instance metadata", keys=_UPPER
    )


def _json(response: httpx.Response, what: str) -> dict[str, object]:
    try:
        value = response.json()
    except ValueError as exc:
        raise auth_error(f"{what} credentials answer is not JSON") from exc
    if not isinstance(value, dict):
        raise auth_error(f"{what} credentials answer is not a JSON object")
    return value
