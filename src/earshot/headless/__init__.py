"""The headless front-end (``earshot -p``): one turn over an ``AgentSession``, rendered as
text or earshot.v1 JSON (``render``); ``run`` drives it.
"""
