"""What a command's argument can be, for the completion menu: the pickers of ``/model``,
``/mode``, ``/resume`` and ``/rewind``, and the onboarding's model prompt.

A picker is the completion menu over one command's arguments: typing filters it (every
word typed must appear in the value or its description), Up/Down select, Enter or Tab
takes one, Esc closes it. ``/model``, ``/resume`` and ``/rewind`` typed alone open it.

The model list holds only providers earshot can call (an adapter for their wire exists):
the current model and the configured one first, then providers with a key (newest
release first), then the rest, marked ``no key``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from earshot.core.agent_session import AgentSession
    from earshot.providers.catalog import ModelCatalog

PICKERS = ("model", "resume", "rewind")
"""The commands that open their picker when typed with no argument."""
MAX_CHOICES = 300


@dataclass(frozen=True)
class Choice:
    value: str
    meta: str = ""


def matches(choices: Iterable[Choice], typed: str) -> list[Choice]:
    """The choices holding every word of ``typed`` (case-insensitive), prefix matches of
    the value first."""
    words = typed.lower().split()
    found = [c for c in choices if all(w in f"{c.value} {c.meta}".lower() for w in words)]
    head = typed.strip().lower()
    return sorted(found, key=lambda c: not c.value.lower().startswith(head)) if head else found


def callable_providers() -> dict[str, bool]:
    """Each provider earshot has an adapter for, and whether it has a key (or needs none)."""
    from earshot.providers.auth import AuthStore
    from earshot.providers.registry import PROVIDERS, key_from_env, wire_for
    from earshot.providers.wire import implemented_wires

    wires = set(implemented_wires())
    stored = set(AuthStore().providers())
    out: dict[str, bool] = {}
    for spec in PROVIDERS:
        if wire_for(spec, None, None) not in wires:
            continue
        keyed = (
            not spec.key_required or key_from_env(spec, os.environ) is not None or spec.id in stored
        )
        out[spec.id] = keyed
    return out


def model_choices(catalog: ModelCatalog, first: Iterable[str] = ()) -> list[Choice]:
    """Models to pick from: ``first`` (current, configured), then keyed providers' models,
    newest first, then the others marked ``no key``; planned providers left out."""
    providers = callable_providers()
    infos = [i for i in catalog.models() if i.provider in providers]
    infos.sort(key=lambda i: (not providers[i.provider], _newest_first(i.release_date)))
    out: dict[str, Choice] = {}
    for ref in first:
        provider = ref.partition("/")[0]
        if provider in providers:
            out[ref] = Choice(ref, "" if providers[provider] else "no key")
    for info in infos:
        if info.ref not in out:
            about = info.name or info.id
            if not providers[info.provider]:
                about += " · no key"
            out[info.ref] = Choice(info.ref, about)
    return list(out.values())


def _newest_first(date: str | None) -> str:
    """A sort key putting later dates first (unknown dates last)."""
    if not date:
        return "~"
    return "".join(chr(ord("0") + 9 - int(c)) if c.isdigit() else c for c in date)


def open_picker(buffer: Buffer, name: str, choices: Callable[[str], list[Choice]]) -> bool:
    """Put ``/name `` in an empty box with the menu open over what it takes; False when
    ``name`` has no picker, the box holds a draft, or there is nothing to pick."""
    if name not in PICKERS or buffer.text or not choices(name):
        return False
    buffer.text = f"/{name} "
    buffer.cursor_position = len(buffer.text)
    buffer.start_completion(select_first=False)
    return True


def argument_choices(session: AgentSession | None, command: str) -> list[Choice]:
    """The values ``/command`` takes (empty for a command without a picker)."""
    if session is None:
        return []
    if command == "model":
        first = [session.model, *([session.settings.model] if session.settings.model else [])]
        return model_choices(session.catalog, first)[:MAX_CHOICES]
    if command == "mode":
        from earshot.core.permissions import MODES

        about = {
            "plan": "read only: the agent plans, changes nothing",
            "ask": "ask before each mutating call",
            "accept-edits": "file edits run, shell commands ask",
            "auto": "run what the rules allow, ask for the rest",
            "yolo": "run everything without asking",
        }
        return [Choice(m, about.get(m, "")) for m in MODES]
    if command == "resume":
        short = session.short_ids()
        return [
            Choice(
                short.get(info.id, info.id),
                f"{info.updated[:16].replace('T', ' ')} · {info.turns} "
                f"turn{'' if info.turns == 1 else 's'} · {info.title[:60]}",
            )
            for info in session.sessions()[:50]
            if info.id != session.id
        ]
    if command == "rewind":
        from earshot.providers.types import text_of

        turns = session.user_turns()
        rows: list[Choice] = []
        for index, entry in enumerate(turns, 1):
            text = text_of(entry.message).strip()
            line = text.splitlines()[0] if text else ""
            rows.append(Choice(str(index), line[:80]))
        return rows[::-1]
    return []


__all__ = [
    "PICKERS",
    "Choice",
    "argument_choices",
    "callable_providers",
    "matches",
    "model_choices",
    "open_picker",
]
