"""The AWS chain's steps that need I/O, but no STS: ``credential_process``, SSO role
credentials, the container endpoint and instance metadata (IMDSv2). ``aws.resolve`` calls
``fetch`` only when its cache holds nothing fresh for the step; ``_aws_sts`` calls it for a
role's source credentials."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx

from earshot._base.json import JSONObject
from earshot._base.jsonfile import write_json_atomic
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
_SSO_REFRESH_WINDOW = timedelta(minutes=15)


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
    access = await _sso_token(profile, env, client)
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


async def _sso_token(
    profile: Profile, env: Mapping[str, str], client: httpx.AsyncClient | None
) -> str:
    """The SSO access token from the cache ``aws sso login`` writes. One that expires
    within ``_SSO_REFRESH_WINDOW`` is refreshed first when the cache holds a client
    registration and a refresh token (an ``sso-session`` login), and the new token is
    written back to the cache file (atomically, keeping its other fields and its mode), as
    the AWS tools do; a refresh that is refused leaves a still-valid token in use."""
    path = sso_cache_file(env, profile.config)
    token = load_json(path, "the SSO token cache")
    now = datetime.now(UTC)
    expires = parse_time(token.get("expiresAt"))
    access = token.get("accessToken")
    valid = isinstance(access, str) and expires is not None and expires > now
    refused = ""
    if not valid or (expires is not None and expires - now < _SSO_REFRESH_WINDOW):
        refreshed, refused = await _refresh_sso(profile, env, token, now, client)
        if refreshed is not None:
            _save_sso(path, refreshed)
            return str(refreshed["accessToken"])
    if valid and isinstance(access, str):
        return access
    why = f" ({refused})" if refused else ""
    raise auth_error(
        f"the SSO session of profile {profile.name} has expired{why}: run `aws sso login`"
    )


async def _refresh_sso(
    profile: Profile,
    env: Mapping[str, str],
    token: JSONObject,
    now: datetime,
    client: httpx.AsyncClient | None,
) -> tuple[JSONObject | None, str]:
    """SSO OIDC ``CreateToken`` with the refresh-token grant (unsigned JSON ``POST /token``):
    the updated cache entry, or ``None`` and why not."""
    fields = {k: token.get(k) for k in ("clientId", "clientSecret", "refreshToken")}
    if not all(isinstance(v, str) and v for v in fields.values()):
        return None, ""  # a legacy login: nothing to refresh with
    try:
        registered_until = parse_time(token.get("registrationExpiresAt"))
    except ValueError:
        registered_until = None
    if registered_until is not None and registered_until <= now:
        return None, "its client registration expired"
    region = profile.sso_session.get("sso_region") or str(token.get("region") or "")
    base = env.get("AWS_ENDPOINT_URL_SSO_OIDC", "").strip().rstrip("/")
    url = (base or f"https://oidc.{region}.amazonaws.com") + "/token"
    http = client or shared_client(tls=url.startswith("https"))
    body = {"grantType": "refresh_token", **{k: str(v) for k, v in fields.items()}}
    try:
        response = await http.post(url, json=body, timeout=_METADATA_TIMEOUT)
    except httpx.HTTPError as exc:
        return None, f"the refresh failed ({type(exc).__name__})"
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    if not isinstance(answer, dict):
        answer = {}
    if response.status_code != 200:
        reason = answer.get("error") or f"HTTP {response.status_code}"
        return None, f"the refresh was refused: {str(reason)[:80]}"
    access, lifetime = answer.get("accessToken"), answer.get("expiresIn")
    if not isinstance(access, str) or not access or not isinstance(lifetime, int):
        return None, "the refresh answered without a token"
    expires = (now + timedelta(seconds=lifetime)).strftime("%Y-%m-%dT%H:%M:%SZ")
    updated: JSONObject = {**token, "accessToken": access, "expiresAt": expires}
    rotated = answer.get("refreshToken")
    if isinstance(rotated, str) and rotated:
        updated["refreshToken"] = rotated
    return updated, ""


def _save_sso(path: Path, token: JSONObject) -> None:
    try:
        mode = path.stat().st_mode & 0o777
        write_json_atomic(path, token, mode=mode)
    except OSError:
        pass  # the token works for this process; the next one refreshes again


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
