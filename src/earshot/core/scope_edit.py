"""The scope contract as a person edits it: a small text document, parsed back with errors
that name the line at fault, applied to the session's one ``ScopeContract``.

::

    scope_document(scope) -> str          the editable text (comments say how to edit it)
    parse_scope(text) -> ScopeDraft|None  None: nothing but comments and blank lines
    apply_draft(scope, draft) -> change   the contract takes the edited goal, paths, steps
    edit_scope(session, text)             all of it on a session, recorded in the transcript

The document::

    goal: fix the parser
    paths:
      src/**
      tests/**
    steps:
      1. read the parser
      2. fix it

``goal:``, ``paths:`` and ``steps:`` start a section at the start of a line; a section's
lines follow it (indented or not; a leading ``-``, ``*`` or ``1.`` is dropped); ``paths:
a, b`` on one line works too. ``#`` starts a comment line.

A person's edit is the person's: it applies directly, widening included (the approval a
widening ``declare_scope`` asks for is that person's answer). It is recorded in the
transcript as a ``scope`` entry, so resume restores it in order with the model's
declarations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from earshot._base.errors import UserError
from earshot.core.tools.contract import ScopeContract
from earshot.providers.types import JSONValue

if TYPE_CHECKING:
    from earshot.core.agent_session import AgentSession

HEADER = """\
# The scope of this session: what the work is, the paths it may change, the plan.
# Edit it, then save and close the editor to apply it; changes outside these paths ask
# first. Lines starting with # are ignored; an empty file changes nothing.
# paths: one glob per line, relative to the working directory (src/** is all of src).
"""
SECTIONS = ("goal", "paths", "steps")
_SECTION = re.compile(r"^(goal|paths|steps)\s*:(.*)$", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•]\s+|\d+[.)]\s*)")
_WORD_COLON = re.compile(r"^([A-Za-z_][\w -]{0,30}):")


class ScopeEditError(UserError):
    """An edited scope that cannot be read; ``line`` is the 1-based line at fault."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class ScopeDraft:
    goal: str
    paths: list[str]
    steps: list[str]


@dataclass(frozen=True)
class ScopeChange:
    """What an applied draft changed (all empty: nothing did)."""

    goal: bool = False
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    steps: bool = False

    @property
    def changed(self) -> bool:
        return self.goal or self.steps or bool(self.added or self.removed)

    def text(self) -> str:
        if not self.changed:
            return "the scope is unchanged"
        parts = []
        if self.goal:
            parts.append("goal")
        if self.added:
            parts.append("paths + " + ", ".join(self.added))
        if self.removed:
            parts.append("paths - " + ", ".join(self.removed))
        if self.steps:
            parts.append("steps")
        return "scope updated: " + "; ".join(parts)


def scope_document(scope: ScopeContract) -> str:
    """The scope as an editable document (an empty form when nothing is declared)."""
    paths = "".join(f"  {p}\n" for p in scope.paths)
    steps = "".join(f"  {n}. {s}\n" for n, s in enumerate(scope.steps, 1))
    note = "" if scope.declared else "# Nothing is declared yet: fill in a goal and paths.\n"
    return f"{HEADER}{note}goal: {scope.goal}\npaths:\n{paths}steps:\n{steps}"


def parse_scope(text: str) -> ScopeDraft | None:
    """The draft ``text`` holds, or None when it holds nothing (comments, blank lines).
    ``ScopeEditError`` names the first line that cannot be read, or the missing part."""
    found: dict[str, list[str]] = {}
    at: dict[str, int] = {}
    current: str | None = None
    seen_anything = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        seen_anything = True
        header = _SECTION.match(raw)
        if header is not None:
            name = header.group(1).lower()
            if name in found:
                raise ScopeEditError(
                    number,
                    f"a second {name!r} section (there is one at "
                    f"line {at[name]}); merge them into one",
                )
            current, at[name] = name, number
            found[name] = []
            rest = header.group(2).strip()
            if rest:
                items = [rest] if name != "paths" else [p for p in rest.split(",")]
                found[name] += [i.strip() for i in items if i.strip()]
            continue
        if current is None:
            word = _WORD_COLON.match(line)
            what = f"unknown section {word.group(1)!r}" if word else f"{line[:40]!r}"
            raise ScopeEditError(
                number, f"{what} is not in a section; start it with goal:, paths: or steps:"
            )
        if current == "goal":
            if found["goal"] and not raw[:1].isspace():
                raise ScopeEditError(
                    number,
                    f"{line[:40]!r} follows the goal; indent it to go on with the goal, or "
                    "start paths: or steps: before it",
                )
            found["goal"].append(line)
            continue
        item = _BULLET.sub("", line).strip()
        if current == "paths" and (" " in item and not item.startswith(("'", '"'))):
            raise ScopeEditError(
                number, f"{item!r} is not one path glob; put one glob on each line"
            )
        if item:
            found[current].append(item.strip("'\""))
    if not seen_anything:
        return None
    if "goal" not in found or not " ".join(found["goal"]).strip():
        raise ScopeEditError(
            at.get("goal", 1), "the goal is empty; say in one line what the work is"
        )
    if not found.get("paths"):
        raise ScopeEditError(
            at.get("paths", at["goal"]), "no paths; name at least one glob (src/** is all of src)"
        )
    goal = " ".join(found["goal"]).strip()
    return ScopeDraft(goal=goal, paths=found["paths"], steps=found.get("steps", []))


def apply_draft(scope: ScopeContract, draft: ScopeDraft) -> ScopeChange:
    """Put ``draft`` in ``scope`` (the session's one contract, so children see it too)."""
    change = ScopeChange(
        goal=draft.goal != scope.goal or not scope.declared,
        added=[p for p in draft.paths if p not in scope.paths],
        removed=[p for p in scope.paths if p not in draft.paths],
        steps=draft.steps != scope.steps,
    )
    if change.changed:
        scope.declare(draft.goal, draft.paths, draft.steps)
    return change


async def edit_scope(session: AgentSession, text: str) -> ScopeChange:
    """Apply a person's edited ``text`` to the session's scope and record it in the
    transcript; the model is told the new scope with the next message. ``ScopeEditError``
    (nothing changed) names the line at fault."""
    draft = parse_scope(text)
    if draft is None:
        return ScopeChange()
    change = apply_draft(session.gate.scope, draft)
    if change.changed:
        await session.transcript.append_scope(scope_record(draft))
        session.tell_model(model_note(draft))
    return change


def scope_record(draft: ScopeDraft) -> JSONValue:
    """The transcript's ``scope`` entry for a person's edit."""
    paths: list[JSONValue] = list(draft.paths)
    steps: list[JSONValue] = list(draft.steps)
    return {"goal": draft.goal, "paths": paths, "steps": steps, "by": "user"}


def model_note(draft: ScopeDraft) -> str:
    """What the model is told at its next turn: the scope it now works in."""
    steps = "".join(f"\n  {n}. {s}" for n, s in enumerate(draft.steps, 1))
    return (
        "The user edited the declared scope; work within it from now on.\n"
        f"goal: {draft.goal}\npaths: {', '.join(draft.paths)}\nsteps:{steps}"
    )


__all__ = [
    "ScopeChange",
    "ScopeDraft",
    "ScopeEditError",
    "apply_draft",
    "edit_scope",
    "model_note",
    "parse_scope",
    "scope_document",
    "scope_record",
]
