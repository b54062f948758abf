"""The AWS shared files (``~/.aws/credentials``, ``~/.aws/config``, the SSO token cache) and
which step of the credential chain applies (``locate``). No network I/O: ``aws.resolve``
holds the chain's cache, ``_aws_fetch`` and ``_aws_sts`` the steps that call a service.
Everything here is shared by those three, so the imports point one way:
``aws`` -> ``_aws_sts`` -> ``_aws_fetch`` -> ``_aws_profile`` (each also imports the ones
further right directly).
"""

from __future__ import annotations

import configparser
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from earshot._base.json import JSONObject
from earshot._base.jsonfile import JSONFileError, load_json_object
from earshot.providers.cloud.sigv4 import AwsCredentials
from earshot.providers.errors import ProviderError

DEFAULT_REGION = "us-east-1"


@dataclass(frozen=True)
class AwsSource:
    """Where the credentials come from (no secret): ``kind`` and a phrase for a person."""

    kind: str  # bearer | env | profile | process | sso | container | imds
    describe: str
    profile: str = ""


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


def sso_cache_file(env: Mapping[str, str], config: Mapping[str, str]) -> Path:
    """The token cache ``aws sso login`` writes: named by the SHA-1 of the sso-session name
    (or, for a legacy profile, of the start URL)."""
    session = config.get("sso_session", "")
    seed = session if session else config.get("sso_start_url", "")
    name = hashlib.sha1(seed.encode("utf-8")).hexdigest() + ".json"
    return Path(env.get("HOME", "~")).expanduser() / ".aws" / "sso" / "cache" / name


def load_json(path: Path, what: str) -> JSONObject:
    try:
        value = load_json_object(path)
    except JSONFileError as exc:
        raise auth_error(f"cannot read {what}: {exc}") from exc
    if value is None:
        raise auth_error(f"{what} not found at {path}: run `aws sso login`")
    return value


__all__ = [
    "DEFAULT_REGION",
    "AwsSource",
    "Profile",
    "auth_error",
    "credentials_from_json",
    "load_json",
    "locate",
    "parse_time",
    "profile_of",
    "region_for",
    "sso_cache_file",
]
