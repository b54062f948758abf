"""Context shapers: what of the history goes into the next request, cheapest first.

::

    1. cap      every tool result to ``max_result_chars`` (head and tail kept, a marker
                names what was cut and how to see it)
    2. prune    tool results older than ``prune_after`` user turns become one-line stubs
    3. compact  at ``compact_at`` of the window: a model-written summary with fixed sections
                plus the last ``keep_turns`` user turns verbatim (see ``Compactor``)

Shapers 1 and 2 are pure and run on a copy before every model call; the history and the
transcript keep every result in full. Compaction is the one shaper that changes what later
requests start from: it appends a cut and a preamble to the transcript (history is never
rewritten), so a resumed session rebuilds exactly the same request.

Token counts are estimates (about four characters a token), scaled up by the ratio the
provider last reported for a request we had estimated, never scaled down: the estimate may
overshoot, it must not undershoot and overflow the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import anyio
import httpx
import msgspec

from earshot.providers import types as pt
from earshot.providers.http import Timeouts
from earshot.providers.retry import RetryPolicy
from earshot.providers.stream import stream
from earshot.providers.target import Target


@dataclass(frozen=True, kw_only=True)
class ContextPolicy:
    max_result_chars: int = 40_000
    prune_after: int = 6
    compact_at: float = 0.8
    keep_turns: int = 2
    user_share: float = 0.15
    default_window: int = 128_000


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    lines = text.count("\n", head, len(text) - tail)
    marker = (
        f"\n[... {cut:,} characters ({lines:,} lines) cut from this tool result; the full "
        "output is in the session transcript: run the tool again with a narrower range "
        "to see it ...]\n"
    )
    return text[:head] + marker + text[len(text) - tail :]


def _user_turn_starts(messages: Sequence[pt.Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.role == "user" and _is_typed(m)]


def _is_typed(message: pt.Message) -> bool:
    """A message a person typed (not a preamble or an injected image note)."""
    return any(isinstance(p, pt.TextPart) for p in message.parts)


def shape(messages: Sequence[pt.Message], policy: ContextPolicy) -> list[pt.Message]:
    """Shapers 1 and 2 over a copy: capped results, old results pruned to stubs."""
    starts = _user_turn_starts(messages)
    old_before = starts[-policy.prune_after] if len(starts) >= policy.prune_after else 0
    shaped: list[pt.Message] = []
    for index, message in enumerate(messages):
        if message.role != "tool":
            shaped.append(message)
            continue
        parts: list[pt.Part] = []
        for part in message.parts:
            if not isinstance(part, pt.ToolResultPart):
                parts.append(part)
                continue
            if index < old_before:
                size = sum(len(c.text) for c in part.content if isinstance(c, pt.TextPart))
                stub = (
                    f"[{part.name} result from an earlier turn, {size:,} characters, pruned "
                    "to save context; run the tool again if it is still needed]"
                )
                content: list[pt.ToolResultContent] = [pt.TextPart(text=stub)]
            else:
                content = [
                    pt.TextPart(
                        text=_cap(c.text, policy.max_result_chars),
                        provider_metadata=c.provider_metadata,
                    )
                    if isinstance(c, pt.TextPart)
                    else c
                    for c in part.content
                ]
            parts.append(
                pt.ToolResultPart(
                    call_id=part.call_id,
                    name=part.name,
                    content=content,
                    is_error=part.is_error,
                    provider_metadata=part.provider_metadata,
                )
            )
        shaped.append(pt.Message(role="tool", parts=parts))
    return shaped


# --- token estimates ------------------------------------------------------------------------

_IMAGE_TOKENS = 1_600


def estimate(
    messages: Sequence[pt.Message], *, system: str = "", tools: Sequence[pt.ToolSpec] = ()
) -> int:
    """A rough token count of a request (about four characters a token)."""
    chars = len(system)
    for spec in tools:
        chars += (
            len(spec.name) + len(spec.description) + len(msgspec.json.encode(spec.input_schema))
        )
    images = 0
    for message in messages:
        for part in message.parts:
            if isinstance(part, pt.TextPart | pt.ReasoningPart):
                chars += len(part.text)
            elif isinstance(part, pt.ImagePart):
                images += 1
            elif isinstance(part, pt.ToolCallPart):
                chars += len(part.name) + len(msgspec.json.encode(part.input))
            elif isinstance(part, pt.ToolResultPart):
                for item in part.content:
                    if isinstance(item, pt.TextPart):
                        chars += len(item.text)
                    else:
                        images += 1
        chars += 8
    return (chars + 3) // 4 + images * _IMAGE_TOKENS


@dataclass
class TokenGauge:
    """Estimates corrected by what the provider reported: ``ratio`` only grows past 1."""

    ratio: float = 1.0
    last_estimate: int = 0

    def measure(self, estimated: int) -> int:
        self.last_estimate = estimated
        return int(estimated * self.ratio)

    def observe(self, usage: pt.Usage) -> None:
        reported = usage.prompt_total
        if self.last_estimate > 0 and reported > 0:
            self.ratio = max(1.0, reported / self.last_estimate)


# --- compaction -----------------------------------------------------------------------------

SUMMARY_INSTRUCTIONS = """\
Summarise this coding session so that it can continue from your summary alone. Write these \
sections, each a short list, and nothing else:

## Goal and instructions
The user's goal and every explicit instruction or constraint they gave, in their words where \
it matters.
## Decisions
Decisions made and why.
## Files
Files read, created or changed, with what changed.
## Open work
Open todos and anything promised but not done.
## Current step
What was being done when this summary was written, and the next step."""


@dataclass(frozen=True)
class CompactionPlan:
    """Which messages are summarised, and which stay verbatim after the cut."""

    summarised: list[pt.Message]
    kept_from: int  # index in the history of the first message kept verbatim
    user_messages: list[str]


def plan_compaction(
    history: Sequence[pt.Message], policy: ContextPolicy, window: int
) -> CompactionPlan | None:
    """The cut: keep the last ``keep_turns`` user turns verbatim; None when there is
    nothing older to summarise."""
    starts = _user_turn_starts(history)
    if len(starts) <= policy.keep_turns:
        return None
    kept_from = starts[-policy.keep_turns] if policy.keep_turns > 0 else len(history)
    summarised = list(history[:kept_from])
    budget = int(window * policy.user_share) * 4  # characters
    typed = [pt.text_of(m) for m in summarised if m.role == "user" and _is_typed(m)]
    kept: list[str] = []
    used = 0
    for text in reversed(typed):
        if used + len(text) > budget:
            break
        kept.append(text)
        used += len(text)
    kept.reverse()
    elided = len(typed) - len(kept)
    if elided:
        kept.insert(0, f"[{elided} earlier message(s) from the user elided to fit the context]")
    return CompactionPlan(summarised=summarised, kept_from=kept_from, user_messages=kept)


def preamble(summary: str, plan: CompactionPlan, todos: Sequence[str]) -> list[pt.Message]:
    """The messages that stand in for everything before the cut."""
    sections = [
        "This session was compacted to fit the model's context window. What came before:",
        summary.strip(),
    ]
    if plan.user_messages:
        quoted = "\n\n".join(f"> {text}".replace("\n", "\n> ") for text in plan.user_messages)
        sections.append("What the user wrote, verbatim:\n\n" + quoted)
    if todos:
        sections.append("Open todos:\n" + "\n".join(f"- {t}" for t in todos))
    return [
        pt.Message(role="user", parts=[pt.TextPart(text="\n\n".join(sections))]),
        pt.Message(
            role="assistant",
            parts=[pt.TextPart(text="Understood. I will continue from this summary.")],
        ),
    ]


SUMMARY_SYSTEM = "You write precise, complete summaries of coding sessions for handover."


async def summarise(
    plan: CompactionPlan,
    *,
    target: Target,
    tools: Sequence[pt.ToolSpec],
    policy: ContextPolicy,
    window: int,
    focus: str,
    abort: anyio.Event,
    client: httpx.AsyncClient | None,
    retry: RetryPolicy | None,
    timeouts: Timeouts | None = None,
) -> tuple[str, pt.Usage | None, str]:
    """Ask the model for the summary: ``(summary, usage, error)``; ``summary`` is empty and
    ``error`` says why when the call failed. The messages summarised are shaped and, if
    still too large, trimmed from the oldest user turn on (their words survive verbatim in
    the preamble anyway)."""
    messages = shape(plan.summarised, policy)
    limit = int(window * 0.7)
    while estimate(messages, tools=tools) > limit:
        starts = _user_turn_starts(messages)
        if len(starts) < 2:
            break
        messages = messages[starts[1] :]
    ask = SUMMARY_INSTRUCTIONS + (f"\n\nFocus especially on: {focus}" if focus.strip() else "")
    messages.append(pt.Message(role="user", parts=[pt.TextPart(text=ask)]))
    request = pt.ModelRequest(
        model=target.model,
        system=SUMMARY_SYSTEM,
        messages=messages,
        tools=list(tools),
        tool_choice="none",
        abort=abort,
    )
    async for event in stream(request, target, client=client, retry=retry, timeouts=timeouts):
        if isinstance(event, pt.Finish):
            text = pt.text_of(event.message)
            if event.reason == "aborted":
                return "", event.usage, "interrupted"
            return text, event.usage, "" if text.strip() else "the model wrote no summary"
        if isinstance(event, pt.ErrorEvent):
            return "", None, event.message
    return "", None, "the summary call ended without an answer"


__all__ = [
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_SYSTEM",
    "CompactionPlan",
    "ContextPolicy",
    "TokenGauge",
    "estimate",
    "plan_compaction",
    "preamble",
    "shape",
    "summarise",
]
