"""Built-in tools, one module each. ``base`` says what a tool is; ``ops`` what it is given."""
