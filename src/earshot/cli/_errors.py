"""One place that turns failures a person can fix into a message and an exit status.

0 success; 1 a command failed at run time; 2 a usage or configuration error (unknown
command, provider or model, bad flag, malformed settings or auth file, missing key); 130
interrupted. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from earshot._base.errors import UserError

USAGE_ERROR = 2
INTERRUPTED = 130


class UsageError(UserError):
    """A mistake in what the user asked for; the message says what to do instead."""


def fail(message: str, code: int = USAGE_ERROR) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return code


def guarded(call: Callable[[], int]) -> int:
    """Run a command; map the failures a person can fix to a message and a status."""
    from earshot.providers.errors import ProviderError

    try:
        return call()
    except KeyboardInterrupt:
        return INTERRUPTED
    except ProviderError as exc:
        return fail(exc.message)
    except UserError as exc:
        return fail(str(exc))


__all__ = ["INTERRUPTED", "USAGE_ERROR", "UsageError", "fail", "guarded"]
