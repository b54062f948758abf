"""Role merging for the wires whose history is alternating ``user``/``assistant`` turns of
content blocks (Anthropic Messages, Bedrock Converse). Each wire gives the block builder;
the merging is here once::

    merge_turns(messages, block) -> [WireTurn(role, blocks)]

- ``user`` and ``tool`` messages are ``user`` turns; ``assistant`` stays; a ``system``
  message is user content, and ``block`` is told to wrap its text (``system_text``: the
  APIs have no mid-conversation system role).
- Consecutive messages of one wire role merge into one turn. The leading blocks come
  first, each group in order of arrival: tool results lead a user turn (the APIs require
  them directly after the assistant turn that called them), reasoning leads an assistant
  turn. Reasoning in a user turn is dropped without asking ``block``.
- ``block`` returns None for a part its wire does not send (empty text, an image it cannot
  carry, another provider's reasoning); a turn left with no blocks is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from earshot.providers.types import JSONObject, Message, Part, ReasoningPart, ToolResultPart

BlockFn = Callable[[Part, bool], "JSONObject | None"]
"""A wire's block for a part (None: not sent); the flag: the part is a system message's."""


@dataclass(frozen=True)
class WireTurn:
    role: Literal["user", "assistant"]
    blocks: list[JSONObject]


@dataclass
class _Building:
    """A turn being merged: ``first`` the blocks that lead it, ``rest`` the others."""

    role: Literal["user", "assistant"]
    first: list[JSONObject] = field(default_factory=list)
    rest: list[JSONObject] = field(default_factory=list)


def system_text(text: str) -> str:
    """A mid-history system message's text, as user text."""
    return f"<system>\n{text}\n</system>"


def merge_turns(messages: Sequence[Message], block: BlockFn) -> list[WireTurn]:
    turns: list[_Building] = []
    for message in messages:
        role: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
        turn = turns[-1] if turns and turns[-1].role == role else _Building(role)
        for part in message.parts:
            if isinstance(part, ReasoningPart) and role != "assistant":
                continue
            built = block(part, message.role == "system")
            if built is not None:
                leads = isinstance(part, ReasoningPart | ToolResultPart)
                (turn.first if leads else turn.rest).append(built)
        if (turn.first or turn.rest) and (not turns or turns[-1] is not turn):
            turns.append(turn)
    return [WireTurn(turn.role, turn.first + turn.rest) for turn in turns]


__all__ = ["BlockFn", "WireTurn", "merge_turns", "system_text"]
