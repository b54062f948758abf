"""Generic helpers every layer may use; they know nothing of earshot's domain.

``errors``: ``UserError``, the base of every failure a person can fix.
"""
