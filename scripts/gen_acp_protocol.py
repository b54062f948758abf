#!/usr/bin/env python3
"""Write ``src/earshot/acp/_protocol.py`` from the ACP schema's ``meta.json``.

``earshot acp`` answers ``initialize`` before the protocol library is loaded
(``earshot/acp/_early.py``), so the protocol version it announces is generated here, from
the same published schema the library is generated from. Usage::

    python scripts/gen_acp_protocol.py DIR [OUT]   # DIR holds the schema's meta.json;
                                                   # OUT defaults to the module above
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "earshot" / "acp" / "_protocol.py"
HEADER = '''"""The ACP protocol version, generated from the schema's meta.json ("version").

Do not edit by hand: ``scripts/gen_acp_protocol.py SCHEMA_DIR`` writes it. ``tests/acp``
check that it equals the protocol library's version, which is generated from the same
schema: a library on another protocol version fails a test until this is regenerated.
"""
'''


def render(meta: dict[str, object]) -> str:
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SystemExit(f"meta.json: 'version' must be an integer, got {version!r}")
    return f'{HEADER}\nPROTOCOL_VERSION = {version}\n\n__all__ = ["PROTOCOL_VERSION"]\n'


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    target = Path(argv[1]) if len(argv) == 2 else TARGET
    meta_path = Path(argv[0]) / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise SystemExit(f"{meta_path}: expected a JSON object")
    target.write_text(render(meta), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
