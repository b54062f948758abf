"""Agent loop, tools, permissions, sessions, context shapers, undo, scope and config.

`core` depends on `providers` only; it never imports `mcp`, `acp`, `tui` or `cli`.
"""
