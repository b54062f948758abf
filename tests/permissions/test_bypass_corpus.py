"""The bypass corpus (``bypass_corpus.py``) against the decision: every case gets its
expected outcome, a denied case is denied in every mode, and nothing unreadable or unknown
is allowed by a rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.permissions import Mode, RuleSet
from tests.permissions.bypass_corpus import (
    ALLOW,
    ASK,
    CLASSES,
    CORPUS,
    DENY,
    EARLIER_SIZE,
    Case,
)
from tests.permissions.helpers import bash, check, ruleset


@pytest.fixture
def rules(tmp_path: Path) -> RuleSet:
    return ruleset(tmp_path, allow=ALLOW, ask=ASK, deny=DENY)


def _id(case: Case) -> str:
    return f"{case.kind}: {case.shape}" + (f" ({case.mode})" if case.mode != "ask" else "")


def test_the_corpus_grew_by_class() -> None:
    assert len(CORPUS) >= EARLIER_SIZE + 120
    assert len(CLASSES) >= 15
    assert all(len(cases) >= 2 for cases in CLASSES.values())
    assert len({(c.command, c.mode) for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=_id)
def test_bypass_shape_gets_the_expected_decision(
    rules: RuleSet, tmp_path: Path, case: Case
) -> None:
    decision = check(rules, case.mode, tmp_path, bash(case.command))
    assert decision.outcome == case.expected, (case.shape, decision.reason, decision.commands)


DENIED = [c for c in CORPUS if c.expected == "deny" and c.mode != "plan"]


@pytest.mark.parametrize("mode", ["ask", "accept-edits", "auto", "yolo"])
@pytest.mark.parametrize("case", DENIED, ids=_id)
def test_a_denied_shape_is_denied_in_every_mode(
    rules: RuleSet, tmp_path: Path, case: Case, mode: Mode
) -> None:
    assert check(rules, mode, tmp_path, bash(case.command)).outcome == "deny", case.shape


@pytest.mark.parametrize("case", [c for c in CORPUS if c.expected == "ask"], ids=_id)
def test_an_unreadable_or_unknown_shape_is_never_allowed_by_rules(
    rules: RuleSet, tmp_path: Path, case: Case
) -> None:
    for mode in ("ask", "accept-edits"):
        assert check(rules, mode, tmp_path, bash(case.command)).outcome != "allow", (
            case.shape,
            mode,
        )


@pytest.mark.parametrize(
    "command",
    ['eval "$X"', "$CMD -rf ~", "{rm,-rf,~}", "cd /tmp && echo x > f", "echo x > $F"],
)
def test_auto_mode_still_asks_about_what_it_cannot_read(
    rules: RuleSet, tmp_path: Path, command: str
) -> None:
    assert check(rules, "auto", tmp_path, bash(command)).outcome == "ask"
