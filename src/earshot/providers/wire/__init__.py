"""Wire adapters: one module per vendor API; ``base`` says what an adapter is."""
