"""The sandbox tests that run real bubblewrap need Linux; elsewhere the sandbox is checked
as data (``test_sandbox_policy.py``) and, on macOS, by its Seatbelt profile."""

from __future__ import annotations

import sys

collect_ignore = [] if sys.platform.startswith("linux") else ["test_sandbox.py"]
