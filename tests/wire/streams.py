"""Reading a stream's events in adapter tests: the terminal event (exactly one, and last),
and the text and reasoning the deltas spell."""

from __future__ import annotations

from collections.abc import Sequence

from earshot.providers.types import ErrorEvent, Finish, ReasoningDelta, StreamEvent, TextDelta


def terminal(events: Sequence[StreamEvent]) -> Finish | ErrorEvent:
    """The one terminal event, which must be the last event."""
    ends = [e for e in events if isinstance(e, Finish | ErrorEvent)]
    assert len(ends) == 1, f"expected exactly one terminal event, got {ends!r}"
    assert events[-1] is ends[0]
    return ends[0]


def finish_of(events: Sequence[StreamEvent]) -> Finish:
    end = terminal(events)
    assert isinstance(end, Finish), end
    return end


def error_of(events: Sequence[StreamEvent]) -> ErrorEvent:
    end = terminal(events)
    assert isinstance(end, ErrorEvent), end
    return end


def texts(events: Sequence[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def reasonings(events: Sequence[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))
