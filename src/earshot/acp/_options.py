"""What an editor may switch in a session: permission modes, the model, slash commands.

::

    mode_state(mode)          earshot's five permission modes as ACP session modes
    model_option(ref, ...)    the model as a select config option (category "model"): the
                              current model, the settings' model, the default model of each
                              provider with a key, and the current provider's catalog models
    effort_option(choice)     the reasoning effort as a select config option (category
                              "thought_level"): off, low, medium, high, max
    COMMANDS / command(text)  the slash commands that work over ACP: /cost, /mode, /model,
                              /effort

A mode is the person's choice in the editor, the same as ``--permission-mode``: deny rules
still win in every mode, and a mode never restores a permission an earlier session granted.
"""

from __future__ import annotations

import os

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
)

from earshot.core.permissions import MODES, Mode
from earshot.core.settings import Settings
from earshot.core.targets import DEFAULT_MODELS
from earshot.providers.auth import AuthStore
from earshot.providers.catalog import ModelCatalog, parse_ref
from earshot.providers.effort import EFFORT_LEVELS, EffortChoice
from earshot.providers.registry import PROVIDERS, key_from_env

MODE_TEXT: dict[Mode, tuple[str, str]] = {
    "plan": ("Plan", "Read and plan only: every change is refused"),
    "ask": ("Ask", "Ask before every change and command no allow rule covers"),
    "accept-edits": ("Accept edits", "File edits in the project go ahead; commands ask"),
    "auto": ("Auto", "Changes go ahead unless an ask rule asks; outside the project asks"),
    "yolo": ("YOLO", "Everything goes ahead except what a deny rule forbids"),
}
MODEL_OPTION = "model"
EFFORT_OPTION = "effort"
MAX_CATALOG_MODELS = 40

COMMANDS = (
    AvailableCommand(name="cost", description="Tokens and USD spent in this session so far"),
    AvailableCommand(
        name="mode",
        description="Show or set the permission mode (" + ", ".join(MODES) + ")",
        input=AvailableCommandInput(root=UnstructuredCommandInput(hint="mode")),
    ),
    AvailableCommand(
        name="model",
        description="Show or switch the model for the next calls",
        input=AvailableCommandInput(root=UnstructuredCommandInput(hint="provider/model")),
    ),
    AvailableCommand(
        name="effort",
        description="Show or set the reasoning effort (off, low, medium, high, max)",
        input=AvailableCommandInput(root=UnstructuredCommandInput(hint="level")),
    ),
)


def mode_state(mode: Mode) -> SessionModeState:
    return SessionModeState(
        current_mode_id=mode,
        available_modes=[
            SessionMode(id=m, name=MODE_TEXT[m][0], description=MODE_TEXT[m][1]) for m in MODES
        ],
    )


def model_refs(current: str, settings: Settings, catalog: ModelCatalog) -> list[str]:
    refs = [current]
    if settings.model:
        refs.append(settings.model)
    stored = set(AuthStore().providers())
    for spec in PROVIDERS:
        if spec.id in DEFAULT_MODELS and (key_from_env(spec, os.environ) or spec.id in stored):
            refs.append(f"{spec.id}/{DEFAULT_MODELS[spec.id]}")
    provider, _ = parse_ref(current)
    models = sorted(catalog.models(provider), key=lambda info: info.id)
    refs += [f"{provider}/{info.id}" for info in models[:MAX_CATALOG_MODELS]]
    return list(dict.fromkeys(refs))


def model_option(
    current: str, settings: Settings, catalog: ModelCatalog
) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        type="select",
        id=MODEL_OPTION,
        name="Model",
        category="model",
        current_value=current,
        options=[
            SessionConfigSelectOption(value=ref, name=ref)
            for ref in model_refs(current, settings, catalog)
        ],
    )


def effort_option(choice: EffortChoice) -> SessionConfigOptionSelect:
    """The effort in force; ``description`` says what the model's wire is sent for it."""
    current = choice.level or "off"
    return SessionConfigOptionSelect(
        type="select",
        id=EFFORT_OPTION,
        name="Effort",
        category="thought_level",
        description=choice.summary,
        current_value=current,
        options=[
            SessionConfigSelectOption(value=level, name=level.capitalize())
            for level in EFFORT_LEVELS
        ],
    )


def command(text: str) -> tuple[str, str] | None:
    """``(name, argument)`` when ``text`` is one of ``COMMANDS``, else None (it goes to
    the model as typed)."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    if name not in {c.name for c in COMMANDS}:
        return None
    return name, argument.strip()


__all__ = [
    "COMMANDS",
    "EFFORT_OPTION",
    "MAX_CATALOG_MODELS",
    "MODEL_OPTION",
    "MODE_TEXT",
    "command",
    "effort_option",
    "mode_state",
    "model_option",
    "model_refs",
]
