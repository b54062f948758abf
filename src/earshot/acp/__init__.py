"""ACP v1 server over stdio. Translates ACP requests to `core`'s session and turn contracts."""
