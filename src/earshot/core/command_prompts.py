"""The prompts slash commands send as the user's message (``/init``'s), and how a
session started by one is titled: by the command, not by the prompt's first words.

Kept apart from ``commands`` (which imports the session machinery) so the session listing
can name them without importing it.
"""

from __future__ import annotations

INIT_PROMPT = (
    "Look at this repository (its layout, build and test commands, conventions, and any "
    "existing README or contributor notes) and write a concise AGENTS.md at its root for "
    "coding agents and people working on it: how to build, test and lint, the layout, and "
    "the do's and don'ts you can infer. If AGENTS.md exists, improve it instead."
)

_SENT_BY: dict[str, str] = {INIT_PROMPT: "/init"}
_ALSO = "\n\nAlso: "


def command_title(text: str) -> str | None:
    """``/init`` (``/init ARG`` when it was given one) for a message a command sent, else
    None."""
    for prompt, command in _SENT_BY.items():
        if text.startswith(prompt):
            rest = text[len(prompt) :]
            arg = rest[len(_ALSO) :].strip() if rest.startswith(_ALSO) else ""
            return f"{command} {arg}".strip()
    return None


def with_argument(prompt: str, arg: str) -> str:
    """A command's prompt with what the user added after the command."""
    return prompt + (f"{_ALSO}{arg}" if arg else "")


__all__ = ["INIT_PROMPT", "command_title", "with_argument"]
