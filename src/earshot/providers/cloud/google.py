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
from dataclasses import dataclass, replace
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
from earshot.providers.cloud.base import CloudStatus, Placement, PlaceQuery, StatusQuery
from earshot.providers.target import Secret

if TYPE_CHECKING:
    import httpx

    from earshot.providers.cloud.base import Cloud
    from earshot.providers.target import Target

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


def location_from_env(env: Mapping[str, str]) -> str:
    for var in ("GOOGLE_CLOUD_LOCATION", "CLOUD_ML_REGION"):
        value = env.get(var, "").strip()
        if value:
            return value
    return ""


def location_for(env: Mapping[str, str], model: str) -> str:
    return location_from_env(env) or default_location(model)


def endpoint_for(location: str) -> str:
    if location == "global":
        return "https://aiplatform.googleapis.com"
    return f"https://{location}-aiplatform.googleapis.com"


@dataclass
class _Cached:
    token: Secret
    expires_at: float  # time.time()


_tokens: dict[str, _Cached] = {}
_projects: dict[str, str] = {}  # metadata host -> the project it named


def clear_cache() -> None:
    _tokens.clear()
    _projects.clear()


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
    """The project id (see the module docstring); ``auth`` error when nothing names one.
    The metadata server's answer is cached for the process."""
    environ = os.environ if env is None else env
    found = project_from_env(environ)
    if found:
        return found
    source = locate(environ)
    found = project_from_file(source)
    if found:
        return found
    if source.kind != "metadata":
        raise auth_error(f"no project: set GOOGLE_CLOUD_PROJECT ({source.describe} names none)")
    host = metadata_host(environ)
    found = _projects.get(host, "")
    if not found:
        from earshot.providers.cloud import _google_fetch

        found = await _google_fetch.metadata_project(environ, client)
    if not found:
        raise auth_error(
            f"no project: set GOOGLE_CLOUD_PROJECT (the metadata server {host} named none)"
        )
    _projects[host] = found
    return found


class Vertex:
    """Vertex AI as a ``Cloud``: project and location decide the endpoint and the URL. With
    only the metadata server to go by, the project is its answer, asked for by
    ``complete`` before the first call (``place`` does no network I/O)."""

    def place(self, query: PlaceQuery) -> Placement:
        location = location_for(query.env, query.model)
        source = locate(query.env)
        project = project_from_env(query.env) or project_from_file(source)
        if not project and source.kind != "metadata":
            raise auth_error(
                "no project: set GOOGLE_CLOUD_PROJECT (or use credentials that name one)"
            )
        cloud = {"project": project, "location": location}
        return Placement(query.base_url or endpoint_for(location), cloud)

    async def complete(self, target: Target, client: httpx.AsyncClient | None) -> Target:
        if target.cloud.get("project"):
            return target
        project = await project_for(client=client)
        return replace(target, cloud={**target.cloud, "project": project})

    def status(self, query: StatusQuery) -> CloudStatus:
        found = locate(query.env)
        project = project_from_env(query.env) or project_from_file(found)
        location = location_from_env(query.env)
        if location:
            endpoint = query.base_url or endpoint_for(location)
        else:
            location = "global or us-central1, by model"
            endpoint = query.base_url or "https://aiplatform.googleapis.com (per model)"
        if found.kind == "metadata":
            placement = {"project": project or "(the metadata server's)", "location": location}
            source = "metadata server, if on Google Cloud"
            return CloudStatus(False, source, placement, endpoint=endpoint)
        placement = {"project": project or "(unset)", "location": location}
        if not project:
            problem = "google-vertex: no project: set GOOGLE_CLOUD_PROJECT"
            return CloudStatus(False, found.describe, placement, problem, endpoint)
        return CloudStatus(True, found.describe, placement, endpoint=endpoint)


CLOUD = Vertex()

if TYPE_CHECKING:
    _cloud: Cloud = CLOUD

__all__ = [
    "CLOUD",
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
