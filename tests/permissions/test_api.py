"""The public surface the agent loop and the front-ends build on."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import earshot.core.permissions as permissions


def test_the_package_exports_the_gate_api() -> None:
    assert set(permissions.__all__) >= {
        "MODES",
        "Decision",
        "Mode",
        "PermissionGate",
        "RuleSet",
        "decide",
        "load_rules",
    }


def test_a_decision_carries_outcome_reason_rule_source_commands_and_whether_it_writes() -> None:
    fields = [f.name for f in dataclasses.fields(permissions.Decision)]
    assert fields == ["outcome", "reason", "rule", "source", "commands", "changes_nothing"]
    decision = permissions.Decision("allow", "auto mode allows it")
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.outcome = "deny"  # type: ignore[misc]  # frozen: the assignment must fail


def test_decide_takes_read_only_and_sandboxed_by_keyword() -> None:
    params = inspect.signature(permissions.decide).parameters
    assert list(params) == ["rules", "mode", "cwd", "request", "read_only", "sandboxed"]
    assert params["read_only"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["sandboxed"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["sandboxed"].default is False


def test_load_rules_takes_flag_rules_by_keyword() -> None:
    params = inspect.signature(permissions.load_rules).parameters
    assert list(params) == ["settings", "allow", "ask", "deny"]
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in ("allow", "ask", "deny"))
