"""The sandbox as data: settings, the policy, the bubblewrap arguments, the Seatbelt profile,
and how a failure is read. Runs on every OS (``test_sandbox.py`` runs real bubblewrap)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from earshot.core.config.settings import SettingsError, SettingsFile
from earshot.core.sandbox import (
    Backend,
    SandboxConfig,
    build_policy,
    bwrap_argv,
    find_backend,
    install_hint,
    load_sandbox_config,
    open_sandbox,
    sandbox_failure,
    seatbelt_profile,
)


def _file(scope: str, path: Path, sandbox: object) -> SettingsFile:
    return SettingsFile(scope, path, {"sandbox": sandbox})  # type: ignore[dict-item]  # test input of any shape


def test_settings_choose_mode_network_and_writable_paths(tmp_path: Path) -> None:
    user = tmp_path / "user.json"
    extra = tmp_path / "cache"
    config = load_sandbox_config(
        [_file("user", user, {"mode": "required", "network": True, "writable": [str(extra)]})],
        tmp_path / "project",
    )
    assert config.mode == "required"
    assert config.network is True
    assert config.writable == (extra.resolve(),)
    assert config.ignored == ()


def test_the_flag_wins_over_settings(tmp_path: Path) -> None:
    config = load_sandbox_config(
        [_file("local", tmp_path / "l.json", {"mode": "required"})], tmp_path, mode="off"
    )
    assert config.mode == "off"


def test_a_checked_in_file_can_tighten_but_never_loosen(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = project / ".earshot" / "settings.json"
    loosen = _file("project", path, {"mode": "off", "network": True, "writable": ["/etc", "build"]})
    config = load_sandbox_config([loosen], project)
    assert config.mode == "auto"
    assert config.network is False
    assert config.writable == ((project / "build").resolve(),)
    assert len(config.ignored) == 3
    assert all(str(path) in message for message in config.ignored)
    assert any('"sandbox.mode": "off" ignored' in m for m in config.ignored)
    assert any('"sandbox.network": true ignored' in m for m in config.ignored)
    assert any("'/etc' ignored" in m for m in config.ignored)
    tighten = load_sandbox_config([_file("project", path, {"mode": "required"})], project)
    assert tighten.mode == "required"


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("on", '"sandbox"'),
        ({"mode": "sometimes"}, '"sandbox.mode"'),
        ({"network": ["example.com"]}, '"sandbox.network"'),
        ({"writable": "build"}, '"sandbox.writable"'),
        ({"writeable": []}, '"sandbox.writeable"'),
    ],
)
def test_bad_sandbox_settings_name_the_file_and_field(
    tmp_path: Path, value: object, field: str
) -> None:
    path = tmp_path / "settings.json"
    with pytest.raises(SettingsError) as error:
        load_sandbox_config([_file("user", path, value)], tmp_path)
    assert str(path) in str(error.value)
    assert field in str(error.value)


def _git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def test_policy_protects_git_internals_and_earshot_settings(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    _git_init(project)
    policy = build_policy(project / "src", config=SandboxConfig())
    git = (project / ".git").resolve()
    assert (project / "src").resolve() in policy.writable
    assert git in policy.writable
    assert git / "config" in policy.read_only
    assert git / "hooks" in policy.read_only
    assert (project / "src").resolve() / ".earshot" in policy.read_only
    assert (project / "src").resolve() / ".bashrc" in policy.read_only
    assert policy.network is False


def test_policy_of_a_linked_worktree_covers_its_common_git_dir(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    _git_init(main)
    subprocess.run(
        [
            "git",
            "-C",
            str(main),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "--allow-empty",
            "-qm",
            "x",
        ],
        check=True,
    )
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(linked)], check=True)
    policy = build_policy(linked, config=SandboxConfig())
    common = (main / ".git").resolve()
    assert common in policy.writable
    assert common / "config" in policy.read_only
    assert common / "hooks" in policy.read_only


def test_earshot_own_settings_stay_read_only_inside_a_writable_root(tmp_path: Path) -> None:
    config_dir = tmp_path / "project" / "conf"
    config_dir.mkdir(parents=True)
    policy = build_policy(tmp_path / "project", protected=[config_dir], config=SandboxConfig())
    assert config_dir.resolve() in policy.read_only


def test_bwrap_arguments_mount_in_the_right_order(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _git_init(project)
    policy = build_policy(project, config=SandboxConfig())
    argv, created = bwrap_argv("/usr/bin/bwrap", policy, ["bash", "-c", "true"])
    joined = " ".join(argv)
    assert argv[:5] == ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev"]
    assert "--unshare-net" in argv
    assert "--die-with-parent" in argv
    assert joined.index("--tmpfs /tmp") < joined.index(f"--bind {project.resolve()} ")
    assert joined.index(f"--bind {project.resolve()} ") < joined.index(
        "--ro-bind " + str((project / ".git" / "config").resolve())
    )
    assert argv[-4:] == ["--", "bash", "-c", "true"]
    assert created == [project.resolve() / ".earshot"]
    networked = build_policy(project, config=SandboxConfig(network=True))
    assert "--unshare-net" not in bwrap_argv("bwrap", networked, ["true"])[0]


def test_a_protected_start_up_file_that_is_a_link_protects_its_target(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "bashrc").write_text("alias ll='ls -l'\n")
    (project / ".bashrc").symlink_to(dotfiles / "bashrc")
    (project / ".profile").symlink_to(tmp_path / "nowhere")  # a dangling link
    policy = build_policy(project, config=SandboxConfig())
    argv, _ = bwrap_argv("bwrap", policy, ["true"])
    joined = " ".join(argv)
    real = project.resolve()
    assert f"--ro-bind {(dotfiles / 'bashrc').resolve()} {real / '.bashrc'} " in joined
    assert str(real / ".profile") not in joined


def test_seatbelt_profile_allows_writes_only_where_the_policy_does(tmp_path: Path) -> None:
    project = tmp_path / 'pro"ject'
    project.mkdir()
    _git_init(project)
    profile = seatbelt_profile(build_policy(project, config=SandboxConfig()), Path("/private/t"))
    lines = profile.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny file-write*)"]
    real = str(project.resolve()).replace('"', '\\"')
    assert f'(subpath "{real}")' in profile
    assert '(subpath "/private/t")' in profile
    deny = next(line for line in lines if line.startswith("(deny file-write* "))
    assert "hooks" in deny and "config" in deny and ".earshot" in deny
    assert lines.index(deny) > lines.index(
        next(x for x in lines if x.startswith("(allow file-write"))
    )
    assert "(deny network*)" in profile
    assert "(deny network*)" not in seatbelt_profile(
        build_policy(project, config=SandboxConfig(network=True)), Path("/t")
    )


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("touch: cannot touch '/etc/x': Read-only file system", "read-only file system"),
        ("bash: /usr/lib/x: Permission denied", "/usr/lib/x"),
        ("curl: (6) Could not resolve host: example.com", "network"),
        ("ssh: connect to host example.com port 22: Network is unreachable", "network"),
        ("pip: Temporary failure in name resolution", "network"),
    ],
)
def test_failures_that_look_like_the_sandbox_say_why(
    tmp_path: Path, output: str, expected: str
) -> None:
    policy = build_policy(tmp_path, config=SandboxConfig())
    why = sandbox_failure(output, policy)
    assert why is not None and expected in why


@pytest.mark.parametrize(
    "output",
    [
        "FAILED tests/test_x.py::test_y - AssertionError",
        "bash: ./script.sh: Permission denied",
        "error: src/main.rs:3: mismatched types",
    ],
)
def test_ordinary_failures_are_not_blamed_on_the_sandbox(tmp_path: Path, output: str) -> None:
    assert sandbox_failure(output, build_policy(tmp_path, config=SandboxConfig())) is None


def test_network_failures_are_not_blamed_when_the_network_is_on(tmp_path: Path) -> None:
    policy = build_policy(tmp_path, config=SandboxConfig(network=True))
    assert sandbox_failure("Could not resolve host: x", policy) is None


@pytest.mark.parametrize(
    ("os_release", "command"),
    [
        ('ID=debian\nVERSION_ID="12"', "sudo apt install bubblewrap"),
        ("ID=ubuntu\nID_LIKE=debian", "sudo apt install bubblewrap"),
        ('ID="fedora"', "sudo dnf install bubblewrap"),
        ("ID=arch", "sudo pacman -S bubblewrap"),
        ('ID=linuxmint\nID_LIKE="ubuntu debian"', "sudo apt install bubblewrap"),
        ("ID=alpine", "sudo apk add bubblewrap"),
        ("ID=opensuse-tumbleweed", "sudo zypper install bubblewrap"),
        ("", "install bubblewrap (bwrap) with your distribution's package manager"),
    ],
)
def test_the_install_command_fits_the_distribution(os_release: str, command: str) -> None:
    assert install_hint(os_release) == command


def test_backends_per_os() -> None:
    assert find_backend("linux", which=lambda name: "/opt/bw/bwrap") == Backend(
        "bwrap", "/opt/bw/bwrap"
    )
    assert find_backend("linux", which=lambda name: None) is None
    assert find_backend("win32", which=lambda name: "C:/x.exe") is None
    assert find_backend("darwin", which=lambda name: "/usr/bin/sandbox-exec") == Backend(
        "seatbelt", "/usr/bin/sandbox-exec"
    )


def test_windows_says_plainly_there_is_no_sandbox(tmp_path: Path) -> None:
    sandbox = open_sandbox(tmp_path, SandboxConfig(), platform="win32")
    assert not sandbox.active
    assert "this OS has no sandbox" in sandbox.notice


def test_mode_off_looks_nothing_up_and_says_nothing(tmp_path: Path) -> None:
    sandbox = open_sandbox(tmp_path, SandboxConfig(mode="off"), platform="win32")
    assert not sandbox.active
    assert sandbox.notice == ""
    assert sandbox.wrap(["bash", "-c", "x"]) == ["bash", "-c", "x"]


def test_a_bwrap_that_cannot_start_is_dropped_with_a_note(tmp_path: Path) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    broken.chmod(0o755)
    sandbox = open_sandbox(tmp_path, SandboxConfig(), backend=Backend("bwrap", str(broken)))
    assert sandbox.wrap(["bash", "-c", "x"]) == ["bash", "-c", "x"]
    assert not sandbox.active
    note = sandbox.take_note()
    assert "cannot start here" in note and "No permissions" in note
    assert sandbox.take_note() == ""
