"""One place that turns failures a person can fix into a message and an exit status.

0 success; 1 a command failed at run time; 2 a usage or configuration error (unknown
command, provider or model, bad flag, malformed settings or auth file, missing key); 130
interrupted. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

USAGE_ERROR = 2
INTERRUPTED = 130


class UsageError(Exception):
    """A mistake in what the user asked for; the message says what to do instead."""


def fail(message: str, code: int = USAGE_ERROR) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return code


def _usage_errors() -> tuple[type[Exception], ...]:
    from earshot.cli._flags import FlagError
    from earshot.core.settings import SettingsError
    from earshot.providers.catalog import CatalogError
    from earshot.providers.jsonfile import JSONFileError

    found: list[type[Exception]] = [UsageError, FlagError, SettingsError, JSONFileError]
    found.append(CatalogError)
    try:  # the session and agent layers, when this run got as far as importing them
        from earshot.cli.run_cmd import HeadlessUsageError
        from earshot.core.factory import SessionSetupError
        from earshot.core.input import InputError
        from earshot.core.session.transcript import SessionError
        from earshot.core.targets import NoModelError

        found += [HeadlessUsageError, SessionSetupError, InputError, SessionError, NoModelError]
    except ImportError:  # pragma: no cover - every module ships together
        pass
    return tuple(found)


def guarded(call: Callable[[], int]) -> int:
    """Run a command; map the failures a person can fix to a message and a status."""
    from earshot.providers.errors import ProviderError

    try:
        return call()
    except KeyboardInterrupt:
        return INTERRUPTED
    except ProviderError as exc:
        return fail(exc.message)
    except Exception as exc:
        if isinstance(exc, _usage_errors()):
            return fail(str(exc))
        raise


__all__ = ["INTERRUPTED", "USAGE_ERROR", "UsageError", "fail", "guarded"]
