"""What the sandbox tests share: a PATH on which bash and git are found but bwrap is not."""

from __future__ import annotations

import shutil
from pathlib import Path


def path_without_bwrap(tmp_path: Path) -> str:
    """A directory holding links to bash and git only, to put alone on PATH."""
    bin_dir = tmp_path / "bin-without-bwrap"
    bin_dir.mkdir(exist_ok=True)
    for program in ("bash", "git"):
        found = shutil.which(program)
        assert found is not None, f"{program} is needed on PATH"
        link = bin_dir / program
        if not link.exists():
            link.symlink_to(found)
    return str(bin_dir)
