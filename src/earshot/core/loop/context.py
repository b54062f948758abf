"""Context shapers: what of the history goes into the next request, cheapest first.

::

    1. cap      every tool result to ``max_result_chars`` (head and tail kept, a marker
                names what was cut and how to see it); results more than
                ``cap_after_batches`` tool batches old to ``old_result_chars``
    2. prune    tool results older than ``prune_after`` user turns, or than
                ``prune_after_batches`` tool batches, become one-line stubs
    3. compact  at ``compact_at`` of the window: a model-written summary with fixed sections
                plus the last ``keep_turns`` user turns verbatim; when the current turn alone
                is too big (one prompt, many tool batches) the cut falls between its tool
                batches: what came before is summarised, its last ``keep_batches`` batches
                stay verbatim, and every typed prompt is quoted verbatim in the preamble

Age in tool batches moves in steps of ``batch_step`` batches, so the shaped prefix of the
request changes once every few calls rather than on every call (provider prompt caches
keep hitting).

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

import anyio
import msgspec

from earshot.core.loop.ports import ModelClient
from earshot.providers import types as pt
from earshot.providers.target import Target


class ContextPolicy(msgspec.Struct, frozen=True, kw_only=True):
    max_result_chars: int = 40_000
    prune_after: int = 6
    compact_at: float = 0.8
    keep_turns: int = 2
    user_share: float = 0.15
    default_window: int = 128_000
    cap_after_batches: int = 8
    old_result_chars: int = 8_000
    prune_after_batches: int = 24
    batch_step: int = 4
    keep_batches: int = 4
    kept_share: float = 0.5
    """A compaction cut keeps at most this share of the window verbatim."""


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


def _batch_line(batches: int, after: int, step: int) -> int:
    """How many of ``batches`` tool batches (oldest first) are older than ``after`` batches,
    rounded down to a multiple of ``step``."""
    old = batches - after
    return max(0, old - old % max(1, step))


class Kept(msgspec.Struct):
    """What ``shape`` and ``estimate`` worked out for each message, kept between the
    requests of a session (each request starts from the whole history): a tool message is
    shaped again only when its cap or its pruning changed, and a message is measured once.
    Entries are keyed by the message object, which is kept with them (its ``id`` stays
    its own); each call keeps only the messages it saw."""

    shaped: dict[int, tuple[pt.Message, int, bool, pt.Message]] = msgspec.field(
        default_factory=dict
    )
    sizes: dict[int, tuple[pt.Message, int, int]] = msgspec.field(default_factory=dict)
    specs: dict[int, tuple[pt.ToolSpec, int]] = msgspec.field(default_factory=dict)


def shape(
    messages: Sequence[pt.Message], policy: ContextPolicy, kept: Kept | None = None
) -> list[pt.Message]:
    """Shapers 1 and 2 over a copy: capped results (tighter for older batches), old
    results pruned to stubs (by typed turns and by tool batches)."""
    starts = _user_turn_starts(messages)
    old_before = starts[-policy.prune_after] if len(starts) >= policy.prune_after else 0
    batches = sum(1 for m in messages if m.role == "tool")
    prune_line = _batch_line(batches, policy.prune_after_batches, policy.batch_step)
    cap_line = _batch_line(batches, policy.cap_after_batches, policy.batch_step)
    shaped: list[pt.Message] = []
    seen: dict[int, tuple[pt.Message, int, bool, pt.Message]] = {}
    batch = -1
    for index, message in enumerate(messages):
        if message.role != "tool":
            shaped.append(message)
            continue
        batch += 1
        limit = policy.old_result_chars if batch < cap_line else policy.max_result_chars
        pruned = index < old_before or batch < prune_line
        hit = kept.shaped.get(id(message)) if kept is not None else None
        if hit is None or hit[0] is not message or hit[1] != limit or hit[2] != pruned:
            hit = (message, limit, pruned, _shape_tool(message, limit, pruned))
        seen[id(message)] = hit
        shaped.append(hit[3])
    if kept is not None:
        kept.shaped = seen
    return shaped


def _shape_tool(message: pt.Message, limit: int, pruned: bool) -> pt.Message:
    parts: list[pt.Part] = []
    for part in message.parts:
        if not isinstance(part, pt.ToolResultPart):
            parts.append(part)
            continue
        if pruned:
            size = sum(len(c.text) for c in part.content if isinstance(c, pt.TextPart))
            stub = (
                f"[{part.name} result from earlier in the session, {size:,} characters, "
                "pruned to save context; run the tool again if it is still needed]"
            )
            content: list[pt.ToolResultContent] = [pt.TextPart(text=stub)]
        else:
            content = [
                pt.TextPart(
                    text=_cap(c.text, limit),
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
    return pt.Message(role="tool", parts=parts)


# --- token estimates ------------------------------------------------------------------------

_IMAGE_TOKENS = 1_600


def estimate(
    messages: Sequence[pt.Message],
    *,
    system: str = "",
    tools: Sequence[pt.ToolSpec] = (),
    kept: Kept | None = None,
) -> int:
    """A rough token count of a request (about four characters a token)."""
    chars = len(system)
    specs: dict[int, tuple[pt.ToolSpec, int]] = {}
    for spec in tools:
        known = kept.specs.get(id(spec)) if kept is not None else None
        if known is None or known[0] is not spec:
            text = len(spec.name) + len(spec.description)
            known = (spec, text + len(msgspec.json.encode(spec.input_schema)))
        specs[id(spec)] = known
        chars += known[1]
    images = 0
    sizes: dict[int, tuple[pt.Message, int, int]] = {}
    for message in messages:
        measured = kept.sizes.get(id(message)) if kept is not None else None
        if measured is None or measured[0] is not message:
            measured = (message, *_size(message))
        sizes[id(message)] = measured
        chars += measured[1]
        images += measured[2]
    if kept is not None:
        kept.specs, kept.sizes = specs, sizes
    return (chars + 3) // 4 + images * _IMAGE_TOKENS


def _size(message: pt.Message) -> tuple[int, int]:
    """The characters and images of a message."""
    chars = images = 0
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
    return chars + 8, images


class TokenGauge(msgspec.Struct):
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


class CompactionPlan(msgspec.Struct, frozen=True):
    """Which messages are summarised, and which stay verbatim after the cut.
    ``inside_turn``: the cut falls between tool batches of the current turn, so the kept
    messages start with the model's tool calls, not with a typed prompt."""

    summarised: list[pt.Message]
    kept_from: int  # index in the history of the first message kept verbatim
    user_messages: list[str]
    inside_turn: bool = False


def _kept_tokens(messages: Sequence[pt.Message], policy: ContextPolicy) -> int:
    return estimate(shape(messages, policy))


def plan_compaction(
    history: Sequence[pt.Message],
    policy: ContextPolicy,
    window: int,
    *,
    keep_batches: int | None = None,
    overhead: int = 0,
) -> CompactionPlan | None:
    """The cut. Between typed turns when the last ``keep_turns`` of them fit in
    ``kept_share`` of the window; else (and always when ``keep_batches`` is given, after
    an overflow) between the tool batches of the current turn, keeping its last
    ``keep_batches`` (default ``policy.keep_batches``) batches, or fewer until they fit.
    None when nothing can be cut: no typed prompt, or nothing before the kept part but
    the current prompt itself (which the preamble would only repeat). ``overhead`` is what
    every request carries besides the messages (system prompt, tool definitions)."""
    starts = _user_turn_starts(history)
    if not starts:
        return None
    budget = int(max(0, window - overhead) * policy.kept_share)
    if keep_batches is None and len(starts) > policy.keep_turns:
        kept_from = starts[-policy.keep_turns] if policy.keep_turns > 0 else len(history)
        if _kept_tokens(history[kept_from:], policy) <= budget:
            return _plan(history, kept_from, policy, window, inside=False)
    prompt = starts[-1]
    calls = [i for i in range(prompt + 1, len(history)) if history[i].role == "assistant"]
    keep = policy.keep_batches if keep_batches is None else keep_batches
    for count in range(min(keep, len(calls)), -1, -1):
        kept_from = calls[-count] if count > 0 else len(history)
        if kept_from <= prompt + 1 and prompt == 0:
            continue  # only the prompt itself would be summarised: no progress
        if count == 0 or _kept_tokens(history[kept_from:], policy) <= budget:
            return _plan(history, kept_from, policy, window, inside=True)
    return None


def _plan(
    history: Sequence[pt.Message],
    kept_from: int,
    policy: ContextPolicy,
    window: int,
    *,
    inside: bool,
) -> CompactionPlan:
    """The plan for a cut at ``kept_from``, with the typed messages it summarises quoted
    newest first within ``user_share`` of the window; the newest is always kept."""
    summarised = list(history[:kept_from])
    budget = int(window * policy.user_share) * 4  # characters
    typed = [pt.text_of(m) for m in summarised if m.role == "user" and _is_typed(m)]
    kept: list[str] = []
    used = 0
    for text in reversed(typed):
        if kept and used + len(text) > budget:
            break
        kept.append(text)
        used += len(text)
    kept.reverse()
    elided = len(typed) - len(kept)
    if elided:
        kept.insert(0, f"[{elided} earlier message(s) from the user elided to fit the context]")
    return CompactionPlan(
        summarised=summarised, kept_from=kept_from, user_messages=kept, inside_turn=inside
    )


def preamble(summary: str, plan: CompactionPlan, todos: Sequence[str]) -> list[pt.Message]:
    """The messages that stand in for everything before the cut. After a cut inside a
    turn the kept part starts with the model's own tool calls, so the preamble is one user
    message (a model turn must follow a user one on every wire)."""
    sections = [
        "This session was compacted to fit the model's context window. What came before:",
        summary.strip(),
    ]
    if plan.user_messages:
        quoted = "\n\n".join(f"> {text}".replace("\n", "\n> ") for text in plan.user_messages)
        sections.append("What the user wrote, verbatim:\n\n" + quoted)
    if todos:
        sections.append("Open todos:\n" + "\n".join(f"- {t}" for t in todos))
    if plan.inside_turn:
        sections.append(
            "The work on the user's last request is still under way: continue it from the "
            "most recent tool results below (or from this summary if there are none)."
        )
        return [pt.Message(role="user", parts=[pt.TextPart(text="\n\n".join(sections))])]
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
    model: ModelClient,
) -> tuple[str, pt.Usage | None, str]:
    """Ask the model for the summary: ``(summary, usage, error)``; ``summary`` is empty and
    ``error`` says why when the call failed. The messages summarised are shaped and, if
    still too large, trimmed from the oldest user turn on, then from the oldest tool batch
    of the first turn kept (typed words survive verbatim in the preamble anyway). A summary
    request the provider still finds too long is trimmed to half and sent again."""
    shaped = shape(plan.summarised, policy)
    ask = SUMMARY_INSTRUCTIONS + (f"\n\nFocus especially on: {focus}" if focus.strip() else "")
    limit = int(window * 0.7)
    usage: pt.Usage | None = None
    failure = "the summary call ended without an answer"
    for _ in range(4):
        messages = _trimmed(shaped, tools, limit)
        messages.append(pt.Message(role="user", parts=[pt.TextPart(text=ask)]))
        request = pt.ModelRequest(
            model=target.model,
            system=SUMMARY_SYSTEM,
            messages=messages,
            tools=list(tools),
            tool_choice="none",
            abort=abort,
        )
        overflow = False
        async for event in model.stream(request, target):
            if isinstance(event, pt.Finish):
                text = pt.text_of(event.message)
                if event.reason == "aborted":
                    return "", event.usage, "interrupted"
                return text, event.usage, "" if text.strip() else "the model wrote no summary"
            if isinstance(event, pt.ErrorEvent):
                failure = event.message
                overflow = event.kind == "context_overflow"
        if not overflow:
            break
        limit //= 2
    return "", usage, failure


def _trimmed(
    messages: list[pt.Message], tools: Sequence[pt.ToolSpec], limit: int
) -> list[pt.Message]:
    """``messages`` cut from the front until their estimate is within ``limit``: whole
    typed turns first, then the oldest model call and its results after the first prompt."""
    out = list(messages)
    while estimate(out, tools=tools) > limit:
        starts = _user_turn_starts(out)
        if len(starts) >= 2:
            out = out[starts[1] :]
            continue
        first = next((i for i, m in enumerate(out) if i > 0 and m.role == "assistant"), None)
        if first is None:
            break
        end = first + 1
        while end < len(out) and out[end].role == "tool":
            end += 1
        out = out[:first] + out[end:]
    return out


__all__ = [
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_SYSTEM",
    "CompactionPlan",
    "ContextPolicy",
    "Kept",
    "TokenGauge",
    "estimate",
    "plan_compaction",
    "preamble",
    "shape",
    "summarise",
]
