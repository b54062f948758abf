"""ACP v1 server over stdio. Translates ACP requests to `core`'s session and turn contracts.

``serve`` runs it; ``_server`` holds the requests, ``_updates`` the event mapping,
``_interact`` permission prompts and questions, ``_transport`` the JSON-RPC lines.
"""

from earshot.acp._main import serve

__all__ = ["serve"]
