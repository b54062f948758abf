"""Where a cloud model lives: region, project, location, endpoint, API version.

``place`` is called by ``registry.resolve_target`` for the three cloud providers only, and
does no network I/O (it may read the AWS profile files or the Google credentials file).
It returns the default base URL (used when neither ``<ID>_BASE_URL`` nor settings give one)
and the ``Target.cloud`` fields the cloud wires read.

- amazon-bedrock: ``region`` (``aws.region_for``); base URL
  ``https://bedrock-runtime.<region>.amazonaws.com``.
- google-vertex: ``project`` and ``location`` (``google``); base URL
  ``https://aiplatform.googleapis.com`` for ``global``, else
  ``https://<location>-aiplatform.googleapis.com``. With no project in the environment or
  the credentials file this is an ``auth`` error asking for GOOGLE_CLOUD_PROJECT.
- azure: ``endpoint`` from AZURE_OPENAI_ENDPOINT or settings (URL or resource name),
  ``api_version`` from OPENAI_API_VERSION or settings, and ``api``: ``responses`` or
  ``chat`` (settings ``models.azure.<deployment>.wire`` decides; else the Responses API for
  the GPT-5 and o-series reasoning models, chat completions for the rest).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from earshot.providers.errors import ProviderError

_RESPONSES_MODELS = re.compile(r"^(gpt-5|o\d|codex)", re.IGNORECASE)


def azure_api(model: str, wire: str | None) -> str:
    if wire == "openai-chat":
        return "chat"
    if wire == "openai-responses":
        return "responses"
    return "responses" if _RESPONSES_MODELS.match(model) and "-chat" not in model else "chat"


def place(
    provider: str,
    model: str,
    env: Mapping[str, str],
    *,
    configured_url: str = "",
    api_version: str | None = None,
    wire: str | None = None,
) -> tuple[str, dict[str, str]]:
    """``(default base URL, Target.cloud)`` for a cloud provider's model."""
    if provider == "amazon-bedrock":
        from earshot.providers.cloud import aws

        region = aws.region_for(env)
        return f"https://bedrock-runtime.{region}.amazonaws.com", {"region": region}
    if provider == "google-vertex":
        from earshot.providers.cloud import google

        location = google.location_for(env, model)
        project = google.project_from_env(env)
        if not project:
            source = google.locate(env)
            project = google.project_from_file(source)
        if not project:
            raise ProviderError(
                "auth",
                "google-vertex: no project: set GOOGLE_CLOUD_PROJECT (or use credentials "
                "that name one)",
                retryable=False,
            )
        cloud = {"project": project, "location": location}
        return google.endpoint_for(location), cloud
    if provider == "azure":
        from earshot.providers.cloud import azure

        endpoint = azure.endpoint_from(env.get("AZURE_OPENAI_ENDPOINT", "") or configured_url)
        version = env.get("OPENAI_API_VERSION", "").strip() or api_version
        cloud = {
            "api": azure_api(model, wire),
            "api_version": version or azure.DEFAULT_API_VERSION,
        }
        return endpoint, cloud
    return "", {}


__all__ = ["azure_api", "place"]
