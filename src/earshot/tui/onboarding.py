"""First run with no usable provider: say what was found, how to add a key, and let the
user pick a model from the catalog.

Shown only when no model was named and no provider has a key. Returns the chosen
``provider/model`` (the session then starts with it, and fails with the usual message
naming the env var if that provider still has no key), or None when the user leaves.
"""

from __future__ import annotations

import os
import sys

from earshot.core.config.options import SessionOptions
from earshot.core.config.settings import load_settings
from earshot.core.config.targets import DEFAULT_MODELS, load_catalog
from earshot.providers.auth import AuthStore
from earshot.providers.registry import PROVIDERS, key_from_env


def providers_found() -> list[str]:
    """Providers with a key in the environment or in earshot's auth store."""
    stored = set(AuthStore().providers())
    return [
        spec.id
        for spec in PROVIDERS
        if key_from_env(spec, os.environ) is not None or spec.id in stored
    ]


def welcome_text(found: list[str]) -> str:
    lines = ["Welcome to earshot.", ""]
    if found:
        lines.append("Providers with a key: " + ", ".join(found))
    else:
        lines.append("No provider key was found in the environment or in earshot's auth store.")
    examples = ", ".join(f"{s.env[0]}" for s in PROVIDERS[:4] if s.env)
    lines += [
        f"Add one by setting its variable ({examples}, ...), or run",
        "  earshot auth login PROVIDER",
        "in another shell. Local servers (ollama, lmstudio) need no key.",
        "",
        "Pick a model to start with (Tab completes; an empty line leaves):",
    ]
    return "\n".join(lines) + "\n"


async def onboard(options: SessionOptions) -> str | None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import FuzzyWordCompleter

    found = providers_found()
    sys.stdout.write(welcome_text(found))
    sys.stdout.flush()
    catalog = load_catalog(load_settings(options.cwd))
    refs = catalog.refs()
    suggested = [f"{p}/{DEFAULT_MODELS[p]}" for p in found if p in DEFAULT_MODELS]
    session: PromptSession[str] = PromptSession(
        completer=FuzzyWordCompleter([*suggested, *refs]), complete_while_typing=True
    )
    default = suggested[0] if suggested else ""
    while True:
        try:
            answer = (await session.prompt_async("model › ", default=default)).strip()
        except (EOFError, KeyboardInterrupt):
            return None
        if not answer:
            return None
        if "/" in answer:
            return answer
        sys.stdout.write("a model is written provider/model, e.g. anthropic/claude-sonnet-4-6\n")


__all__ = ["onboard", "providers_found", "welcome_text"]
