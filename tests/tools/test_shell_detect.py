"""Finding bash: POSIX PATH and /bin/sh, and Git Bash on Windows over a fake filesystem."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import PureWindowsPath

import pytest

from earshot.core.tools._shell import GIT_FOR_WINDOWS_URL, ShellChoice, detect_bash, find_bash
from earshot.core.tools.base import ToolError

WSL_BASH = r"C:\Windows\System32\bash.exe"


class FakeWindows:
    """Files that exist (case-insensitively), what PATH resolves, and a registry."""

    def __init__(
        self,
        *files: str,
        on_path: Mapping[str, str] | None = None,
        registry: str | None = None,
    ) -> None:
        self.files = {str(PureWindowsPath(f)).lower() for f in files}
        self.on_path = dict(on_path or {})
        self.registry = registry
        self.registry_reads = 0

    def exists(self, path: str) -> bool:
        return path.lower() in self.files

    def which(self, name: str) -> str | None:
        return self.on_path.get(name)

    def read_registry(self) -> str | None:
        self.registry_reads += 1
        return self.registry

    def detect(self, env: Mapping[str, str] | None = None) -> ShellChoice:
        return detect_bash(
            platform="win32",
            env=env if env is not None else {},
            which=self.which,
            exists=self.exists,
            read_registry=self.read_registry,
        )


def win(path: str) -> str:
    return str(PureWindowsPath(path))


@pytest.mark.parametrize(
    ("git", "bash"),
    [
        (r"C:\Program Files\Git\cmd\git.exe", r"C:\Program Files\Git\bin\bash.exe"),
        (r"D:\tools\git\bin\git.exe", r"D:\tools\git\bin\bash.exe"),
        (r"E:\PortableGit\mingw64\bin\git.exe", r"E:\PortableGit\bin\bash.exe"),
    ],
)
def test_windows_uses_the_git_bash_of_the_git_on_path(git: str, bash: str) -> None:
    fake = FakeWindows(bash, r"C:\Program Files\Git\bin\bash.exe", on_path={"git": git})
    assert fake.detect() == ShellChoice(win(bash))
    assert fake.registry_reads == 0


def test_windows_falls_back_to_usr_bin_bash_under_the_git_root() -> None:
    fake = FakeWindows(r"D:\git\usr\bin\bash.exe", on_path={"git": r"D:\git\cmd\git.exe"})
    assert fake.detect().path == win(r"D:\git\usr\bin\bash.exe")


def test_windows_git_root_without_bash_falls_through_to_program_files() -> None:
    fake = FakeWindows(r"D:\Apps\Git\bin\bash.exe", on_path={"git": r"D:\scoop\shims\git.exe"})
    assert fake.detect({"ProgramFiles": r"D:\Apps"}).path == win(r"D:\Apps\Git\bin\bash.exe")


@pytest.mark.parametrize(
    ("env", "bash"),
    [
        ({"PROGRAMFILES(X86)": r"C:\Program Files (x86)"}, r"C:\Program Files (x86)\Git\bin"),
        (
            {"localappdata": r"C:\Users\me\AppData\Local"},
            r"C:\Users\me\AppData\Local\Programs\Git\bin",
        ),
        ({}, r"C:\Program Files\Git\bin"),
    ],
)
def test_windows_looks_in_the_usual_install_locations(env: dict[str, str], bash: str) -> None:
    fake = FakeWindows(bash + r"\bash.exe")
    assert fake.detect(env).path == win(bash + r"\bash.exe")
    assert fake.registry_reads == 0


def test_windows_reads_the_registry_install_path_last() -> None:
    fake = FakeWindows(r"F:\Custom\Git\bin\bash.exe", registry=r"F:\Custom\Git")
    assert fake.detect({"ProgramFiles": r"C:\Program Files"}).path == win(
        r"F:\Custom\Git\bin\bash.exe"
    )
    assert fake.registry_reads == 1


def test_windows_never_uses_wsl_bash() -> None:
    fake = FakeWindows(
        WSL_BASH,
        r"C:\Windows\System32\bin\bash.exe",
        on_path={"bash": WSL_BASH},
        registry=r"C:\Windows\System32",
    )
    with pytest.raises(ToolError) as caught:
        fake.detect({"SystemRoot": r"C:\Windows"})
    assert GIT_FOR_WINDOWS_URL in caught.value.message
    assert "System32" not in caught.value.message
    assert caught.value.brief == "Git Bash not found"


def test_windows_without_git_bash_points_to_the_installer() -> None:
    fake = FakeWindows(on_path={"git": r"C:\Program Files\Git\cmd\git.exe"})
    with pytest.raises(ToolError) as caught:
        fake.detect({"ProgramFiles": r"C:\Program Files"})
    message = caught.value.message
    assert f"install Git for Windows from {GIT_FOR_WINDOWS_URL}" in message
    assert win(r"C:\Program Files\Git\bin\bash.exe") in message
    assert fake.registry_reads == 1


def posix(found: str | None, files: set[str], platform: str = "linux") -> ShellChoice:
    return detect_bash(
        platform=platform,
        env={},
        which=lambda name: found if name == "bash" else None,
        exists=files.__contains__,
        read_registry=lambda: pytest.fail("the registry is read only on Windows"),
    )


@pytest.mark.parametrize("platform", ["linux", "darwin", "freebsd14"])
def test_posix_uses_the_bash_on_path(platform: str) -> None:
    assert posix("/opt/homebrew/bin/bash", {"/bin/sh"}, platform) == ShellChoice(
        "/opt/homebrew/bin/bash"
    )


def test_posix_without_bash_uses_sh_with_a_note() -> None:
    choice = posix(None, {"/bin/sh"})
    assert choice.path == "/bin/sh"
    assert "bash was not found on PATH" in choice.note


def test_posix_without_any_shell_is_an_error() -> None:
    with pytest.raises(ToolError, match="install bash"):
        posix(None, set())


def test_find_bash_on_this_machine_finds_an_existing_shell() -> None:
    # On Windows this needs Git Bash, as earshot does (CI's Windows runners have it).
    choice = find_bash()
    assert os.path.isfile(choice.path)
    assert "system32" not in choice.path.lower()
