"""The agent loop: ``Agent`` and its turn steps, the model port, tool batches, the events
front-ends consume, approvals, verification and context shaping. See docs/architecture.md.
"""
