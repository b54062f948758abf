#!/usr/bin/env python3
"""Build earshot's vendored model catalog from models.dev.

    python scripts/fetch_catalog.py               # ../shared/reference/models/models-dev.json
    python scripts/fetch_catalog.py --input FILE  # a models.dev api.json on disk
    python scripts/fetch_catalog.py --url URL     # the live api.json (needs the network)

Writes ``src/earshot/providers/data/catalog.json`` (or ``--output``) with the pruning that the
live refresh uses (``earshot.providers._catalog_prune``), so the same input always gives the
same bytes. Exits 1 when the result is larger than ``--max-bytes`` or has no models.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from earshot.providers._catalog_file import encode_catalog
from earshot.providers._catalog_prune import prune

REPO = Path(__file__).resolve().parent.parent
DEFAULT_INPUT = REPO.parent / "shared" / "reference" / "models" / "models-dev.json"
DEFAULT_OUTPUT = REPO / "src" / "earshot" / "providers" / "data" / "catalog.json"
MAX_BYTES = 400_000


def read_source(input_path: Path | None, url: str | None) -> bytes:
    if url is not None:
        import httpx

        response = httpx.get(url, timeout=60.0, follow_redirects=True)
        response.raise_for_status()
        return response.content
    return (input_path or DEFAULT_INPUT).read_bytes()


def build(source: bytes) -> tuple[bytes, int, int]:
    """The catalog file for a models.dev document, with its provider and model counts."""
    catalog = prune(source)
    return encode_catalog(catalog), len(catalog.providers), catalog.model_count()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--input", type=Path, help=f"models.dev JSON file (default {DEFAULT_INPUT})"
    )
    source.add_argument("--url", help="fetch models.dev api.json from this URL")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="catalog to write")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="size budget")
    args = parser.parse_args(argv)

    data, providers, models = build(read_source(args.input, args.url))
    if models == 0:
        print("error: no supported models in the input", file=sys.stderr)
        return 1
    if len(data) > args.max_bytes:
        print(f"error: catalog is {len(data):,} bytes, over {args.max_bytes:,}", file=sys.stderr)
        return 1
    output: Path = args.output
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(data)
    print(f"wrote {output}: {len(data):,} bytes, {providers} providers, {models} models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
