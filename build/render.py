#!/usr/bin/env python3
"""Render the Homebrew formula and the scoop manifest for a release from its checksums.

Usage::

    python build/render.py --version 0.2.0 --repo owner/earshot --sums dist/SHA256SUMS \\
        --out dist/packaging

``--sums`` is a ``sha256sum`` listing (``<hex>  <file>``) of the release archives, named
``earshot-<version>-<target>.tar.gz`` (``.zip`` on Windows). Each template in build/
(``*.in``) has ``@NAME@`` placeholders: ``VERSION``, ``REPO`` and ``SHA256_<TARGET>`` (the
target upper-cased, ``-`` as ``_``). A placeholder with no value, or an archive for a
target no template names, is an error: a formula pointing at a missing checksum must never
be published.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATES = {"earshot.rb.in": "earshot.rb", "earshot.json.in": "earshot.json"}
ARCHIVE = re.compile(r"^earshot-(?P<version>[^-]+)-(?P<target>[a-z]+-[a-z0-9_]+)\.(?:tar\.gz|zip)$")
PLACEHOLDER = re.compile(r"@([A-Z0-9_]+)@")


class RenderError(Exception):
    pass


def read_sums(text: str, version: str) -> dict[str, str]:
    """``SHA256_<TARGET>`` -> hex digest, for each archive of ``version`` in a sums file."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        digest, _, name = line.partition("  ")
        name = name.lstrip("*")
        found = ARCHIVE.match(name)
        if not re.fullmatch(r"[0-9a-f]{64}", digest) or found is None:
            raise RenderError(f"not a release archive checksum line: {line!r}")
        if found["version"] != version:
            raise RenderError(f"{name} is not version {version}")
        values["SHA256_" + found["target"].upper().replace("-", "_")] = digest
    return values


def render(template: str, values: dict[str, str]) -> str:
    missing = sorted({m for m in PLACEHOLDER.findall(template) if m not in values})
    if missing:
        raise RenderError(f"no value for {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def render_all(version: str, repo: str, sums: str, out: Path) -> list[Path]:
    values = {"VERSION": version, "REPO": repo, **read_sums(sums, version)}
    templates = {name: (HERE / name).read_text(encoding="utf-8") for name in TEMPLATES}
    used = {m for text in templates.values() for m in PLACEHOLDER.findall(text)}
    unused = sorted(k for k in values if k not in used)
    if unused:
        raise RenderError(f"archives no template installs: {', '.join(unused)}")
    rendered = {out / TEMPLATES[name]: render(text, values) for name, text in templates.items()}
    out.mkdir(parents=True, exist_ok=True)
    for path, text in rendered.items():
        path.write_text(text, encoding="utf-8")
    return list(rendered)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", required=True)
    parser.add_argument("--repo", required=True, help="owner/name on GitHub")
    parser.add_argument("--sums", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        written = render_all(args.version, args.repo, args.sums.read_text(), args.out)
    except RenderError as exc:
        print(f"render: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
