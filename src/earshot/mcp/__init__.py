"""MCP client: configured servers become extra tools. Depends on `core`, never on front-ends."""
