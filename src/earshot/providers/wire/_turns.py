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

Each request carries the whole history, and most of it is the same objects as the last
request's (the loop keeps shaped messages between requests): ``KeptBlocks`` remembers each
part's block, keyed by the part object itself (kept with it, so its ``id`` is never
another's), so a step builds the blocks of its new parts only. A block is never changed
after it is built (a cache breakpoint is added to a copy).
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


class KeptBlocks:
    """Blocks built for parts, per wire and provider (see the module docstring). Forgets
    everything past ``limit`` entries, so parts of ended sessions do not pile up."""

    def __init__(self, limit: int = 50_000) -> None:
        self._limit = limit
        self._blocks: dict[tuple[int, bool, str], tuple[Part, JSONObject | None]] = {}

    def block(self, part: Part, system: bool, provider: str, build: BlockFn) -> JSONObject | None:
        key = (id(part), system, provider)
        found = self._blocks.get(key)
        if found is not None and found[0] is part:
            return found[1]
        built = build(part, system)
        if len(self._blocks) >= self._limit:
            self._blocks.clear()
        self._blocks[key] = (part, built)
        return built


def merge_turns(
    messages: Sequence[Message],
    block: BlockFn,
    kept: KeptBlocks | None = None,
    provider: str = "",
) -> list[WireTurn]:
    """The turns of ``messages`` (see the module docstring); with ``kept``, a part's block
    is built once for ``provider``."""
    turns: list[_Building] = []
    for message in messages:
        role: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
        turn = turns[-1] if turns and turns[-1].role == role else _Building(role)
        for part in message.parts:
            if isinstance(part, ReasoningPart) and role != "assistant":
                continue
            system = message.role == "system"
            built = (
                block(part, system) if kept is None else kept.block(part, system, provider, block)
            )
            if built is not None:
                leads = isinstance(part, ReasoningPart | ToolResultPart)
                (turn.first if leads else turn.rest).append(built)
        if (turn.first or turn.rest) and (not turns or turns[-1] is not turn):
            turns.append(turn)
    return [WireTurn(turn.role, turn.first + turn.rest) for turn in turns]


__all__ = ["BlockFn", "KeptBlocks", "WireTurn", "merge_turns", "system_text"]
