"""Put build/folder_launcher.c in front of the folder build (Linux; docs/build.md).

    python build/front.py --folder dist/earshot [--work build/temp.launcher]

The folder's `earshot` (PyInstaller's bootloader) becomes `earshot.bin`, and the compiled
launcher takes its name: it starts the bootloader once, with the variables the bootloader's
first start would hand its second, instead of twice. Running it again on a folder already
fronted only replaces the launcher. Elsewhere than Linux it does nothing: the bootloader does
not restart itself there.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import onefile

BOOTLOADER = "earshot.bin"


def front(folder: Path, launcher: Path) -> None:
    """``folder``'s ``earshot`` -> ``earshot.bin``; ``launcher`` copied in as ``earshot``."""
    exe, moved = folder / "earshot", folder / BOOTLOADER
    if not (folder / "_internal").is_dir():
        raise SystemExit(f"front: {folder} is not a folder build (no _internal/)")
    if not moved.exists():
        if not exe.is_file():
            raise SystemExit(f"front: no {exe} to put a launcher in front of")
        os.replace(exe, moved)
    staged = folder / "earshot.new"
    shutil.copyfile(launcher, staged)
    os.chmod(staged, 0o755)
    os.replace(staged, exe)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("build/temp.launcher"))
    args = parser.parse_args(argv)
    if sys.platform != "linux":
        return 0
    front(args.folder, onefile.compile_launcher(args.work, "folder_launcher.c"))
    print(f"{args.folder}/earshot: the launcher, in front of {BOOTLOADER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
