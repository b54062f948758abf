"""Where Google application default credentials come from (``locate``) and the project the
environment or the credentials file names: file reads only, no network. Shared by
``google`` (the token cache, placement) and ``_google_fetch`` (the calls), so the imports
point one way: ``google`` -> ``_google_fetch`` -> ``_google_adc``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from earshot.providers.errors import ProviderError

SCOPE = "https://www.googleapis.com/auth/cloud-platform"
DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"
METADATA_TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token"
METADATA_PROJECT_PATH = "/computeMetadata/v1/project/project-id"


def auth_error(message: str) -> ProviderError:
    return ProviderError("auth", f"google-vertex: {message}", retryable=False)


@dataclass(frozen=True)
class GoogleSource:
    """``kind``: service_account | authorized_user | metadata; ``path`` the file, if any."""

    kind: str
    describe: str
    path: Path | None = None


def _gcloud_adc(env: Mapping[str, str]) -> Path:
    config = env.get("CLOUDSDK_CONFIG", "").strip()
    if config:
        base = Path(config)
    elif os.name == "nt" and env.get("APPDATA"):
        base = Path(env["APPDATA"]) / "gcloud"
    else:
        base = Path(env.get("HOME", "~")).expanduser() / ".config" / "gcloud"
    return base / "application_default_credentials.json"


def read_json_file(path: Path, what: str) -> dict[str, object]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise auth_error(f"{what} {path} does not exist") from exc
    except (OSError, ValueError) as exc:
        raise auth_error(f"cannot read {what} {path}: {exc}") from exc
    if not isinstance(value, dict):
        raise auth_error(f"{what} {path} is not a JSON object")
    return value


def _kind_of(path: Path, what: str) -> str:
    kind = read_json_file(path, what).get("type")
    if kind not in ("service_account", "authorized_user"):
        raise auth_error(
            f"{what} {path}: credentials of type {kind!r} are not supported; use a service "
            "account key or `gcloud auth application-default login`"
        )
    return str(kind)


def metadata_host(env: Mapping[str, str]) -> str:
    return env.get("GCE_METADATA_HOST", "").strip() or "metadata.google.internal"


def locate(env: Mapping[str, str]) -> GoogleSource:
    """Which credentials apply. Reads the credentials file's ``type`` (no network)."""
    named = env.get("GOOGLE_APPLICATION_CREDENTIALS", "").strip()
    if named:
        path = Path(named).expanduser()
        kind = _kind_of(path, "GOOGLE_APPLICATION_CREDENTIALS file")
        return GoogleSource(
            kind, f"GOOGLE_APPLICATION_CREDENTIALS ({kind.replace('_', ' ')})", path
        )
    adc = _gcloud_adc(env)
    if adc.is_file():
        kind = _kind_of(adc, "gcloud credentials file")
        return GoogleSource(kind, f"gcloud application-default login ({adc})", adc)
    return GoogleSource("metadata", f"metadata server ({metadata_host(env)})")


def project_from_env(env: Mapping[str, str]) -> str:
    for var in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"):
        value = env.get(var, "").strip()
        if value:
            return value
    return ""


def project_from_file(source: GoogleSource) -> str:
    if source.path is None:
        return ""
    data = read_json_file(source.path, "credentials file")
    value = data.get("project_id") or data.get("quota_project_id") or ""
    return str(value)


__all__ = [
    "DEFAULT_TOKEN_URI",
    "METADATA_PROJECT_PATH",
    "METADATA_TOKEN_PATH",
    "SCOPE",
    "GoogleSource",
    "auth_error",
    "locate",
    "metadata_host",
    "project_from_env",
    "project_from_file",
    "read_json_file",
]
