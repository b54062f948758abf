"""The ADC steps that need I/O: the OAuth token exchange (service-account JWT or refresh
token) and the metadata server. ``google.access_token`` calls ``fetch_token`` only when its
cache holds nothing fresh."""

from __future__ import annotations

import time
from collections.abc import Mapping

import httpx

from earshot.providers.cloud._google_adc import (
    DEFAULT_TOKEN_URI,
    METADATA_PROJECT_PATH,
    METADATA_TOKEN_PATH,
    SCOPE,
    GoogleSource,
    auth_error,
    metadata_host,
    read_json_file,
)
from earshot.providers.cloud._jwt import PrivateKeyError, encode_rs256, load_private_key
from earshot.providers.http import shared_client
from earshot.providers.target import Secret

_TIMEOUT = httpx.Timeout(10.0)
_METADATA_TIMEOUT = httpx.Timeout(3.0)
_JWT_LIFETIME = 3600


def _client(url: str, client: httpx.AsyncClient | None) -> httpx.AsyncClient:
    return client or shared_client(tls=url.startswith("https"))


async def fetch_token(
    source: GoogleSource, env: Mapping[str, str], client: httpx.AsyncClient | None
) -> tuple[Secret, float]:
    """A new access token and its lifetime in seconds."""
    if source.kind == "metadata":
        url = f"http://{metadata_host(env)}{METADATA_TOKEN_PATH}"
        try:
            response = await _client(url, client).get(
                url, headers={"metadata-flavor": "Google"}, timeout=_METADATA_TIMEOUT
            )
        except httpx.HTTPError as exc:
            raise auth_error(
                "no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service "
                "account key file, or run `gcloud auth application-default login` "
                f"(the metadata server {metadata_host(env)} is unreachable)"
            ) from exc
        return _token_answer(response, "the metadata server")
    assert source.path is not None
    data = read_json_file(source.path, "credentials file")
    token_uri = str(data.get("token_uri") or DEFAULT_TOKEN_URI)
    form: dict[str, str]
    if source.kind == "service_account":
        email, pem = data.get("client_email"), data.get("private_key")
        if not isinstance(email, str) or not isinstance(pem, str):
            raise auth_error(f"{source.path}: needs client_email and private_key")
        try:
            key = load_private_key(pem)
        except PrivateKeyError as exc:
            raise auth_error(f"{source.path}: private_key: {exc}") from exc
        now = int(time.time())
        claims: dict[str, object] = {
            "iss": email,
            "scope": SCOPE,
            # Google's libraries always name the standard endpoint as the audience, whatever
            # the file's token_uri; the token service accepts that.
            "aud": DEFAULT_TOKEN_URI,
            "iat": now,
            "exp": now + _JWT_LIFETIME,
        }
        key_id = data.get("private_key_id")
        assertion = encode_rs256(claims, key, key_id if isinstance(key_id, str) else None)
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion}
    else:
        fields = {name: data.get(name) for name in ("client_id", "client_secret", "refresh_token")}
        if not all(isinstance(v, str) and v for v in fields.values()):
            raise auth_error(f"{source.path}: needs client_id, client_secret and refresh_token")
        form = {"grant_type": "refresh_token", **{k: str(v) for k, v in fields.items()}}
    try:
        response = await _client(token_uri, client).post(token_uri, data=form, timeout=_TIMEOUT)
    except httpx.HTTPError as exc:
        raise auth_error(f"token request to {token_uri} failed ({type(exc).__name__})") from exc
    return _token_answer(response, token_uri)


def _token_answer(response: httpx.Response, where: str) -> tuple[Secret, float]:
    try:
        body = response.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    if response.status_code != 200:
        reason = body.get("error_description") or body.get("error") or ""
        hint = f": {str(reason)[:200]}" if reason else ""
        raise auth_error(f"{where} refused the token request (HTTP {response.status_code}){hint}")
    token = body.get("access_token")
    if not isinstance(token, str) or not token:
        raise auth_error(f"{where} answered without an access_token")
    lifetime = body.get("expires_in")
    return Secret(token), float(lifetime) if isinstance(lifetime, int | float) else 3600.0


async def metadata_project(env: Mapping[str, str], client: httpx.AsyncClient | None) -> str:
    url = f"http://{metadata_host(env)}{METADATA_PROJECT_PATH}"
    try:
        response = await _client(url, client).get(
            url, headers={"metadata-flavor": "Google"}, timeout=_METADATA_TIMEOUT
        )
    except httpx.HTTPError:
        return ""
    return response.text.strip() if response.status_code == 200 else ""
