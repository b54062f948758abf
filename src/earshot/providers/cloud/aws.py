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
         `aws sso login` writes under ~/.aws/sso/cache, refreshed through SSO OIDC when it
         nears expiry, exchanged for role credentials)
    4. container credentials (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI / _FULL_URI)
    5. instance metadata (IMDSv2), unless AWS_EC2_METADATA_DISABLED=true

Region: AWS_REGION, AWS_DEFAULT_REGION, the profile's ``region``, else us-east-1.

``locate`` says which step applies without any I/O (for ``earshot providers`` and
``doctor``); ``resolve`` fetches what that step needs and caches temporary credentials in
the process until five minutes before they expire. Endpoints follow the AWS SDKs' overrides
(``AWS_ENDPOINT_URL_SSO``, ``AWS_ENDPOINT_URL_SSO_OIDC``, ``AWS_ENDPOINT_URL_STS``,
``AWS_EC2_METADATA_SERVICE_ENDPOINT``), which is also how tests point them at loopback.
Errors are ``ProviderError("auth")`` naming the file or variable, never a secret.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from earshot.providers.cloud._aws_profile import (
    DEFAULT_REGION,
    AwsSource,
    Profile,
    auth_error,
    locate,
    profile_of,
    region_for,
)
from earshot.providers.cloud.base import CloudStatus, Placement, PlaceQuery, StatusQuery
from earshot.providers.cloud.sigv4 import AwsCredentials
from earshot.providers.target import Secret

if TYPE_CHECKING:
    import httpx

    from earshot.providers.cloud.base import Cloud
    from earshot.providers.target import Target

_REFRESH_MARGIN = timedelta(minutes=5)


@dataclass(frozen=True)
class AwsAuth:
    region: str
    source: AwsSource
    bearer: Secret | None = None
    credentials: AwsCredentials | None = None


_cache: dict[tuple[str, str], AwsCredentials] = {}


def _fresh(creds: AwsCredentials | None, now: datetime) -> bool:
    return creds is not None and (creds.expires is None or creds.expires - _REFRESH_MARGIN > now)


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
        cached = await _fetch(source, profile, environ, region, client)
        _cache[key] = cached
    return AwsAuth(region, source, credentials=cached)


def clear_cache() -> None:
    _cache.clear()


async def _fetch(
    source: AwsSource,
    profile: Profile,
    env: Mapping[str, str],
    region: str,
    client: httpx.AsyncClient | None,
) -> AwsCredentials:
    """The steps that call a service (imported here, so a run that never needs them does
    not load httpx's client code for them)."""
    if source.kind in ("assume-role", "web-identity"):
        from earshot.providers.cloud import _aws_sts

        if source.kind == "web-identity":
            return await _aws_sts.web_identity(env, region, client)
        return await _aws_sts.assume_role(profile, env, region, client)
    from earshot.providers.cloud import _aws_fetch

    return await _aws_fetch.fetch(source, profile, env, client)


def runtime_url(region: str) -> str:
    return f"https://bedrock-runtime.{region}.amazonaws.com"


class Bedrock:
    """Amazon Bedrock as a ``Cloud``: the region decides the endpoint; the credentials are
    the chain above (instance metadata is only a maybe until a call on AWS answers)."""

    def place(self, query: PlaceQuery) -> Placement:
        region = region_for(query.env)
        return Placement(query.base_url or runtime_url(region), {"region": region})

    async def complete(self, target: Target, client: httpx.AsyncClient | None) -> Target:
        return target

    def status(self, query: StatusQuery) -> CloudStatus:
        region = region_for(query.env)
        placement = {"region": region}
        endpoint = query.base_url or runtime_url(region)
        if query.key_source:
            source = f"{query.key_source} (Bedrock API key)"
            return CloudStatus(True, source, placement, endpoint=endpoint)
        found = locate(query.env)
        if found is None:
            return CloudStatus(False, "missing", placement, endpoint=endpoint)
        if found.kind == "imds":
            source = "instance metadata, if on AWS"
            return CloudStatus(False, source, placement, endpoint=endpoint)
        return CloudStatus(True, found.describe, placement, endpoint=endpoint)


CLOUD = Bedrock()

if TYPE_CHECKING:
    _cloud: Cloud = CLOUD

__all__ = [
    "CLOUD",
    "DEFAULT_REGION",
    "AwsAuth",
    "AwsSource",
    "Profile",
    "auth_error",
    "clear_cache",
    "locate",
    "profile_of",
    "region_for",
    "resolve",
]
