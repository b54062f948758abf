"""The permission gate: which tool calls run, which prompt, which are refused.

::

    rules.py    Mode, MODES, RuleSet, load_rules: rules from settings files and flags
    shell.py    parse_line: a bash line as the commands it runs and the files it writes
    match.py    Rule and the pattern matching (plain code, mypyc-compilable)
    decision.py decide, Decision, CommandVerdict: the eight-step order
    gate.py     PermissionGate: decide plus the session's grants

See ``docs/permissions.md`` for the invariants a change must keep.
"""

from earshot.core.permissions.decision import CommandVerdict, Decision, Outcome, decide
from earshot.core.permissions.gate import PermissionGate
from earshot.core.permissions.match import Rule
from earshot.core.permissions.rules import MODES, Mode, RuleSet, load_rules, parse_mode

__all__ = [
    "MODES",
    "CommandVerdict",
    "Decision",
    "Mode",
    "Outcome",
    "PermissionGate",
    "Rule",
    "RuleSet",
    "decide",
    "load_rules",
    "parse_mode",
]
