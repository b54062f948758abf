"""What ``earshot providers`` and ``earshot doctor`` say about a cloud provider, without
network I/O and without ever showing a secret: where its credentials come from, where its
models live (region, project and location, endpoint), and what is missing.

``cloud_status`` is the same for every cloud: it resolves the row's configured base URL
(environment, then settings, as ``resolve_target`` does) and asks the row's cloud module
(``Cloud.status``). A cloud is ``usable`` when its credentials are found and its placement
resolves. Instance metadata (AWS) and the metadata server (Google) are named as a possible
source but do not make a cloud usable by themselves: only a call on that cloud's machines
can tell.
"""

from __future__ import annotations

from collections.abc import Mapping

from earshot.providers.cloud.base import CloudStatus, StatusQuery, load_cloud
from earshot.providers.errors import ProviderError
from earshot.providers.registry import ProviderSettings, ProviderSpec, base_url_for


def cloud_status(
    spec: ProviderSpec,
    env: Mapping[str, str],
    *,
    key_source: str | None = None,
    settings: ProviderSettings | None = None,
) -> CloudStatus:
    """``key_source``: where the registry found the row's own key (env var or auth.json);
    ``settings``: the user's ``providers.<id>`` settings (base URL, API version)."""
    if not spec.cloud:
        return CloudStatus(False, "not a cloud provider")
    query = StatusQuery(
        env=env,
        key_source=key_source,
        base_url=base_url_for(spec, env, settings),
        api_version=settings.api_version if settings is not None else None,
    )
    try:
        return load_cloud(spec.cloud).status(query)
    except ProviderError as exc:
        source = "unreadable credentials"
        return CloudStatus(False, source, problem=exc.message, endpoint=query.base_url)


__all__ = ["CloudStatus", "cloud_status"]
