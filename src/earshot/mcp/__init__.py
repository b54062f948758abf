"""MCP client: configured servers become tools and slash commands of a session.

::

    config.py     the servers of a directory (.mcp.json, mcpServers in the settings files)
    trust.py      whether the user trusted what the project's checked-in files would run
    session.py    open_servers(cwd) -> McpServers | None: the SourceFactory the command
                  line hands every front-end (None when no server is configured)
    servers.py    McpServers: a core ToolSource that starts, holds and calls the servers
    _tools.py     a server's tool as an earshot tool; results as our result parts
    search.py     one search tool instead of many schemas

Depends on ``core``, never on a front-end; ``core`` never imports it. This package imports
nothing itself, and nothing here imports the ``mcp`` package until a server starts: with
none configured, start-up pays nothing.
"""
