"""The OS sandbox every shell command runs in, where the OS has one.

::

    _config.py     SandboxConfig: mode (auto | required | off), network, extra writable
                   paths, from the ``sandbox`` key of the settings files
                   (load_sandbox_config); parse_mode for ``--sandbox``
    _policy.py     Policy: what a command may write (the project, additional directories,
                   sandbox.writable, a private /tmp) and what stays read-only inside that
                   (.git/config, .git/hooks, .earshot/, shell start-up files, earshot's
                   own settings); network on or off. sandbox_failure(..): why a failed
                   command's output looks like the sandbox stopped it
    _backends.py   find_backend(): bwrap on PATH (Linux), sandbox-exec (macOS), or None;
                   bwrap_argv(..) and seatbelt_profile(..): the policy as each one's argv
    _session.py    Sandbox: a session's sandbox, ``wrap(argv)`` and ``blocked_by(output)``;
                   open_sandbox(..) builds it (and says once why commands are unconfined)

The gate reads command lines; the sandbox confines what the programs they start do. It never
widens the gate: a command is checked by the gate first and confined second. ``mode: off``
(or ``--sandbox off``) is the only way to run commands unconfined; ``required`` refuses to run
them when no sandbox is available; ``auto`` confines where it can and says once where it
cannot. A checked-in project settings file may only tighten: it can require the sandbox, but
not turn it off, open the network or add writable paths.
"""

from earshot.core.sandbox._backends import (
    Backend,
    bwrap_argv,
    find_backend,
    install_hint,
    seatbelt_profile,
)
from earshot.core.sandbox._config import (
    SANDBOX_MODES,
    SandboxConfig,
    SandboxMode,
    load_sandbox_config,
    parse_mode,
)
from earshot.core.sandbox._policy import Policy, build_policy, sandbox_failure
from earshot.core.sandbox._session import Sandbox, SandboxUnavailable, open_sandbox

__all__ = [
    "SANDBOX_MODES",
    "Backend",
    "Policy",
    "Sandbox",
    "SandboxConfig",
    "SandboxMode",
    "SandboxUnavailable",
    "build_policy",
    "bwrap_argv",
    "find_backend",
    "install_hint",
    "load_sandbox_config",
    "open_sandbox",
    "parse_mode",
    "sandbox_failure",
    "seatbelt_profile",
]
