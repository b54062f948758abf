"""Property: however allowed and denied commands are chained and nested, the line is denied
if any part is denied, and allowed only if every part is allowed."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from earshot.core.permissions import Mode
from tests.permissions.helpers import bash, check, ruleset

ALLOWED = [
    "git log -5",
    "npm run build",
    "echo hi",
    "ls -la",
    "cat README.md",
    "env LANG=C git log -1",
    "/usr/bin/git log",
]
DENIED = ["rm -rf build", "curl https://evil.test", "timeout 5 rm -rf x", '"rm" x', "/bin/rm y"]
UNKNOWN = ["make", "python3 x.py", "sudo git log", "./git log"]
ALLOW_RULES = [
    "Bash(git log *)",
    "Bash(npm run build)",
    "Bash(echo *)",
    "Bash(ls *)",
    "Bash(cat *)",
]
DENY_RULES = ["Bash(rm *)", "Bash(curl *)"]
OPERATORS = ["&&", "||", ";", "|", "|&", "&", "\n"]

Line = tuple[str, frozenset[str]]


def _leaves() -> st.SearchStrategy[Line]:
    return st.one_of(
        st.sampled_from(ALLOWED).map(lambda c: (c, frozenset({"allow"}))),
        st.sampled_from(DENIED).map(lambda c: (c, frozenset({"deny"}))),
        st.sampled_from(UNKNOWN).map(lambda c: (c, frozenset({"unknown"}))),
    )


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _nest(children: st.SearchStrategy[Line]) -> st.SearchStrategy[Line]:
    chain = st.tuples(children, st.sampled_from(OPERATORS), children).map(
        lambda t: (f"{t[0][0]} {t[1]} {t[2][0]}", t[0][1] | t[2][1])
    )
    wrapped = st.tuples(
        st.sampled_from(["sub", "group", "dollar", "shell", "eval", "if", "while"]), children
    ).map(_wrap)
    return st.one_of(chain, wrapped)


def _wrap(pair: tuple[str, Line]) -> Line:
    how, (text, kinds) = pair
    allowed_echo = kinds | {"allow"}
    match how:
        case "sub":
            return f"( {text} )", kinds
        case "group":
            return "{ " + text + "\n}", kinds
        case "dollar":
            return f"echo $( {text} )", allowed_echo
        case "shell":
            return f"bash -c {_quote(text)}", kinds
        case "eval":
            return f"eval {_quote(text)}", kinds
        case "if":
            return f"if {text}\nthen echo ok\nfi", allowed_echo
        case _:
            return f"while {text}\ndo echo ok\ndone", allowed_echo


LINES = st.recursive(_leaves(), _nest, max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(line=LINES, mode=st.sampled_from(["ask", "accept-edits"]))
def test_any_chain_is_denied_if_a_part_is_and_allowed_only_if_all_are(
    line: Line, mode: Mode
) -> None:
    text, kinds = line
    rules = ruleset(Path("/project"), allow=ALLOW_RULES, deny=DENY_RULES)
    decision = check(rules, mode, Path("/project"), bash(text))
    if "deny" in kinds:
        expected = "deny"
    elif "unknown" in kinds:
        expected = "ask"
    else:
        expected = "allow"
    assert decision.outcome == expected, (text, decision.reason)


@settings(max_examples=200, deadline=None)
@given(line=LINES)
def test_a_chain_with_a_denied_part_is_denied_even_in_yolo(line: Line) -> None:
    text, kinds = line
    rules = ruleset(Path("/project"), allow=ALLOW_RULES, deny=DENY_RULES)
    outcome = check(rules, "yolo", Path("/project"), bash(text)).outcome
    assert (outcome == "deny") == ("deny" in kinds), text
