"""The permission gate: which tool calls run, which prompt, which are refused.

::

    rules.py    Mode, MODES, RuleSet, load_rules: rules from settings files and flags
    shell.py    parse_line: a bash line as the commands it runs and the files it writes
    match.py    Rule and the pattern matching (plain code, mypyc-compilable)
    decision.py decide, Decision, CommandVerdict: the eight-step order
    gate.py     PermissionGate: decide plus the session's grants

See ``docs/permissions.md`` for the invariants a change must keep.

Opening a session needs the rules and the gate; ``decide`` and the bash parser it uses
(tree-sitter) load when first named here or when the gate first decides a call.
"""

from typing import TYPE_CHECKING

from earshot.core.permissions.gate import PermissionGate
from earshot.core.permissions.match import Rule
from earshot.core.permissions.rules import MODES, Mode, RuleSet, load_rules, parse_mode

if TYPE_CHECKING:
    from earshot.core.permissions.decision import CommandVerdict, Decision, Outcome, decide

_FROM_DECISION = frozenset({"CommandVerdict", "Decision", "Outcome", "decide"})


def __getattr__(name: str) -> object:
    if name in _FROM_DECISION:
        from earshot.core.permissions import decision

        return getattr(decision, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
