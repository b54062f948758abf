"""Role credentials from AWS STS: ``AssumeRole`` (a profile's ``role_arn``, signed with the
keys of its ``source_profile`` or ``credential_source``) and ``AssumeRoleWithWebIdentity``
(a web identity token file, as on EKS; unsigned).

STS answers XML; the ``Credentials`` element holds ``AccessKeyId``, ``SecretAccessKey``,
``SessionToken`` and ``Expiration``. The endpoint is regional
(``https://sts.<region>.amazonaws.com``) unless ``AWS_ENDPOINT_URL_STS`` says otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from urllib.parse import urlencode
from xml.etree import ElementTree

import anyio
import httpx

from earshot.providers.cloud import _aws_fetch, sigv4
from earshot.providers.cloud._aws_profile import (
    AwsSource,
    Profile,
    auth_error,
    parse_time,
    profile_of,
)
from earshot.providers.cloud.sigv4 import AwsCredentials
from earshot.providers.http import shared_client

_TIMEOUT = httpx.Timeout(10.0)
_MAX_DEPTH = 4
_FORM = "application/x-www-form-urlencoded; charset=utf-8"


def sts_url(env: Mapping[str, str], region: str) -> str:
    override = env.get("AWS_ENDPOINT_URL_STS", "").strip().rstrip("/")
    return (override or f"https://sts.{region}.amazonaws.com") + "/"


def _session_name(profile: Mapping[str, str]) -> str:
    return profile.get("role_session_name") or f"earshot-{int(time.time())}"


async def _call(
    url: str,
    form: dict[str, str],
    signer: AwsCredentials | None,
    region: str,
    client: httpx.AsyncClient | None,
    what: str,
) -> AwsCredentials:
    body = urlencode(form).encode()
    headers = {"content-type": _FORM}
    if signer is not None:
        headers.update(
            sigv4.sign(
                method="POST",
                url=url,
                headers=headers,
                body=body,
                credentials=signer,
                region=region,
                service="sts",
            )
        )
    http = client or shared_client(tls=url.startswith("https"))
    try:
        response = await http.post(url, content=body, headers=headers, timeout=_TIMEOUT)
    except httpx.HTTPError as exc:
        raise auth_error(f"{what}: STS unreachable ({type(exc).__name__})") from exc
    try:
        root = ElementTree.fromstring(response.content)
    except ElementTree.ParseError as exc:
        raise auth_error(f"{what}: STS answered HTTP {response.status_code}, not XML") from exc
    fields = {el.tag.rsplit("}", 1)[-1]: (el.text or "") for el in root.iter()}
    if response.status_code != 200:
        reason = fields.get("Message") or fields.get("Code") or f"HTTP {response.status_code}"
        raise auth_error(f"{what}: STS refused ({reason[:200]})")
    if not fields.get("AccessKeyId") or not fields.get("SecretAccessKey"):
        raise auth_error(f"{what}: STS answered without credentials")
    return AwsCredentials(
        fields["AccessKeyId"],
        fields["SecretAccessKey"],
        fields.get("SessionToken") or None,
        parse_time(fields.get("Expiration")),
        source=what,
    )


async def assume_role(
    profile: Profile,
    env: Mapping[str, str],
    region: str,
    client: httpx.AsyncClient | None,
    depth: int = 0,
) -> AwsCredentials:
    config = profile.config
    what = f"role {config['role_arn']} (profile {profile.name})"
    if depth > _MAX_DEPTH:
        raise auth_error(f"{what}: source_profile chain is too long or loops")
    source = await _source_credentials(profile, env, region, client, depth)
    form = {
        "Action": "AssumeRole",
        "Version": "2011-06-15",
        "RoleArn": config["role_arn"],
        "RoleSessionName": _session_name(config),
    }
    if config.get("external_id"):
        form["ExternalId"] = config["external_id"]
    if config.get("duration_seconds"):
        form["DurationSeconds"] = config["duration_seconds"]
    return await _call(sts_url(env, region), form, source, region, client, what)


async def _source_credentials(
    profile: Profile,
    env: Mapping[str, str],
    region: str,
    client: httpx.AsyncClient | None,
    depth: int,
) -> AwsCredentials:
    config = profile.config
    named = config.get("credential_source", "")
    if named == "Environment":
        key, secret = env.get("AWS_ACCESS_KEY_ID", ""), env.get("AWS_SECRET_ACCESS_KEY", "")
        if not key or not secret:
            raise auth_error(
                f"profile {profile.name}: credential_source Environment, but "
                "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set"
            )
        return AwsCredentials(key, secret, env.get("AWS_SESSION_TOKEN") or None)
    if named == "EcsContainer":
        return await _aws_fetch.fetch(AwsSource("container", ""), profile, env, client)
    if named == "Ec2InstanceMetadata":
        return await _aws_fetch.fetch(AwsSource("imds", ""), profile, env, client)
    source_name = config.get("source_profile", "")
    if not source_name:
        raise auth_error(
            f"profile {profile.name}: role_arn needs source_profile or credential_source"
        )
    source = profile_of({**env, "AWS_PROFILE": source_name})
    if source.config.get("role_arn") and source_name != profile.name:
        return await assume_role(source, env, region, client, depth + 1)
    for values in (source.creds, source.config):
        if values.get("aws_access_key_id") and values.get("aws_secret_access_key"):
            return AwsCredentials(
                values["aws_access_key_id"],
                values["aws_secret_access_key"],
                values.get("aws_session_token") or None,
            )
    if source.config.get("credential_process"):
        return await _aws_fetch.fetch(AwsSource("process", ""), source, env, client)
    if source.config.get("sso_account_id"):
        return await _aws_fetch.fetch(AwsSource("sso", ""), source, env, client)
    raise auth_error(f"profile {profile.name}: source_profile {source_name} has no credentials")


async def web_identity(
    env: Mapping[str, str], region: str, client: httpx.AsyncClient | None
) -> AwsCredentials:
    path = env["AWS_WEB_IDENTITY_TOKEN_FILE"]
    what = f"web identity role {env['AWS_ROLE_ARN']}"
    try:
        token = (await anyio.Path(path).read_text(encoding="utf-8")).strip()
    except OSError as exc:
        raise auth_error(f"cannot read AWS_WEB_IDENTITY_TOKEN_FILE: {exc}") from exc
    form = {
        "Action": "AssumeRoleWithWebIdentity",
        "Version": "2011-06-15",
        "RoleArn": env["AWS_ROLE_ARN"],
        "RoleSessionName": env.get("AWS_ROLE_SESSION_NAME") or f"earshot-{int(time.time())}",
        "WebIdentityToken": token,
    }
    return await _call(sts_url(env, region), form, None, region, client, what)


__all__ = ["assume_role", "sts_url", "web_identity"]
