"""One place that turns failures a person can fix into a message and an exit status.

0 success; 1 a command failed at run time; 2 a usage or configuration error (unknown
command, provider or model, bad flag, malformed settings or auth file, missing key); 130
interrupted. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys

from earshot._base.errors import UserError

TYPE_CHECKING = False  # typing and collections.abc cost imports on the way to a command
if TYPE_CHECKING:
    from collections.abc import Callable

USAGE_ERROR = 2
INTERRUPTED = 130


class UsageError(UserError):
    """A mistake in what the user asked for; the message says what to do instead."""


def fail(message: str, code: int = USAGE_ERROR) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return code


def guarded(call: Callable[[], int]) -> int:
    """Run a command; map the failures a person can fix to a message and a status.

    The provider errors are imported only when something failed: ``earshot acp`` answers
    its first request inside ``call`` and must not load msgspec before that."""
    try:
        return call()
    except KeyboardInterrupt:
        return INTERRUPTED
    except UserError as exc:
        return fail(str(exc))
    except Exception as exc:
        from earshot.providers.errors import ProviderError

        if isinstance(exc, ProviderError):
            return fail(exc.message)
        raise


__all__ = ["INTERRUPTED", "USAGE_ERROR", "UsageError", "fail", "guarded"]
