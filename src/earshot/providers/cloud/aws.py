"""AWS credentials and region for Bedrock, in the order the AWS tools look for them.

::

    1. AWS_BEARER_TOKEN_BEDROCK                   a Bedrock API key, sent as a bearer token
    2. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY  (+ AWS_SESSION_TOKEN)
    3. the profile (AWS_PROFILE, else "default") in AWS_SHARED_CREDENTIALS_FILE
       (~/.aws/credentials), then AWS_CONFIG_FILE (~/.aws/config):
         role_arn (STS AssumeRole with the keys of source_profile, or of credential_source
         Environment | EcsContainer | Ec2InstanceMetadata)
       | AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN (STS AssumeRoleWithWebIdentity, as on EKS)
       | static keys | credential_process | SSO (the token cache the AWS CLI's
         `aws sso login` writes under ~/.aws/sso/cache, exchanged for role credentials)
    4. container credentials (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI / _FULL_URI)
    5. instance metadata (IMDSv2), unless AWS_EC2_METADATA_DISABLED=true

Region: AWS_REGION, AWS_DEFAULT_REGION, the profile's ``region``, else us-east-1.

``locate`` says which step applies without any I/O (for ``earshot providers`` and
``doctor``); ``resolve`` fetches what that step needs and caches temporary credentials in
the process until five minutes before they expire. Endpoints follow the AWS SDKs' overrides
(``AWS_ENDPOINT_URL_SSO``, ``AWS_ENDPOINT_URL_STS``, ``AWS_EC2_METADATA_SERVICE_ENDPOINT``),
which is also how tests point them at loopback. Errors are ``ProviderError("auth")``
naming the file or variable, never a secret.
"""

from __future__ import annotations

import configparser
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from earshot.providers.cloud.sigv4 import AwsCredentials
from earshot.providers.errors import ProviderError
from earshot.providers.target import Secret

if TYPE_CHECKING:
    import httpx

DEFAULT_REGION = "us-east-1"
_REFRESH_MARGIN = timedelta(minutes=5)


@dataclass(frozen=True)
class AwsSource:
    """Where the credentials come from (no secret): ``kind`` and a phrase for a person."""

    kind: str  # bearer | env | profile | process | sso | container | imds
    describe: str
    profile: str = ""


@dataclass(frozen=True)
class AwsAuth:
    region: str
    source: AwsSource
    bearer: Secret | None = None
    credentials: AwsCredentials | None = None


def auth_error(message: str) -> ProviderError:
    return ProviderError("auth", f"amazon-bedrock: {message}", retryable=False)


def _path(env: Mapping[str, str], var: str, default: str) -> Path:
    value = env.get(var, "").strip()
    return Path(value).expanduser() if value else Path(env.get("HOME", "~")).expanduser() / default


def _read_ini(path: Path) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except FileNotFoundError:
        pass
    except (OSError, configparser.Error) as exc:
        raise auth_error(f"cannot read {path}: {exc}") from exc
    return parser


@dataclass(frozen=True)
class Profile:
    name: str
    creds: dict[str, str]  # from the credentials file
    config: dict[str, str]  # from the config file
    sso_session: dict[str, str]


def profile_of(env: Mapping[str, str]) -> Profile:
    name = env.get("AWS_PROFILE", "").strip() or env.get("AWS_DEFAULT_PROFILE", "").strip()
    name = name or "default"
    creds_file = _read_ini(_path(env, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"))
    config_file = _read_ini(_path(env, "AWS_CONFIG_FILE", ".aws/config"))
    creds = dict(creds_file.items(name)) if creds_file.has_section(name) else {}
    section = name if name == "default" else f"profile {name}"
    if not config_file.has_section(section) and config_file.has_section(name):
        section = name
    config = dict(config_file.items(section)) if config_file.has_section(section) else {}
    sso: dict[str, str] = {}
    session = config.get("sso_session", "")
    if session and config_file.has_section(f"sso-session {session}"):
        sso = dict(config_file.items(f"sso-session {session}"))
    return Profile(name, creds, config, sso)


def region_for(env: Mapping[str, str], profile: Profile | None = None) -> str:
    for var in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        value = env.get(var, "").strip()
        if value:
            return value
    found = (profile or profile_of(env)).config.get("region", "").strip()
    return found or DEFAULT_REGION


def locate(env: Mapping[str, str]) -> AwsSource | None:
    """Which step of the chain applies, without I/O; ``None`` when only instance metadata
    could still answer and it is disabled."""
    if env.get("AWS_BEARER_TOKEN_BEDROCK", "").strip():
        return AwsSource("bearer", "AWS_BEARER_TOKEN_BEDROCK (Bedrock API key)")
    if env.get("AWS_ACCESS_KEY_ID", "").strip() and env.get("AWS_SECRET_ACCESS_KEY", "").strip():
        return AwsSource("env", "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
    profile = profile_of(env)
    if profile.config.get("role_arn"):
        what = f"profile {profile.name} (assumes {profile.config['role_arn']})"
        return AwsSource("assume-role", what, profile.name)
    if env.get("AWS_WEB_IDENTITY_TOKEN_FILE", "").strip() and env.get("AWS_ROLE_ARN", "").strip():
        return AwsSource(
            "web-identity", f"AWS_WEB_IDENTITY_TOKEN_FILE (assumes {env['AWS_ROLE_ARN']})"
        )
    for where, values in (("credentials", profile.creds), ("config", profile.config)):
        if values.get("aws_access_key_id") and values.get("aws_secret_access_key"):
            return AwsSource("profile", f"profile {profile.name} (~/.aws/{where})", profile.name)
    if profile.config.get("credential_process"):
        return AwsSource("process", f"profile {profile.name} (credential_process)", profile.name)
    if profile.config.get("sso_account_id") and profile.config.get("sso_role_name"):
        return AwsSource("sso", f"profile {profile.name} (SSO)", profile.name)
    if env.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") or env.get(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI"
    ):
        return AwsSource("container", "container credentials endpoint")
    if env.get("AWS_EC2_METADATA_DISABLED", "").strip().lower() == "true":
        return None
    return AwsSource("imds", "instance metadata (IMDSv2)")


_cache: dict[tuple[str, str], AwsCredentials] = {}


def _fresh(creds: AwsCredentials | None, now: datetime) -> bool:
    return creds is not None and (creds.expires is None or creds.expires - _REFRESH_MARGIN > now)


def parse_time(value: object) -> datetime | None:
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000, UTC)
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    return None


def credentials_from_json(
    data: object, what: str, *, keys: tuple[str, str, str, str]
) -> AwsCredentials:
    access, secret, token, expiry = keys
    if not isinstance(data, dict) or not data.get(access) or not data.get(secret):
        raise auth_error(f"{what} answered without {access}/{secret}")
    try:
        expires = parse_time(data.get(expiry))
    except ValueError as exc:
        raise auth_error(f"{what} answered an unreadable {expiry}") from exc
    session = data.get(token)
    return AwsCredentials(
        str(data[access]),
        str(data[secret]),
        str(session) if session else None,
        expires,
        source=what,
    )


async def resolve(
    env: Mapping[str, str] | None = None,
    *,
    client: httpx.AsyncClient | None = None,
    now: datetime | None = None,
) -> AwsAuth:
    """The credentials and region for a Bedrock call (see the module docstring)."""
    environ = os.environ if env is None else env
    moment = now or datetime.now(UTC)
    source = locate(environ)
    if source is None:
        raise auth_error(
            "no AWS credentials: set AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (see `earshot doctor`)"
        )
    profile = profile_of(environ)
    region = region_for(environ, profile)
    if source.kind == "bearer":
        return AwsAuth(region, source, bearer=Secret(environ["AWS_BEARER_TOKEN_BEDROCK"].strip()))
    if source.kind == "env":
        token = environ.get("AWS_SESSION_TOKEN", "").strip() or None
        creds = AwsCredentials(
            environ["AWS_ACCESS_KEY_ID"].strip(),
            environ["AWS_SECRET_ACCESS_KEY"].strip(),
            token,
            source=source.describe,
        )
        return AwsAuth(region, source, credentials=creds)
    if source.kind == "profile":
        values = profile.creds if profile.creds.get("aws_access_key_id") else profile.config
        creds = AwsCredentials(
            values["aws_access_key_id"],
            values["aws_secret_access_key"],
            values.get("aws_session_token") or None,
            source=source.describe,
        )
        return AwsAuth(region, source, credentials=creds)
    key = (source.kind, source.profile)
    cached = _cache.get(key)
    if cached is None or not _fresh(cached, moment):
        from earshot.providers.cloud import _aws_fetch

        cached = await _aws_fetch.fetch(source, profile, environ, client)
        _cache[key] = cached
    return AwsAuth(region, source, credentials=cached)


def clear_cache() -> None:
    _cache.clear()


def sso_cache_file(env: Mapping[str, str], config: Mapping[str, str]) -> Path:
    """The token cache ``aws sso login`` writes: named by the SHA-1 of the sso-session name
    (or, for a legacy profile, of the start URL)."""
    session = config.get("sso_session", "")
    seed = session if session else config.get("sso_start_url", "")
    name = hashlib.sha1(seed.encode("utf-8")).hexdigest() + ".json"
    return Path(env.get("HOME", "~")).expanduser() / ".aws" / "sso" / "cache" / name


def load_json(path: Path, what: str) -> dict[str, object]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise auth_error(f"{what} not found at {path}: run `aws sso login`") from exc
    except (OSError, ValueError) as exc:
        raise auth_error(f"cannot read {what} {path}: {exc}") from exc
    if not isinstance(value, dict):
        raise auth_error(f"{what} {path} is not a JSON object")
    return value


__all__ = [
    "DEFAULT_REGION",
    "AwsAuth",
    "AwsSource",
    "clear_cache",
    "locate",
    "region_for",
    "resolve",
]
