"""Runtime hook of the frozen build: the programs earshot runs get the user's environment back.

PyInstaller's bootloader (and, for the single file, build/launcher.c) starts earshot with
`LD_LIBRARY_PATH` pointing at the bundle's own libraries (`_internal/`: libssl, libcrypto,
libz, libtinfo, ...), the user's value saved in `LD_LIBRARY_PATH_ORIG`, and `_PYI_*` variables
describing this process. Children inherited all of it: the shell commands earshot runs, git,
hooks and MCP servers loaded the bundle's libraries instead of the system's (a system program
built against a newer OpenSSL than the bundle's fails to start), and a frozen earshot started
from such a shell took itself for a helper process of this one.

The dynamic loader read `LD_LIBRARY_PATH` when this process started, so earshot itself keeps
loading its extension modules' libraries from the bundle; only what children inherit changes.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import MutableMapping

PYINSTALLER_VARS = (
    "_PYI_ARCHIVE_FILE",
    "_PYI_APPLICATION_HOME_DIR",
    "_PYI_PARENT_PROCESS_LEVEL",
    "_PYI_LINUX_PROCESS_NAME",
    "_PYI_SPLASH_IPC",
)


def restore(environ: MutableMapping[str, str], bundle: str) -> None:
    """Give ``environ`` the user's library path back and drop PyInstaller's variables."""
    for name in ("LD_LIBRARY_PATH", "LIBPATH"):  # LIBPATH: AIX's name for it
        value = environ.get(name)
        if value is None or value.split(os.pathsep)[0] != bundle:
            continue  # not the bootloader's (macOS and Windows set none)
        original = environ.pop(f"{name}_ORIG", None)
        parts = [] if original is None else original.split(os.pathsep)
        if bundle in parts:  # a start that added the bundle twice: the saved value has it too
            parts = [part for part in parts if part != bundle]
        if parts:
            environ[name] = os.pathsep.join(parts)
        else:
            del environ[name]
    for name in PYINSTALLER_VARS:
        environ.pop(name, None)


if getattr(sys, "frozen", False):
    restore(os.environ, os.path.normpath(getattr(sys, "_MEIPASS", "")))
