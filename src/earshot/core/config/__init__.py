"""Configuration: settings files, model targets, memory files, the system prompt and the
options a session opens with. Light to import: the TUI reads ``options`` before core loads.
"""
