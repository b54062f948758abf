"""Reasoning effort: one scale for every provider, and what it becomes on each wire.

::

    EffortLevel          off | low | medium | high | max        what a person chooses
    parse_effort(text)   -> EffortLevel                          ValueError naming the levels
    can_reason(info)     the catalog says the model reasons (or lists reasoning options)
    choose(level, target) -> EffortChoice                        what is sent, and why

The wire adapters own the mapping (``providers/wire/_*_request.py``): each turns
``ModelRequest.reasoning_effort`` into its vendor's fields, mapping a level the model does
not offer onto the nearest one it does. ``choose`` never re-implements that mapping: it
builds the request body with the target's own adapter and reads the reasoning fields back,
so what a status line or an ``init`` record reports is exactly what is sent.

Contracts:

- ``level=None`` means "the default": ``medium`` for a model the catalog marks as
  reasoning-capable, nothing otherwise (a model without a catalog entry gets nothing).
- A level on a model the catalog says cannot reason is ignored (nothing is sent) and the
  choice carries a ``note`` saying so; a level mapped onto another (``max`` -> ``high``,
  ``off`` -> ``minimal``) carries a ``note`` too. A note is never empty when what is sent
  differs from what was asked.
- ``off`` is sent as ``none``: adapters send no reasoning for it, or the vendor's explicit
  "off" where the model has one (``reasoning.effort: none``, ``thinking: disabled``, a zero
  thinking budget); a model that cannot stop reasoning gets its lowest level, with a note.
"""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from earshot.providers.models import ModelInfo
from earshot.providers.target import Target
from earshot.providers.types import JSONObject, JSONValue, Message, ModelRequest, ReasoningEffort
from earshot.providers.types import TextPart as _TextPart

EffortLevel = Literal["off", "low", "medium", "high", "max"]
EFFORT_LEVELS: tuple[EffortLevel, ...] = get_args(EffortLevel)
DEFAULT_EFFORT: EffortLevel = "medium"

# What each level asks of an adapter (``ModelRequest.reasoning_effort``).
REQUEST_EFFORT: dict[EffortLevel, ReasoningEffort] = {
    "off": "none",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "max": "max",
}


def parse_effort(value: str, *, where: str = "effort") -> EffortLevel:
    """The level ``value`` names (case-insensitive; ``none`` is accepted for ``off``).
    ``ValueError`` naming ``where`` and the levels otherwise."""
    word = value.strip().lower()
    if word == "none":
        word = "off"
    for level in EFFORT_LEVELS:
        if level == word:
            return level
    raise ValueError(f"{where}: unknown effort {value!r}; use one of {', '.join(EFFORT_LEVELS)}")


def can_reason(info: ModelInfo | None) -> bool:
    """The catalog marks the model as reasoning-capable."""
    return info is not None and (info.reasoning or bool(info.reasoning_options))


class EffortChoice(msgspec.Struct, frozen=True):
    """The effort in force for one model.

    ``level`` is what was asked (or defaulted; ``None`` when nothing applies), ``request``
    what goes into ``ModelRequest.reasoning_effort``, ``sent`` a short description of the
    vendor fields (``"thinking budget 8192"``, ``"reasoning.effort minimal"``, ``""`` when
    nothing is sent), ``value`` the vendor's level when it has one, and ``note`` why what
    is sent differs from what was asked (empty when it does not).
    """

    level: EffortLevel | None
    request: ReasoningEffort | None
    sent: str = ""
    value: str | None = None
    note: str = ""
    defaulted: bool = False

    @property
    def label(self) -> str:
        """For a status line: ``medium``, ``max→high``, ``off``, or ``""`` (nothing is sent
        because the model cannot reason)."""
        if self.level is None or self.request is None:
            return ""
        if self.value is not None and self.value != self.level:
            shown = "off" if self.value == "none" else self.value
            if shown != self.level:
                return f"{self.level}→{shown}"
        return self.level

    @property
    def summary(self) -> str:
        """One line for a person: ``high (thinking budget 16384 tokens)``, with the note."""
        if self.level is None:
            return "none (the model does not reason)"
        shown = f"{self.level} ({self.sent})" if self.sent else self.level
        if self.defaulted:
            shown += ", the default"
        return f"{shown}; {self.note}" if self.note else shown

    def record(self) -> JSONObject:
        """The choice as a JSON object (the ``init`` record's ``effort`` field)."""
        out: JSONObject = {"level": self.level, "sent": self.sent}
        if self.value is not None:
            out["value"] = self.value
        if self.note:
            out["note"] = self.note
        out["default"] = self.defaulted
        return out


def choose(level: EffortLevel | None, target: Target) -> EffortChoice:
    """The effort in force for ``target`` when ``level`` is asked (``None``: the default)."""
    info = target.info
    defaulted = level is None
    if level is None:
        if not can_reason(info):
            return EffortChoice(level=None, request=None, defaulted=True)
        level = DEFAULT_EFFORT
    if info is not None and not can_reason(info):
        note = f"{target.ref} does not reason; effort {level} is ignored"
        return EffortChoice(level=level, request=None, note=note, defaulted=defaulted)
    request = REQUEST_EFFORT[level]
    sent, value = _sent(request, target)
    note = _note(level, sent, value, target)
    return EffortChoice(
        level=level, request=request, sent=sent, value=value, note=note, defaulted=defaulted
    )


def _note(level: EffortLevel, sent: str, value: str | None, target: Target) -> str:
    name = target.ref
    if level == "off":
        if not sent or value == "none":
            return ""
        return f"{name} cannot switch reasoning off; the least it does is sent ({sent})"
    if not sent:
        return f"{name}: no reasoning setting is sent on this wire; the model's default applies"
    if value is None or value == level:
        return ""
    return f"{name} has no {level} effort; the nearest it offers, {value}, is sent"


def _sent(request: ReasoningEffort, target: Target) -> tuple[str, str | None]:
    """What the target's adapter sends for ``request``: a description and the vendor level."""
    from earshot.providers.errors import ProviderError
    from earshot.providers.wire import get_wire

    probe = ModelRequest(
        model=target.model,
        messages=[Message(role="user", parts=[_TextPart(text="effort probe")])],
        reasoning_effort=request,
    )
    try:
        body = get_wire(target.wire).build_call(probe, target).json()
    except ProviderError:
        return (f"reasoning effort {request}", request)
    return describe_body(body)


def _obj(value: JSONValue) -> JSONObject:
    return value if isinstance(value, dict) else {}


def describe_body(body: JSONObject) -> tuple[str, str | None]:
    """The reasoning fields of a request body of any wire, as a short description and the
    vendor's level (``None`` when the fields carry none, e.g. a thinking budget). Bedrock
    carries Claude's fields in ``additionalModelRequestFields``."""
    body = {**body, **_obj(body.get("additionalModelRequestFields"))}
    thinking = _obj(body.get("thinking"))
    effort = _obj(body.get("output_config")).get("effort")
    kind = thinking.get("type")
    if kind == "adaptive":
        shown = str(effort) if isinstance(effort, str) else None
        return (f"adaptive thinking, effort {shown or 'default'}", shown)
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        return (f"thinking budget {budget} tokens", None)
    if kind == "disabled":
        return ("thinking disabled", "none")
    reasoning = _obj(body.get("reasoning"))
    if reasoning:
        value = reasoning.get("effort")
        if isinstance(value, str):
            return (f"reasoning.effort {value}", value)
        return ("reasoning, server's default effort", None)
    chat_effort = body.get("reasoning_effort")
    if isinstance(chat_effort, str):
        return (f"reasoning_effort {chat_effort}", chat_effort)
    config = _obj(_obj(body.get("generationConfig")).get("thinkingConfig"))
    if config:
        level = config.get("thinkingLevel")
        if isinstance(level, str):
            return (f"thinkingLevel {level}", level.lower())
        budget = config.get("thinkingBudget")
        if isinstance(budget, int):
            if budget == 0:
                return ("thinkingBudget 0 (off)", "none")
            return (f"thinkingBudget {budget} tokens", None)
        if config.get("includeThoughts") is True:
            return ("thoughts included, model's default thinking", None)
    return ("", None)


__all__ = [
    "DEFAULT_EFFORT",
    "EFFORT_LEVELS",
    "REQUEST_EFFORT",
    "EffortChoice",
    "EffortLevel",
    "can_reason",
    "choose",
    "describe_body",
    "parse_effort",
]
