"""A resumed session's replay shows what the person typed, not earshot's notes to the model
that went with it (``/scope``'s edit)."""

from __future__ import annotations

import re

from earshot.core.loop.input import with_notes
from earshot.providers import types as pt
from earshot.tui._replay import replay_blocks
from earshot.tui.render import Painter


def test_the_replay_leaves_out_notes_to_the_model() -> None:
    sent = with_notes("write the notes", ["The user edited the declared scope"])
    assert isinstance(sent, str) and "The user edited" in sent
    history = [pt.Message(role="user", parts=[pt.TextPart(text=sent)])]
    shown = re.sub(r"\x1b\[[0-9;]*m", "", replay_blocks(Painter(80, color=False), history))
    assert shown.strip() == "› write the notes"
