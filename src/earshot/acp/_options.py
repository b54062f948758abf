"""What an editor may switch in a session: permission modes, the model, slash commands.

::

    mode_state(mode)          earshot's five permission modes as ACP session modes
    model_option(ref, refs)   the model as a select config option (category "model"), the
                              choices from ``AgentSession.model_choices``
    effort_option(choice)     the reasoning effort as a select config option (category
                              "thought_level"): off, low, medium, high, max
    available_commands()      the session's commands offered to editors (``everywhere``)

A mode is the person's choice in the editor, the same as ``--permission-mode``: deny rules
still win in every mode, and a mode never restores a permission an earlier session granted.
"""

from __future__ import annotations

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
)

from earshot.core.agent_session import AgentSession
from earshot.core.commands import table
from earshot.core.permissions import MODES, Mode
from earshot.providers.effort import EFFORT_LEVELS, EffortChoice

MODE_TEXT: dict[Mode, tuple[str, str]] = {
    "plan": ("Plan", "Read and plan only: every change is refused"),
    "ask": ("Ask", "Ask before every change and command no allow rule covers"),
    "accept-edits": ("Accept edits", "File edits in the project go ahead; commands ask"),
    "auto": ("Auto", "Changes go ahead unless an ask rule asks; outside the project asks"),
    "yolo": ("YOLO", "Everything goes ahead except what a deny rule forbids"),
}
MODEL_OPTION = "model"
EFFORT_OPTION = "effort"


def available_commands(session: AgentSession | None = None) -> list[AvailableCommand]:
    """The session's commands that work in an editor, as ACP announces them (with a
    session: its command files and skills too)."""
    return [
        AvailableCommand(
            name=c.name,
            description=c.about,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=c.hint))
            if c.hint
            else None,
        )
        for c in table(session).values()
        if c.everywhere
    ]


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


def mode_state(mode: Mode) -> SessionModeState:
    return SessionModeState(
        current_mode_id=mode,
        available_modes=[
            SessionMode(id=m, name=MODE_TEXT[m][0], description=MODE_TEXT[m][1]) for m in MODES
        ],
    )


def model_option(current: str, refs: list[str]) -> SessionConfigOptionSelect:
    """The model as a select option; ``refs`` are the choices (``model_choices()``)."""
    return SessionConfigOptionSelect(
        type="select",
        id=MODEL_OPTION,
        name="Model",
        category="model",
        current_value=current,
        options=[SessionConfigSelectOption(value=ref, name=ref) for ref in refs],
    )


__all__ = [
    "EFFORT_OPTION",
    "MODEL_OPTION",
    "MODE_TEXT",
    "available_commands",
    "effort_option",
    "mode_state",
    "model_option",
]
