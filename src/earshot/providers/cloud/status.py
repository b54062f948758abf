"""What ``earshot providers`` and ``earshot doctor`` say about a cloud provider, without
network I/O and without ever showing a secret: where its credentials come from, where its
models live (region, project and location, endpoint), and what is missing.

A cloud is ``usable`` when its credentials are found and its placement resolves. Instance
metadata (AWS) and the metadata server (Google) are named as a possible source but do not
make a cloud usable by themselves: only a call on that cloud's machines can tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from earshot.providers.errors import ProviderError


@dataclass(frozen=True)
class CloudStatus:
    provider: str
    usable: bool
    source: str
    placement: dict[str, str] = field(default_factory=dict)
    problem: str = ""

    @property
    def endpoint(self) -> str:
        """The endpoint calls go to, when the placement decides it."""
        if "region" in self.placement:
            return f"https://bedrock-runtime.{self.placement['region']}.amazonaws.com"
        location = self.placement.get("location", "")
        if self.provider == "google-vertex":
            if location.startswith("global or"):
                return "https://aiplatform.googleapis.com (per model)"
            from earshot.providers.cloud.google import endpoint_for

            return endpoint_for(location)
        endpoint = self.placement.get("endpoint", "")
        return "" if endpoint == "(unset)" else endpoint

    @property
    def configured(self) -> bool:
        """Whether the user set anything up for this cloud (so doctor should check it)."""
        return self.usable or bool(self.problem)


def cloud_status(
    provider: str,
    env: Mapping[str, str],
    *,
    key_source: str | None = None,
    configured_url: str = "",
) -> CloudStatus:
    """``key_source``: where the registry found the row's own key (env var or auth.json)."""
    try:
        if provider == "amazon-bedrock":
            return _bedrock(env, key_source)
        if provider == "google-vertex":
            return _vertex(env)
        if provider == "azure":
            return _azure(env, key_source, configured_url)
    except ProviderError as exc:
        return CloudStatus(provider, False, "unreadable credentials", problem=exc.message)
    return CloudStatus(provider, False, "not a cloud provider")


def _bedrock(env: Mapping[str, str], key_source: str | None) -> CloudStatus:
    from earshot.providers.cloud import aws

    region = aws.region_for(env)
    placement = {"region": region}
    if key_source:
        return CloudStatus("amazon-bedrock", True, f"{key_source} (Bedrock API key)", placement)
    found = aws.locate(env)
    if found is None:
        return CloudStatus("amazon-bedrock", False, "missing", placement)
    if found.kind == "imds":
        return CloudStatus("amazon-bedrock", False, "instance metadata, if on AWS", placement)
    return CloudStatus("amazon-bedrock", True, found.describe, placement)


def _vertex(env: Mapping[str, str]) -> CloudStatus:
    from earshot.providers.cloud import google

    found = google.locate(env)
    project = google.project_from_env(env) or google.project_from_file(found)
    location = env.get("GOOGLE_CLOUD_LOCATION", "").strip() or "global or us-central1, by model"
    placement = {"project": project or "(unset)", "location": location}
    if found.kind == "metadata":
        return CloudStatus("google-vertex", False, "metadata server, if on Google Cloud", placement)
    if not project:
        return CloudStatus(
            "google-vertex",
            False,
            found.describe,
            placement,
            "google-vertex: no project: set GOOGLE_CLOUD_PROJECT",
        )
    return CloudStatus("google-vertex", True, found.describe, placement)


def _azure(env: Mapping[str, str], key_source: str | None, configured_url: str) -> CloudStatus:
    from earshot.providers.cloud import azure

    endpoint = azure.endpoint_from(env.get("AZURE_OPENAI_ENDPOINT", "") or configured_url)
    version = env.get("OPENAI_API_VERSION", "").strip() or azure.DEFAULT_API_VERSION
    placement = {"endpoint": endpoint or "(unset)", "api_version": version}
    if key_source:
        source = key_source
    elif env.get("AZURE_OPENAI_AD_TOKEN", "").strip():
        source = "env AZURE_OPENAI_AD_TOKEN (Entra ID)"
    else:
        found = azure.locate(env, None)
        source = found.describe if found is not None else "missing"
    has_credential = source != "missing"
    if not endpoint:
        problem = (
            "azure: no endpoint: set AZURE_OPENAI_ENDPOINT or providers.azure.base_url"
            if has_credential and source != "Azure CLI login (Entra ID)"
            else ""
        )
        return CloudStatus("azure", False, source, placement, problem)
    if not has_credential:
        problem = "azure: no credential: set AZURE_OPENAI_API_KEY, or log in with `az login`"
        return CloudStatus("azure", False, source, placement, problem)
    return CloudStatus("azure", True, source, placement)


__all__ = ["CloudStatus", "cloud_status"]
