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


_Blocks = tuple[list[JSONObject], list[JSONObject]]
"""A message's blocks: those that lead its turn, then the others."""


class KeptBlocks:
    """The blocks of messages, per wire and provider, keyed by the message object (see the
    module docstring). Forgets everything past ``limit`` entries, so the messages of ended
    sessions do not pile up."""

    def __init__(self, limit: int = 20_000) -> None:
        self._limit = limit
        self._kept: dict[tuple[int, str], tuple[Message, _Blocks]] = {}

    def blocks(self, message: Message, provider: str, block: BlockFn) -> _Blocks:
        key = (id(message), provider)
        found = self._kept.get(key)
        if found is not None and found[0] is message:
            return found[1]
        built = _blocks(message, block)
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[key] = (message, built)
        return built


def _blocks(message: Message, block: BlockFn) -> _Blocks:
    first: list[JSONObject] = []
    rest: list[JSONObject] = []
    assistant = message.role == "assistant"
    system = message.role == "system"
    for part in message.parts:
        if isinstance(part, ReasoningPart) and not assistant:
            continue
        built = block(part, system)
        if built is not None:
            leads = isinstance(part, ReasoningPart | ToolResultPart)
            (first if leads else rest).append(built)
    return first, rest


def merge_turns(
    messages: Sequence[Message],
    block: BlockFn,
    kept: KeptBlocks | None = None,
    provider: str = "",
) -> list[WireTurn]:
    """The turns of ``messages`` (see the module docstring); with ``kept``, a message's
    blocks are built once for ``provider``."""
    turns: list[_Building] = []
    for message in messages:
        role: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
        first, rest = (
            _blocks(message, block) if kept is None else kept.blocks(message, provider, block)
        )
        if not first and not rest:
            continue
        if turns and turns[-1].role == role:
            turns[-1].first.extend(first)
            turns[-1].rest.extend(rest)
        else:
            turns.append(_Building(role, list(first), list(rest)))
    return [WireTurn(turn.role, turn.first + turn.rest) for turn in turns]


__all__ = ["BlockFn", "KeptBlocks", "WireTurn", "merge_turns", "system_text"]
