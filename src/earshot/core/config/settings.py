"""Settings from three scopes, read in order and merged: user, project, local.

::

    user     $XDG_CONFIG_HOME/earshot/settings.json   (~/.config/earshot/settings.json)
    project  <project>/.earshot/settings.json          (checked in)
    local    <project>/.earshot/settings.local.json    (git-ignored by convention)

``<project>`` is the nearest directory at or above the cwd holding ``.earshot/`` or
``.git``, else the cwd. A later scope overrides an earlier one's scalar values (``model``,
a provider's ``base_url``) and merges into its objects (headers, model overrides). API keys
are never read from settings.

A malformed file, or a known field of the wrong type, is a ``SettingsError`` naming the file
(and line and column, or the field) and the fix; nothing is written back. Unknown top-level
fields are kept for the features that read them.

Environment variables named here override every file: ``EARSHOT_MAX_RETRIES`` (``maxRetries``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from earshot._base.dirs import config_dir, project_root
from earshot._base.errors import UserError
from earshot._base.jsonfile import JSONFileError, load_json_object
from earshot.providers.effort import EffortLevel, parse_effort
from earshot.providers.models import WIRE_NAMES, WireName
from earshot.providers.registry import ProviderSettings
from earshot.providers.retry import MAX_RETRIES
from earshot.providers.types import JSONObject, JSONValue

MAX_DEPTH = 5
"""The deepest ``subagentDepth``: each level can multiply the calls (and the cost)."""


class SettingsError(UserError):
    """A settings file earshot cannot use; ``str()`` names the file and what is wrong."""


@dataclass(frozen=True)
class SettingsFile:
    scope: str
    path: Path
    data: JSONObject


@dataclass
class Settings:
    files: list[SettingsFile] = field(default_factory=list)
    model: str | None = None
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    models: dict[str, dict[str, JSONObject]] = field(default_factory=dict)
    undo_max_file_bytes: int | None = None
    verify: list[str] = field(default_factory=list)
    verify_rounds: int = 3
    max_budget_usd: float | None = None
    idle_timeout_ms: int | None = None
    pass_env: list[str] = field(default_factory=list)
    max_retries: int | None = None
    """Retries of a failed model call (``maxRetries``, then ``EARSHOT_MAX_RETRIES``); None
    means the retry policy's default."""
    reasoning_effort: EffortLevel | None = None
    model_efforts: dict[str, EffortLevel] = field(default_factory=dict)
    """``reasoningEffort`` per ``provider/model`` (from ``models.<provider>.<model>``)."""
    subagent_depth: int = 1
    """How deep subagents may nest (``subagentDepth``): 1, children cannot start children;
    0, no ``task`` tool at all."""

    def provider(self, provider_id: str) -> ProviderSettings | None:
        return self.providers.get(provider_id)


def git_tracked(path: Path) -> bool:
    """Whether git tracks ``path`` (a "local" file that was committed arrives with a clone
    like any other). False when git is missing or ``path`` is not in a work tree."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "--error-unmatch", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def settings_paths(cwd: Path) -> list[tuple[str, Path]]:
    root = project_root(cwd)
    return [
        ("user", config_dir() / "settings.json"),
        ("project", root / ".earshot" / "settings.json"),
        ("local", root / ".earshot" / "settings.local.json"),
    ]


def _fail(path: Path, where: str, message: str) -> SettingsError:
    return SettingsError(f"{path}: {where}: {message}")


def _str_map(value: JSONValue, path: Path, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _fail(path, where, "must be an object of strings")
    return {k: v for k, v in value.items() if isinstance(v, str)}


def _wire(entry: JSONObject, path: Path, where: str) -> WireName:
    value = entry.get("wire")
    for name in WIRE_NAMES:
        if value == name:
            return name
    raise _fail(path, f'{where[:-1]}.wire"', f"must be one of {', '.join(WIRE_NAMES)}")


def _merge(settings: Settings, source: SettingsFile) -> None:
    path, data = source.path, source.data
    if "model" in data:
        model = data["model"]
        if not isinstance(model, str) or "/" not in model:
            raise _fail(path, '"model"', 'must be a string "provider/model"')
        settings.model = model
    providers = data.get("providers", {})
    if not isinstance(providers, dict):
        raise _fail(path, '"providers"', "must be an object keyed by provider id")
    for pid, entry in providers.items():
        where = f'"providers.{pid}"'
        if not isinstance(entry, dict):
            raise _fail(path, where, "must be an object")
        for key in entry:
            if key in ("api_key", "apiKey", "key"):
                raise _fail(
                    path,
                    f"{where}.{key}",
                    f"API keys are not read from settings; use an env var or "
                    f"`earshot auth login {pid}`",
                )
        base_url = entry.get("base_url")
        if base_url is not None and not isinstance(base_url, str):
            raise _fail(path, f"{where}.base_url", "must be a string URL")
        headers = _str_map(entry.get("headers", {}), path, f"{where}.headers")
        api_version = entry.get("api_version")
        if api_version is not None and not isinstance(api_version, str):
            raise _fail(path, f"{where}.api_version", 'must be a string such as "2024-10-21"')
        deployments = _str_map(entry.get("deployments", {}), path, f"{where}.deployments")
        wire = _wire(entry, path, where) if "wire" in entry else None
        previous = settings.providers.get(pid, ProviderSettings())
        settings.providers[pid] = ProviderSettings(
            base_url=base_url if base_url is not None else previous.base_url,
            headers={**previous.headers, **headers},
            api_version=api_version if api_version is not None else previous.api_version,
            deployments={**previous.deployments, **deployments},
            wire=wire or previous.wire,
        )
    if "verify" in data:
        checks = data["verify"]
        if not isinstance(checks, list) or not all(isinstance(c, str) and c for c in checks):
            raise _fail(path, '"verify"', 'must be a list of commands, e.g. ["pytest -q"]')
        settings.verify = [c for c in checks if isinstance(c, str)]
    if "verifyRounds" in data:
        rounds = data["verifyRounds"]
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
            raise _fail(path, '"verifyRounds"', "must be a whole number, 1 or more")
        settings.verify_rounds = rounds
    if "reasoningEffort" in data:
        settings.reasoning_effort = _effort(data["reasoningEffort"], path, '"reasoningEffort"')
    if "maxBudgetUsd" in data:
        budget = data["maxBudgetUsd"]
        if not isinstance(budget, int | float) or isinstance(budget, bool) or budget <= 0:
            raise _fail(path, '"maxBudgetUsd"', "must be a number of US dollars above 0")
        settings.max_budget_usd = float(budget)
    if "idleTimeoutMs" in data:
        idle = data["idleTimeoutMs"]
        if not isinstance(idle, int) or isinstance(idle, bool) or idle <= 0:
            raise _fail(
                path,
                '"idleTimeoutMs"',
                "must be a whole number of milliseconds above 0, e.g. 120000 for two minutes",
            )
        settings.idle_timeout_ms = idle
    if "passEnv" in data:
        if source.scope == "project":
            raise _fail(
                path,
                '"passEnv"',
                "is read only from your own settings (the user settings or "
                ".earshot/settings.local.json), never from a checked-in project file, so a "
                "repository cannot hand your credentials to commands",
            )
        names = data["passEnv"]
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise _fail(
                path,
                '"passEnv"',
                'must be a list of environment variable names, e.g. ["GITHUB_TOKEN"]',
            )
        settings.pass_env = [*settings.pass_env, *(n for n in names if isinstance(n, str))]
    if "maxRetries" in data:
        retries = data["maxRetries"]
        settings.max_retries = _retries(retries, lambda m: _fail(path, '"maxRetries"', m))
    if "subagentDepth" in data:
        depth = data["subagentDepth"]
        if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= MAX_DEPTH:
            raise _fail(
                path,
                '"subagentDepth"',
                f"must be a whole number from 0 to {MAX_DEPTH} (1: subagents cannot start "
                "their own; 0: no subagents)",
            )
        settings.subagent_depth = depth
    undo = data.get("undo", {})
    if not isinstance(undo, dict):
        raise _fail(path, '"undo"', 'must be an object such as {"maxFileBytes": 10485760}')
    if "maxFileBytes" in undo:
        limit = undo["maxFileBytes"]
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise _fail(path, '"undo.maxFileBytes"', "must be a whole number of bytes (0 or more)")
        settings.undo_max_file_bytes = limit
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise _fail(path, '"models"', "must be an object: provider -> model id -> fields")
    for pid, entries in models.items():
        if not isinstance(entries, dict):
            raise _fail(path, f'"models.{pid}"', "must be an object keyed by model id")
        for model_id, fields in entries.items():
            where = f'"models.{pid}.{model_id}'
            if not isinstance(fields, dict):
                raise _fail(path, f'{where}"', "must be an object of fields")
            if "wire" in fields:
                _wire(fields, path, f'{where}"')
            fields = dict(fields)
            if "reasoningEffort" in fields:
                effort = _effort(fields.pop("reasoningEffort"), path, f'{where}.reasoningEffort"')
                settings.model_efforts[f"{pid}/{model_id}"] = effort
            if fields:  # catalog overrides; an entry holding only an effort overrides nothing
                merged = settings.models.setdefault(pid, {})
                merged[model_id] = {**merged.get(model_id, {}), **fields}


def _effort(value: JSONValue, path: Path, where: str) -> EffortLevel:
    if not isinstance(value, str):
        raise _fail(path, where, "must be one of off, low, medium, high, max")
    try:
        return parse_effort(value, where=where)
    except ValueError as exc:
        raise _fail(
            path, where, f"must be one of off, low, medium, high, max, not {value!r}"
        ) from exc


def _retries(value: JSONValue, fail: Callable[[str], SettingsError]) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_RETRIES:
        raise fail(f"must be a whole number from 0 to {MAX_RETRIES} (retries after the first try)")
    return value


def _env_retries(environ: Mapping[str, str]) -> int | None:
    raw = environ.get("EARSHOT_MAX_RETRIES", "").strip()
    if not raw:
        return None
    try:
        value: JSONValue = int(raw)
    except ValueError:
        value = raw
    return _retries(value, lambda m: SettingsError(f"EARSHOT_MAX_RETRIES={raw!r}: {m}"))


def load_settings(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """The merged settings for ``cwd``, then the environment's overrides
    (``EARSHOT_MAX_RETRIES``); ``SettingsError`` for a file or value that cannot be used."""
    settings = Settings()
    for scope, path in settings_paths(cwd or Path.cwd()):
        try:
            data = load_json_object(path)
        except JSONFileError as exc:
            raise SettingsError(str(exc)) from exc
        if data is None:
            continue
        source = SettingsFile(scope, path, data)
        _merge(settings, source)
        settings.files.append(source)
    retries = _env_retries(os.environ if env is None else env)
    if retries is not None:
        settings.max_retries = retries
    return settings


__all__ = [
    "Settings",
    "SettingsError",
    "SettingsFile",
    "git_tracked",
    "load_settings",
    "project_root",
]
