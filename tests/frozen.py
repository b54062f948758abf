"""Running a frozen build (the folder build or the single file) in the opt-in frozen tests."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Binary:
    path: Path
    cache: Path  # EARSHOT_CACHE_DIR: where the single file unpacks

    def run(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        stdin: str = "",
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.path), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env={**os.environ, "EARSHOT_CACHE_DIR": str(self.cache), **(env or {})},
            cwd=cwd,
            timeout=60,
            check=False,
        )
