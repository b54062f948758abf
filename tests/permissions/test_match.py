"""The matchers: wildcard and glob semantics, checked against reference implementations,
and no blow-up on patterns full of wildcards."""

from __future__ import annotations

import fnmatch
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from earshot.core.permissions.match import command_matches, glob_matches, name_matches, wildcard


def reference_wildcard(pattern: str, text: str) -> bool:
    regex = ".*".join(re.escape(piece) for piece in pattern.split("*"))
    return re.fullmatch(regex, text, re.DOTALL) is not None


@settings(max_examples=500, deadline=None)
@given(pattern=st.text("ab *", max_size=8), text=st.text("ab ", max_size=10))
def test_wildcard_agrees_with_a_regex_reference(pattern: str, text: str) -> None:
    assert wildcard(pattern, text) == reference_wildcard(pattern, text)


@settings(max_examples=500, deadline=None)
@given(pattern=st.text("ab.*?", max_size=8), name=st.text("ab.", max_size=10))
def test_name_globs_agree_with_fnmatch(pattern: str, name: str) -> None:
    assert name_matches(pattern, name) == fnmatch.fnmatchcase(name, pattern)


def test_character_classes() -> None:
    assert name_matches("[ab].py", "a.py")
    assert not name_matches("[ab].py", "c.py")
    assert name_matches("[!ab].py", "c.py")
    assert name_matches("[a-c]x", "bx")
    assert not name_matches("[a-c]x", "dx")
    assert name_matches("[x", "[x")  # an unclosed class is a literal


def test_a_trailing_space_star_also_matches_the_bare_command() -> None:
    assert command_matches("git log *", "git log")
    assert command_matches("git log *", "git log --oneline -5")
    assert not command_matches("git log *", "git logs")
    assert command_matches("git log*", "git logs")
    assert command_matches("git * --force", "git push origin --force")
    assert not command_matches("git * --force", "git push --force-with-lease")


def test_double_star_spans_directories() -> None:
    assert glob_matches("/p/src/**/*.py", "/p/src/a.py")
    assert glob_matches("/p/src/**/*.py", "/p/src/a/b/c.py")
    assert not glob_matches("/p/src/**/*.py", "/p/lib/a.py")
    assert glob_matches("/p/**/secrets", "/p/a/b/secrets/key")
    assert glob_matches("/p/src", "/p/src/deep/file")
    assert not glob_matches("/p/src", "/p/srcx")


def test_many_wildcards_against_a_long_command_finish() -> None:
    # a backtracking regex takes minutes here; the matchers are linear per wildcard
    text = "a " * 5000
    assert not command_matches("a * a * a * a * a * a * b", text)
    assert not glob_matches("/**/a/**/a/**/a/**/a/**/b", "/" + "a/" * 2000 + "c")
    assert not name_matches("*a*a*a*a*a*a*b", "a" * 5000)
