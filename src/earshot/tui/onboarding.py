"""First run with no usable provider: say what was found, let the user pick a model from
the catalog, and take its provider's key right there when it has none.

Shown only when no model was named and no provider has a key. Only providers earshot can
call are offered (``_pickers.callable_providers``); typing filters the models by any part
of their name (``anthropic/cl``, ``haiku``). A model whose provider has no key asks for
the key with hidden input and stores it as ``earshot auth login`` does (``auth.json``,
mode 0600); an empty key goes back to the model prompt with the other ways to add one.
Returns the chosen ``provider/model``, or None when the user leaves.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from earshot.core.config.options import SessionOptions
from earshot.core.config.settings import load_settings
from earshot.core.config.targets import DEFAULT_MODELS, load_catalog
from earshot.providers.auth import AuthStore
from earshot.providers.registry import PROVIDERS, get_provider, key_from_env
from earshot.tui._pickers import Choice, callable_providers, matches, model_choices


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
    lines += [
        "Pick a model to start with; if its provider has no key, paste the key next",
        "(it is stored like `earshot auth login PROVIDER` does). Typing filters the list,",
        "Tab completes, an empty line leaves.",
    ]
    return "\n".join(lines) + "\n"


class ModelCompleter(Completer):
    """Models whose name holds every word typed (``anthropic/cl`` and ``haiku`` both work)."""

    def __init__(self, choices: list[Choice]) -> None:
        self.choices = choices

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        typed = document.text_before_cursor
        for choice in matches(self.choices, typed)[:200]:
            yield Completion(choice.value, start_position=-len(typed), display_meta=choice.meta)


async def onboard(options: SessionOptions) -> str | None:
    from prompt_toolkit.shortcuts import PromptSession

    found = providers_found()
    sys.stdout.write(welcome_text(found))
    sys.stdout.flush()
    catalog = load_catalog(load_settings(options.cwd))
    suggested = [f"{p}/{DEFAULT_MODELS[p]}" for p in found if p in DEFAULT_MODELS]
    usable = callable_providers()
    defaults = [f"{p}/{DEFAULT_MODELS[p]}" for p in usable if p in DEFAULT_MODELS]
    choices = model_choices(catalog, [*suggested, *defaults])
    session: PromptSession[str] = PromptSession(
        completer=ModelCompleter(choices), complete_while_typing=True
    )
    default = suggested[0] if suggested else ""
    while True:
        try:
            answer = (await session.prompt_async("model › ", default=default)).strip()
        except (EOFError, KeyboardInterrupt):
            return None
        if not answer:
            return None
        if "/" not in answer:
            sys.stdout.write(
                "a model is written provider/model, e.g. anthropic/claude-sonnet-4-6\n"
            )
            continue
        provider = answer.partition("/")[0]
        if provider not in usable:
            sys.stdout.write(f"earshot cannot call {provider} yet; pick another provider\n")
            continue
        if usable[provider] or await _take_key(provider):
            return answer
        default = answer


async def _take_key(provider: str) -> bool:
    """Ask for ``provider``'s key (hidden) and store it; False when none was given."""
    from prompt_toolkit.shortcuts import PromptSession

    spec = get_provider(provider)
    variables = " or ".join(spec.env) or "its variable"
    prompt: PromptSession[str] = PromptSession()
    try:
        key = (
            await prompt.prompt_async(
                f"{spec.name} API key (hidden; Enter to skip) › ", is_password=True
            )
        ).strip()
    except (EOFError, KeyboardInterrupt):
        key = ""
    if not key:
        sys.stdout.write(
            f"no key given: set {variables}, or run `earshot auth login {provider}`, "
            "then start earshot again; or pick another model\n"
        )
        return False
    store = AuthStore()
    store.set(provider, key)
    sys.stdout.write(f"stored the {spec.name} key in {store.path}\n")
    return True


__all__ = ["ModelCompleter", "onboard", "providers_found", "welcome_text"]
