"""Which reasoning effort a session uses, and keeping the transcript in step with it.

Where the level comes from, first match wins (``EffortPolicy.level_for``)::

    chosen      --effort, /effort, the ACP option, or a resumed session's last choice
    per model   settings models.<provider>.<model>.reasoningEffort
    setting     settings reasoningEffort (user < project < local)
    default     medium for a model the catalog marks as reasoning, else nothing

``SessionEffort`` holds the policy and the choice in force for the current model
(``providers.effort.choose``: what the wire sends and why). A model switch keeps the level
and maps it onto the new model; the transcript gets an ``effort`` entry whenever the level
in force changes, so a resumed session starts from the last one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import msgspec

from earshot.providers.effort import EffortChoice, EffortLevel, choose, parse_effort
from earshot.providers.target import Target

if TYPE_CHECKING:
    from earshot.core.loop.ports import Recorder as Transcript


class EffortPolicy(msgspec.Struct):
    chosen: EffortLevel | None = None
    per_model: Mapping[str, EffortLevel] = msgspec.field(default_factory=dict)
    setting: EffortLevel | None = None

    def level_for(self, ref: str) -> EffortLevel | None:
        """The level asked for model ``ref`` (None: the model's default applies)."""
        if self.chosen is not None:
            return self.chosen
        return self.per_model.get(ref, self.setting)


class SessionEffort:
    """The effort of one session: ``choice`` is what the next model call sends."""

    def __init__(self, policy: EffortPolicy, target: Target, *, recorded: str | None = None):
        self.policy = policy
        self.choice: EffortChoice = choose(policy.level_for(target.ref), target)
        self._recorded = recorded

    def retarget(self, target: Target) -> EffortChoice:
        """Map the level asked onto a new model (a model switch)."""
        self.choice = choose(self.policy.level_for(target.ref), target)
        return self.choice

    async def set(
        self, level: EffortLevel, target: Target, transcript: Transcript | None
    ) -> EffortChoice:
        """Choose ``level`` from the next call on and record it."""
        self.policy.chosen = level
        self.retarget(target)
        await self.record(transcript)
        return self.choice

    async def record(self, transcript: Transcript | None) -> None:
        """Append an ``effort`` entry when the level in force differs from the last one
        recorded (nothing when no level applies)."""
        level = self.choice.level
        if transcript is None or level is None or self.choice.request is None:
            return
        if level == self._recorded:
            return
        await transcript.append_effort(level, self.choice.sent)
        self._recorded = level


def recorded_level(recorded: str | None) -> EffortLevel | None:
    """A resumed session's last effort (None when none was recorded, or it is not a level
    this build knows)."""
    if recorded is None:
        return None
    try:
        return parse_effort(recorded)
    except ValueError:
        return None


__all__ = ["EffortPolicy", "SessionEffort", "recorded_level"]
