"""``earshot._base.which``: the program a session runs (git for undo, bwrap for the
sandbox) is the one ``shutil.which`` would find."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from earshot._base.which import which


def _program(directory: Path, name: str, *, executable: bool = True) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755 if executable else 0o644)
    return path


def test_the_first_executable_on_path_is_found_as_shutil_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _program(tmp_path / "a", "tool", executable=False)  # not executable: skipped
    (tmp_path / "b" / "tool").mkdir(parents=True)  # a directory: skipped
    found = _program(tmp_path / "c", "tool")
    _program(tmp_path / "d", "tool")  # later on PATH: shadowed
    dirs = [tmp_path / d for d in "abcd"]
    monkeypatch.setenv("PATH", ":".join(map(str, [*dirs, tmp_path / "missing"])))
    assert which("tool") == str(found) == shutil.which("tool")
    assert which("absent") is None is shutil.which("absent")


def test_an_empty_path_finds_nothing_even_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _program(tmp_path, "tool")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "")
    assert which("tool") is None is shutil.which("tool")


def test_a_name_with_a_directory_is_checked_where_it_points(tmp_path: Path) -> None:
    found = _program(tmp_path / "bin", "tool")
    assert which(str(found)) == str(found)
    assert which(str(tmp_path / "bin" / "absent")) is None
