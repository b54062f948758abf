"""The one base class of errors a person can fix.

::

    UserError                    the message names the file, line, field or flag and the fix
      SettingsError, CatalogError, JSONFileError, SessionError, NoModelError, InputError,
      SessionSetupError, CommandError, UsageError, FlagError, HeadlessUsageError

The CLI catches ``UserError`` once (exit status 2, the message on stderr); a front-end
shows its message. Anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A failure a person can fix; ``str(error)`` says what to do."""


__all__ = ["UserError"]
