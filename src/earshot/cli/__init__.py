"""The cyclopts command line: assembles tui, acp and mcp; headless renderer; earshot.v1."""
