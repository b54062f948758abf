"""``earshot auth login|logout|status``. A key is read without echo (or from stdin when it
is not a terminal, for scripts) and is never printed, logged or put in an error message."""

from __future__ import annotations

import getpass
import os
import sys

import msgspec

from earshot.providers.auth import AuthStore
from earshot.providers.registry import PROVIDERS, get_provider, key_from_env


def _read_key(provider: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"API key for {provider} (input hidden): ")
    return sys.stdin.readline()


def login(provider: str) -> int:
    spec = get_provider(provider)
    key = _read_key(spec.id).strip()
    if not key:
        sys.stderr.write("earshot: no key given; nothing stored\n")
        return 2
    store = AuthStore()
    store.set(spec.id, key)
    sys.stdout.write(f"stored the {spec.name} key in {store.path}\n")
    found = key_from_env(spec, os.environ)
    if found is not None:
        sys.stdout.write(f"note: {found[0]} is set and takes precedence over the stored key\n")
    return 0


def logout(provider: str) -> int:
    spec = get_provider(provider)
    store = AuthStore()
    if store.remove(spec.id):
        sys.stdout.write(f"removed the stored {spec.name} key\n")
    else:
        sys.stdout.write(f"no stored key for {spec.id}\n")
    return 0


def status(*, as_json: bool) -> int:
    stored = set(AuthStore().providers())
    rows: list[dict[str, str | bool]] = []
    for spec in PROVIDERS:
        found = key_from_env(spec, os.environ)
        if found is not None:
            source = f"env {found[0]}"
        elif spec.id in stored:
            source = "auth.json"
        elif not spec.key_required:
            source = "not needed"
        else:
            source = "missing"
        rows.append(
            {"id": spec.id, "key_set": source not in ("missing", "not needed"), "source": source}
        )
    if as_json:
        sys.stdout.write(msgspec.json.encode(rows).decode() + "\n")
    else:
        width = max(len(spec.id) for spec in PROVIDERS) + 2
        for row in rows:
            sys.stdout.write(f"{str(row['id']).ljust(width)}{row['source']}\n")
    return 0
