"""Stored API keys: ``$XDG_CONFIG_HOME/earshot/auth.json`` (default ``~/.config/earshot``).

Shape: ``{"version": 1, "keys": {"<provider id>": {"type": "api_key", "key": "..."}}}``.

The file is created with mode 0600 and rewritten atomically; a malformed file is an error
naming the file, line and column, and is never overwritten by ``set``/``remove`` (the user
fixes or deletes it). Keys leave this module only as ``str`` to ``resolve_target``, which
wraps them in ``Secret``; nothing here prints or logs a key.
"""

from __future__ import annotations

from pathlib import Path

from earshot._base.dirs import config_dir
from earshot._base.jsonfile import JSONFileError, load_json_object, write_json_atomic
from earshot.providers.types import JSONObject, JSONValue

FORMAT_VERSION = 1


def auth_path() -> Path:
    return config_dir() / "auth.json"


class AuthStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or auth_path()

    def _read(self) -> JSONObject:
        data = load_json_object(self.path)
        if data is None:
            return {"version": FORMAT_VERSION, "keys": {}}
        keys = data.get("keys", {})
        if not isinstance(keys, dict):
            raise JSONFileError(self.path, '"keys" must be an object of provider ids')
        for provider, entry in keys.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
                raise JSONFileError(
                    self.path, f'"keys.{provider}" must be an object with a string "key"'
                )
        return data

    def _keys(self, data: JSONObject) -> dict[str, JSONValue]:
        keys = data.get("keys")
        return keys if isinstance(keys, dict) else {}

    def get(self, provider: str) -> str | None:
        entry = self._keys(self._read()).get(provider)
        if isinstance(entry, dict):
            key = entry.get("key")
            return key if isinstance(key, str) and key else None
        return None

    def providers(self) -> list[str]:
        return sorted(self._keys(self._read()))

    def set(self, provider: str, key: str) -> None:
        data = self._read()
        keys = self._keys(data)
        keys[provider] = {"type": "api_key", "key": key}
        data["keys"] = keys
        data["version"] = FORMAT_VERSION
        write_json_atomic(self.path, data, mode=0o600)

    def remove(self, provider: str) -> bool:
        data = self._read()
        keys = self._keys(data)
        if provider not in keys:
            return False
        del keys[provider]
        data["keys"] = keys
        write_json_atomic(self.path, data, mode=0o600)
        return True


__all__ = ["FORMAT_VERSION", "AuthStore", "auth_path"]
