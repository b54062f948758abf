"""The provider registry: one row of data per provider, and ``resolve_target``.

Adding an OpenAI-compatible provider is one ``ProviderSpec`` row in ``PROVIDERS`` below;
nothing else changes (the catalog build reads ``catalog_id`` from here).

Where each part of a ``Target`` comes from, first match wins:

- base URL: env ``<ID>_BASE_URL`` (``-`` becomes ``_``; plus the vendor SDK's own variable
  where it differs, e.g. ``GEMINI_BASE_URL``), then settings ``providers.<id>.base_url``,
  then the row's default;
- API key: the row's env vars in order, then ``auth.json`` (``earshot auth login``). Keys are
  never read from project settings, which live in repositories;
- wire: settings ``models.<id>.<model>.wire``, then that model's ``shape`` (the older alias:
  ``completions``/``responses``, for a provider on an OpenAI wire), then settings
  ``providers.<id>.wire``, then the row's (``wire_for``);
- model facts: the catalog (snapshot, refresh, settings overrides).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import msgspec

from earshot.providers.errors import ProviderError
from earshot.providers.models import ModelInfo
from earshot.providers.target import AuthStyle, Secret, Target, WireName


class ProviderSpec(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    wire: WireName
    base_url: str
    env: tuple[str, ...]
    auth: AuthStyle
    key_required: bool = True
    base_url_env: tuple[str, ...] = ()
    catalog_id: str | None = None
    open_models: bool = False
    headers: Mapping[str, str] = msgspec.field(default_factory=dict)
    credential_env: tuple[str, ...] = ()
    """Other variables holding this provider's credentials (cloud keys, tokens, key files):
    never read as the API key, but kept out of tool environments like ``env``."""
    cloud: str = ""
    """A cloud provider's module (``cloud/base.py``: its ``CLOUD`` resolves where a model
    lives and describes the credentials); empty for every other provider."""
    note: str = ""

    @property
    def base_url_vars(self) -> tuple[str, ...]:
        own = self.id.upper().replace("-", "_") + "_BASE_URL"
        return (own, *(v for v in self.base_url_env if v != own))


def _compat(
    id: str, name: str, base_url: str, env: str, *, catalog_id: str | None = None
) -> ProviderSpec:
    return ProviderSpec(
        id=id,
        name=name,
        wire="openai-chat",
        base_url=base_url,
        env=(env,),
        auth="bearer",
        catalog_id=catalog_id or id,
    )


PROVIDERS: tuple[ProviderSpec, ...] = (
    ProviderSpec(
        id="anthropic",
        name="Anthropic",
        wire="anthropic-messages",
        base_url="https://api.anthropic.com",
        env=("ANTHROPIC_API_KEY",),
        auth="x-api-key",
        catalog_id="anthropic",
    ),
    ProviderSpec(
        id="openai",
        name="OpenAI",
        wire="openai-responses",
        base_url="https://api.openai.com/v1",
        env=("OPENAI_API_KEY",),
        auth="bearer",
        catalog_id="openai",
    ),
    ProviderSpec(
        id="google",
        name="Google Gemini",
        wire="google-gemini",
        base_url="https://generativelanguage.googleapis.com",
        env=("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"),
        auth="x-goog-api-key",
        base_url_env=("GEMINI_BASE_URL",),
        catalog_id="google",
    ),
    ProviderSpec(
        id="google-vertex",
        name="Google Vertex AI",
        wire="google-vertex",
        base_url="",
        env=(),
        auth="google-adc",
        key_required=False,
        catalog_id="google-vertex",
        credential_env=("GOOGLE_APPLICATION_CREDENTIALS",),
        cloud="earshot.providers.cloud.google",
        note="Gemini and Claude; application default credentials, GOOGLE_CLOUD_PROJECT",
    ),
    ProviderSpec(
        id="amazon-bedrock",
        name="Amazon Bedrock",
        wire="amazon-bedrock",
        base_url="",
        env=("AWS_BEARER_TOKEN_BEDROCK",),
        auth="aws-sigv4",
        key_required=False,
        catalog_id="amazon-bedrock",
        credential_env=(
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        ),
        cloud="earshot.providers.cloud.aws",
        note="ConverseStream; AWS credential chain (SigV4) or a Bedrock API key",
    ),
    ProviderSpec(
        id="azure",
        name="Azure OpenAI",
        wire="azure-openai",
        base_url="",
        env=("AZURE_OPENAI_API_KEY", "AZURE_API_KEY"),
        auth="api-key",
        key_required=False,
        base_url_env=("AZURE_OPENAI_ENDPOINT",),
        catalog_id="azure",
        open_models=True,
        credential_env=("AZURE_OPENAI_AD_TOKEN",),
        cloud="earshot.providers.cloud.azure",
        note="deployment name as the model; AZURE_OPENAI_ENDPOINT; api-key or Entra ID",
    ),
    _compat("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    _compat("groq", "Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    _compat("mistral", "Mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    _compat("xai", "xAI", "https://api.x.ai/v1", "XAI_API_KEY"),
    _compat("deepseek", "DeepSeek", "https://api.deepseek.com", "DEEPSEEK_API_KEY"),
    _compat(
        "together",
        "Together AI",
        "https://api.together.xyz/v1",
        "TOGETHER_API_KEY",
        catalog_id="togetherai",
    ),
    _compat(
        "fireworks",
        "Fireworks AI",
        "https://api.fireworks.ai/inference/v1",
        "FIREWORKS_API_KEY",
        catalog_id="fireworks-ai",
    ),
    _compat("cerebras", "Cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"),
    _compat(
        "moonshot",
        "Moonshot AI",
        "https://api.moonshot.ai/v1",
        "MOONSHOT_API_KEY",
        catalog_id="moonshotai",
    ),
    ProviderSpec(
        id="zai",
        name="Z.ai",
        wire="openai-chat",
        base_url="https://api.z.ai/api/paas/v4",
        env=("ZAI_API_KEY", "ZHIPU_API_KEY"),
        auth="bearer",
        catalog_id="zai",
    ),
    ProviderSpec(
        id="github-models",
        name="GitHub Models",
        wire="openai-chat",
        base_url="https://models.github.ai/inference",
        env=("GITHUB_TOKEN",),
        auth="bearer",
        catalog_id="github-models",
    ),
    ProviderSpec(
        id="ollama",
        name="Ollama",
        wire="openai-chat",
        base_url="http://localhost:11434/v1",
        env=("OLLAMA_API_KEY",),
        auth="bearer",
        key_required=False,
        catalog_id="ollama-cloud",
        open_models=True,
        note="local server; any pulled model works",
    ),
    ProviderSpec(
        id="lmstudio",
        name="LM Studio",
        wire="openai-chat",
        base_url="http://127.0.0.1:1234/v1",
        env=("LMSTUDIO_API_KEY",),
        auth="bearer",
        key_required=False,
        catalog_id="lmstudio",
        open_models=True,
        note="local server; any loaded model works",
    ),
    ProviderSpec(
        id="openai-compatible",
        name="OpenAI-compatible server",
        wire="openai-chat",
        base_url="",
        env=("OPENAI_COMPATIBLE_API_KEY",),
        auth="bearer",
        key_required=False,
        open_models=True,
        note="set providers.openai-compatible.base_url in settings or OPENAI_COMPATIBLE_BASE_URL",
    ),
)

_BY_ID = {spec.id: spec for spec in PROVIDERS}

# Providers whose placement (region, project, endpoint) their cloud module resolves.
CLOUD_PROVIDERS = frozenset(spec.id for spec in PROVIDERS if spec.cloud)


class UnknownProviderError(ProviderError):
    def __init__(self, provider: str, suggestions: list[str]) -> None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(
            "invalid_request",
            f"unknown provider {provider!r}{hint} (`earshot providers` lists them)",
            retryable=False,
        )
        self.provider = provider
        self.suggestions = suggestions


def provider_ids() -> list[str]:
    return [spec.id for spec in PROVIDERS]


def get_provider(provider: str) -> ProviderSpec:
    spec = _BY_ID.get(provider)
    if spec is None:
        raise UnknownProviderError(provider, suggest_providers(provider))
    return spec


def suggest_providers(provider: str, n: int = 3) -> list[str]:
    import difflib  # only for a name that is not a provider

    ids = provider_ids()
    found = difflib.get_close_matches(provider, ids, n=n, cutoff=0.5)
    found += [i for i in ids if provider and (i.startswith(provider) or provider in i)]
    return list(dict.fromkeys(found))[:n]


class ProviderSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The part of settings that concerns one provider (validated by the settings loader)."""

    base_url: str | None = None
    headers: Mapping[str, str] = msgspec.field(default_factory=dict)
    api_version: str | None = None
    """Azure OpenAI: the ``api-version`` of chat-completions calls."""
    deployments: Mapping[str, str] = msgspec.field(default_factory=dict)
    """Azure OpenAI: deployment name -> catalog model id (for prices and limits)."""
    wire: WireName | None = None


_SHAPES: dict[str, WireName] = {"completions": "openai-chat", "responses": "openai-responses"}
_OPENAI_WIRES = frozenset(_SHAPES.values())


def wire_for(
    spec: ProviderSpec, info: ModelInfo | None, settings: ProviderSettings | None = None
) -> WireName:
    """The API a model is called with; see the module docstring for the order."""
    if info is not None and info.wire is not None:
        return info.wire
    wire = settings.wire if settings is not None and settings.wire else spec.wire
    if info is not None and info.shape is not None and wire in _OPENAI_WIRES:
        return _SHAPES[info.shape]
    return wire


def base_url_for(
    spec: ProviderSpec,
    env: Mapping[str, str],
    settings: ProviderSettings | None = None,
) -> str:
    for var in spec.base_url_vars:
        value = env.get(var, "").strip()
        if value:
            return value.rstrip("/")
    if settings is not None and settings.base_url:
        return settings.base_url.rstrip("/")
    return spec.base_url.rstrip("/")


_SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIALS")


def credential_vars() -> frozenset[str]:
    """Every environment variable that holds a credential earshot itself may use: each key
    variable of every provider in the registry, and each cloud's credential variables
    (``credential_env``). Commands earshot runs do not get them."""
    return _CREDENTIAL_VARS


_CREDENTIAL_VARS = frozenset(
    var.upper() for spec in PROVIDERS for var in (*spec.env, *spec.credential_env)
)
"""Built once: every command's environment is filtered through it (``is_credential_var``)."""


def is_credential_var(name: str) -> bool:
    """A registry key variable, or an ``EARSHOT_*`` variable named like a secret
    (``_KEY``, ``_TOKEN``, ``_SECRET``, ``_PASSWORD``, ``_CREDENTIALS``)."""
    upper = name.upper()
    if upper in _CREDENTIAL_VARS:
        return True
    return upper.startswith("EARSHOT_") and upper.endswith(_SECRET_SUFFIXES)


def key_from_env(spec: ProviderSpec, env: Mapping[str, str]) -> tuple[str, str] | None:
    """The first set key env var of a provider: ``(var, value)``."""
    for var in spec.env:
        value = env.get(var, "").strip()
        if value:
            return var, value
    return None


def key_variables(provider: str) -> tuple[str, ...]:
    """The env vars that hold a key for ``provider`` (none for an unknown id)."""
    spec = _BY_ID.get(provider)
    return spec.env if spec is not None else ()


def cloud_module(provider: str) -> str:
    """The cloud module of a cloud provider (``ProviderSpec.cloud``); empty for the rest."""
    spec = _BY_ID.get(provider)
    return spec.cloud if spec is not None else ""


def missing_key_error(spec: ProviderSpec) -> ProviderError:
    where = " or ".join(spec.env) if spec.env else "credentials"
    return ProviderError(
        "auth",
        f"no API key for {spec.id}: set {where}, or run `earshot auth login {spec.id}`",
        retryable=False,
    )


def resolve_target(
    spec: ProviderSpec,
    model: str,
    *,
    info: ModelInfo | None,
    stored_key: str | None = None,
    settings: ProviderSettings | None = None,
    env: Mapping[str, str] | None = None,
    wire_setting: str | None = None,
) -> Target:
    """A ready-to-call ``Target``. Raises ``ProviderError("auth")`` when a required key is
    missing, naming the env var and ``earshot auth login``; ``invalid_request`` when the
    provider needs a base URL that nobody set."""
    environ = os.environ if env is None else env
    base_url = base_url_for(spec, environ, settings)
    wire = wire_for(spec, info, settings)
    cloud: dict[str, str] = {}
    if spec.cloud:
        from earshot.providers.cloud.base import PlaceQuery, load_cloud

        shape = _SHAPES.get(info.shape or "") if info is not None else None
        placed = load_cloud(spec.cloud).place(
            PlaceQuery(
                model=info.id if info is not None else model,
                env=environ,
                base_url=base_url,
                api_version=settings.api_version if settings is not None else None,
                wire=wire_setting or (wire if wire != spec.wire else None) or shape,
            )
        )
        base_url, cloud, wire = placed.base_url, placed.cloud, placed.wire or wire
    if not base_url:
        raise ProviderError(
            "invalid_request",
            f"{spec.id} needs a base URL: set {(spec.base_url_env or spec.base_url_vars)[0]} or "
            f"providers.{spec.id}.base_url in settings",
            retryable=False,
        )
    found = key_from_env(spec, environ)
    key = found[1] if found else stored_key
    if not key and spec.key_required:
        raise missing_key_error(spec)
    headers = dict(spec.headers)
    if settings is not None:
        headers.update(settings.headers)
    return Target(
        provider=spec.id,
        wire=wire,
        base_url=base_url,
        model=model,
        auth=spec.auth,
        api_key=Secret(key) if key else None,
        info=info,
        headers=headers,
        cloud=cloud,
    )


__all__ = [
    "CLOUD_PROVIDERS",
    "PROVIDERS",
    "ProviderSettings",
    "ProviderSpec",
    "UnknownProviderError",
    "base_url_for",
    "credential_vars",
    "get_provider",
    "is_credential_var",
    "key_from_env",
    "key_variables",
    "missing_key_error",
    "provider_ids",
    "resolve_target",
    "suggest_providers",
    "wire_for",
]
