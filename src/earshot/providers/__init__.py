"""The provider layer: unified types, SSE, wire adapters, provider registry, model catalog.

``providers`` imports nothing else of earshot's. Its modules are imported lazily by the
layers above (the CLI's fast paths must not pay for httpx or the catalog).
"""
