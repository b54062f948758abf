"""The ACP protocol version, generated from the schema's meta.json ("version").

Do not edit by hand: ``scripts/gen_acp_protocol.py SCHEMA_DIR`` writes it. ``tests/acp``
check that it equals the protocol library's version, which is generated from the same
schema: a library on another protocol version fails a test until this is regenerated.
"""

PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION"]
