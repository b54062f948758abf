"""Google application default credentials (ADC) for Vertex AI, and their token cache.

Where the credentials come from, first match wins (as Google's own libraries look)::

    1. GOOGLE_APPLICATION_CREDENTIALS   a JSON file: "service_account" (a JWT signed with the
                                        file's key, exchanged at its token_uri) or
                                        "authorized_user" (a refresh token)
    2. gcloud's ADC file                $CLOUDSDK_CONFIG or ~/.config/gcloud (%APPDATA%\\gcloud)
                                        /application_default_credentials.json, written by
                                        `gcloud auth application-default login`
    3. the metadata server              GCE_METADATA_HOST, else metadata.google.internal

Project: GOOGLE_CLOUD_PROJECT (or GCLOUD_PROJECT), the credentials' project (a service
account's ``project_id``, a user's ``quota_project_id``), else the metadata server's.
Location: GOOGLE_CLOUD_LOCATION (or CLOUD_ML_REGION), else ``default_location(model)``.

``locate`` answers without I/O; ``access_token`` returns a cached token until five minutes
before it expires, then fetches a new one. Errors are ``ProviderError("auth")`` naming the
file or variable, never a key or token.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from earshot.providers.cloud._google_adc import (
    DEFAULT_TOKEN_URI,
    SCOPE,
    GoogleSource,
    auth_error,
    locate,
    metadata_host,
    project_from_env,
    project_from_file,
)
from earshot.providers.target import Secret

if TYPE_CHECKING:
    import httpx

_REFRESH_MARGIN = 300.0


def default_location(model: str) -> str:
    """``global`` for the models Vertex serves from its global endpoint (Gemini 2 and later,
    Claude 4 and later), else ``us-central1``."""
    name = model.lower()
    if name.startswith("gemini-") and not name.startswith(("gemini-1", "gemini-pro")):
        return "global"
    major = re.search(r"-(\d+)(?=[-@.]|$)", name)
    if name.startswith("claude-") and major is not None and int(major.group(1)) >= 4:
        return "global"
    return "us-central1"


def location_for(env: Mapping[str, str], model: str) -> str:
    for var in ("GOOGLE_CLOUD_LOCATION", "CLOUD_ML_REGION"):
        value = env.get(var, "").strip()
        if value:
            return value
    return default_location(model)


def endpoint_for(location: str) -> str:
    if location == "global":
        return "https://aiplatform.googleapis.com"
    return f"https://{location}-aiplatform.googleapis.com"


@dataclass
class _Cached:
    token: Secret
    expires_at: float  # time.time()


_tokens: dict[str, _Cached] = {}


def clear_cache() -> None:
    _tokens.clear()


async def access_token(
    env: Mapping[str, str] | None = None, *, client: httpx.AsyncClient | None = None
) -> tuple[Secret, GoogleSource]:
    """A bearer token for Vertex AI and where it came from."""
    environ = os.environ if env is None else env
    source = locate(environ)
    key = f"{source.kind}:{source.path}:{metadata_host(environ)}"
    cached = _tokens.get(key)
    if cached is not None and cached.expires_at - _REFRESH_MARGIN > time.time():
        return cached.token, source
    from earshot.providers.cloud import _google_fetch

    token, lifetime = await _google_fetch.fetch_token(source, environ, client)
    _tokens[key] = _Cached(token, time.time() + lifetime)
    return token, source


async def project_for(
    env: Mapping[str, str] | None = None, *, client: httpx.AsyncClient | None = None
) -> str:
    """The project id (see the module docstring); ``auth`` error when nothing names one."""
    environ = os.environ if env is None else env
    found = project_from_env(environ)
    if found:
        return found
    source = locate(environ)
    found = project_from_file(source)
    if found:
        return found
    if source.kind == "metadata":
        from earshot.providers.cloud import _google_fetch

        found = await _google_fetch.metadata_project(environ, client)
    if not found:
        raise auth_error("no project: set GOOGLE_CLOUD_PROJECT")
    return found


__all__ = [
    "DEFAULT_TOKEN_URI",
    "SCOPE",
    "GoogleSource",
    "access_token",
    "auth_error",
    "clear_cache",
    "default_location",
    "endpoint_for",
    "locate",
    "location_for",
    "metadata_host",
    "project_for",
    "project_from_env",
    "project_from_file",
]
