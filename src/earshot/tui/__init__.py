"""Interactive terminal UI (prompt-toolkit live region over rich scrollback)."""
