"""The catalog file's format: the vendored snapshot and the live-refresh cache share it.

::

    {"format": 1, "providers": {
    "<earshot provider id>": {"models": [
    {<ModelInfo, default-valued fields omitted, keys sorted>},     one model per line,
    ...                                                             sorted by id
    ], "name": "<display name>"},
    ...                                                             sorted by provider id
    }}

``encode_catalog`` is canonical: equal catalogs encode to equal bytes, and a rebuild's diff
shows which models changed, one line each.
"""

from __future__ import annotations

import msgspec

from earshot.providers.models import ModelInfo

FORMAT_VERSION = 1


class CatalogProvider(msgspec.Struct, kw_only=True):
    """One provider's models in a catalog file."""

    name: str = ""
    models: list[ModelInfo] = []


class CatalogFile(msgspec.Struct, kw_only=True):
    """A whole catalog file: the vendored snapshot or the live-refresh cache."""

    format: int = FORMAT_VERSION
    providers: dict[str, CatalogProvider] = {}

    def model_count(self) -> int:
        return sum(len(p.models) for p in self.providers.values())


def decode_catalog(data: bytes) -> CatalogFile:
    """Decode a catalog file. Raises ``msgspec.DecodeError`` (a ``ValidationError`` among
    them) when ``data`` is not one."""
    return msgspec.json.decode(data, type=CatalogFile)


def encode_catalog(catalog: CatalogFile) -> bytes:
    """The canonical bytes of a catalog: keys sorted, providers and models sorted by id, one
    model per line. Equal catalogs always encode to equal bytes."""
    blocks: list[bytes] = []
    for pid in sorted(catalog.providers):
        provider = catalog.providers[pid]
        lines = [
            msgspec.json.encode(m, order="sorted") for m in sorted(provider.models, key=_by_id)
        ]
        blocks.append(
            msgspec.json.encode(pid)
            + b':{"models":[\n'
            + b",\n".join(lines)
            + b'\n],"name":'
            + msgspec.json.encode(provider.name)
            + b"}"
        )
    head = b'{"format":' + str(catalog.format).encode() + b',"providers":{\n'
    return head + b",\n".join(blocks) + b"\n}}\n"


def _by_id(model: ModelInfo) -> str:
    return model.id


__all__ = ["FORMAT_VERSION", "CatalogFile", "CatalogProvider", "decode_catalog", "encode_catalog"]
