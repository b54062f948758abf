"""Azure OpenAI: endpoint, API version and credential.

Credential, first match wins::

    AZURE_OPENAI_API_KEY (or AZURE_API_KEY, or `earshot auth login azure`)   api-key header
    AZURE_OPENAI_AD_TOKEN                                                     Entra ID bearer
    the Azure CLI, when logged in                                             Entra ID bearer:
        az account get-access-token --resource https://cognitiveservices.azure.com

A CLI token is cached in the process until five minutes before it expires. Endpoint:
AZURE_OPENAI_ENDPOINT, else settings ``providers.azure.base_url`` (a URL, or a bare resource
name meaning ``https://<name>.openai.azure.com``). API version (chat completions over a
deployment): OPENAI_API_VERSION, else settings ``providers.azure.api_version``, else
``DEFAULT_API_VERSION``; the v1 Responses API takes none.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from earshot.providers.cloud.base import CloudStatus, Placement, PlaceQuery, StatusQuery
from earshot.providers.errors import ProviderError
from earshot.providers.target import Secret

if TYPE_CHECKING:
    import httpx

    from earshot.providers.cloud.base import Cloud
    from earshot.providers.target import Target

DEFAULT_API_VERSION = "2024-10-21"
RESOURCE = "https://cognitiveservices.azure.com"
_REFRESH_MARGIN = 300.0


def auth_error(message: str) -> ProviderError:
    return ProviderError("auth", f"azure: {message}", retryable=False)


def endpoint_from(value: str) -> str:
    """A resource name or URL as the endpoint URL (no trailing slash, no ``/openai`` path)."""
    value = value.strip().rstrip("/")
    if not value:
        return ""
    if "://" not in value:
        return f"https://{value}.openai.azure.com"
    for suffix in ("/openai/v1", "/openai"):
        if value.endswith(suffix):
            return value[: -len(suffix)]
    return value


@dataclass(frozen=True)
class AzureSource:
    kind: str  # api-key | ad-token | azure-cli
    describe: str


def locate(env: Mapping[str, str], api_key: Secret | None) -> AzureSource | None:
    """Which credential applies (no I/O); ``api_key`` is the one the registry found."""
    if api_key:
        return AzureSource("api-key", "API key")
    if env.get("AZURE_OPENAI_AD_TOKEN", "").strip():
        return AzureSource("ad-token", "AZURE_OPENAI_AD_TOKEN (Entra ID)")
    if shutil.which("az", path=env.get("PATH")):
        return AzureSource("azure-cli", "Azure CLI login (Entra ID)")
    return None


@dataclass
class _Cached:
    token: Secret
    expires_at: float


_cli_token: _Cached | None = None


def clear_cache() -> None:
    global _cli_token
    _cli_token = None


async def bearer_token(env: Mapping[str, str] | None = None) -> Secret:
    """An Entra ID token: AZURE_OPENAI_AD_TOKEN, or the Azure CLI's (cached)."""
    global _cli_token
    environ = os.environ if env is None else env
    static = environ.get("AZURE_OPENAI_AD_TOKEN", "").strip()
    if static:
        return Secret(static)
    if _cli_token is not None and _cli_token.expires_at - _REFRESH_MARGIN > time.time():
        return _cli_token.token
    az = shutil.which("az", path=environ.get("PATH"))
    if az is None:
        raise auth_error(
            "no credential: set AZURE_OPENAI_API_KEY, AZURE_OPENAI_AD_TOKEN, or log in with "
            "`az login`"
        )
    import anyio

    args = [az, "account", "get-access-token", "--resource", RESOURCE, "--output", "json"]
    try:
        done = await anyio.run_process(args, check=False, env=dict(environ))
    except OSError as exc:
        raise auth_error(f"could not run the Azure CLI: {exc}") from exc
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise auth_error(f"the Azure CLI gave no token (run `az login`): {last[0][:200]}")
    try:
        data = json.loads(done.stdout)
        token = str(data["accessToken"])
        expires = _expiry(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise auth_error("the Azure CLI's token answer is not readable") from exc
    _cli_token = _Cached(Secret(token), expires)
    return _cli_token.token


def _expiry(data: dict[str, object]) -> float:
    epoch = data.get("expires_on")
    if isinstance(epoch, int | float | str) and str(epoch).isdigit():
        return float(epoch)
    local = data.get("expiresOn")
    if isinstance(local, str):
        return datetime.fromisoformat(local).timestamp()  # the CLI prints local time
    return time.time() + 600.0


_RESPONSES_MODELS = re.compile(r"^(gpt-5|o\d|codex)", re.IGNORECASE)


def azure_api(model: str, wire: str | None) -> str:
    """``responses`` or ``chat``: a wire setting (``openai-chat``/``openai-responses``)
    decides; else the Responses API for the GPT-5, o-series and codex models, chat
    completions for the rest."""
    if wire == "openai-chat":
        return "chat"
    if wire == "openai-responses":
        return "responses"
    return "responses" if _RESPONSES_MODELS.match(model) and "-chat" not in model else "chat"


def api_version_for(env: Mapping[str, str], configured: str | None) -> str:
    return env.get("OPENAI_API_VERSION", "").strip() or configured or DEFAULT_API_VERSION


class Azure:
    """Azure OpenAI as a ``Cloud``: the endpoint is the user's resource (environment or
    settings); the wire stays Azure's, with the API (``Target.cloud["api"]``) chosen per
    deployment by ``azure_api``."""

    def place(self, query: PlaceQuery) -> Placement:
        cloud = {
            "api": azure_api(query.model, query.wire),
            "api_version": api_version_for(query.env, query.api_version),
        }
        return Placement(endpoint_from(query.base_url), cloud, wire="azure-openai")

    async def complete(self, target: Target, client: httpx.AsyncClient | None) -> Target:
        return target

    def status(self, query: StatusQuery) -> CloudStatus:
        endpoint = endpoint_from(query.base_url)
        version = api_version_for(query.env, query.api_version)
        placement = {"endpoint": endpoint or "(unset)", "api_version": version}
        if query.key_source:
            source = query.key_source
        elif query.env.get("AZURE_OPENAI_AD_TOKEN", "").strip():
            source = "env AZURE_OPENAI_AD_TOKEN (Entra ID)"
        else:
            found = locate(query.env, None)
            source = found.describe if found is not None else "missing"
        has_credential = source != "missing"
        if not endpoint:
            # A logged-in Azure CLI alone is not a sign the user meant to use Azure OpenAI.
            asked = has_credential and source != "Azure CLI login (Entra ID)"
            problem = (
                "azure: no endpoint: set AZURE_OPENAI_ENDPOINT or providers.azure.base_url"
                if asked
                else ""
            )
            return CloudStatus(False, source, placement, problem)
        if not has_credential:
            problem = "azure: no credential: set AZURE_OPENAI_API_KEY, or log in with `az login`"
            return CloudStatus(False, source, placement, problem, endpoint)
        return CloudStatus(True, source, placement, endpoint=endpoint)


CLOUD = Azure()

if TYPE_CHECKING:
    _cloud: Cloud = CLOUD

__all__ = [
    "CLOUD",
    "DEFAULT_API_VERSION",
    "RESOURCE",
    "AzureSource",
    "auth_error",
    "bearer_token",
    "clear_cache",
    "endpoint_from",
    "locate",
]
