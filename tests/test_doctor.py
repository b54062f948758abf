"""``earshot doctor`` as a user runs it: a real process per test, in the hermetic HOME.

The fallback tests copy the installed package into a temp directory and plant a corrupt
compiled file beside a module's source, the way a partial download or a copy across
platforms leaves an install: earshot must still start, run that module as pure Python, and
say so once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import earshot
from earshot import __version__
from earshot._compiled import COMPILED
from earshot.cli.doctor_cmd import PACKAGES
from tests.sandbox_support import path_without_bwrap

KEY = "sk-ant-doctor-test-0123456789"
STORED_KEY = "sk-or-stored-9876543210"


def doctor(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # --offline: these tests set real providers' keys; reachability is tested on
        # loopback (tests/test_cli_catalog.py)
        [sys.executable, "-m", "earshot", "doctor", "--offline", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=60,
        check=False,
    )


def _store_key(home: Path, provider: str, key: str) -> Path:
    path = home / ".config" / "earshot" / "auth.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "keys": {provider: {"type": "api_key", "key": key}}}))
    path.chmod(0o600)
    return path


def test_doctor_json_reports_versions_modules_config_keys_and_tools(
    hermetic_env: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    (work / ".earshot").mkdir(parents=True)
    (work / ".earshot" / "settings.json").write_text('{"model": "anthropic/claude-sonnet-4-6"}')
    auth = _store_key(hermetic_env, "openrouter", STORED_KEY)
    done = doctor("--json", cwd=work, env={"ANTHROPIC_API_KEY": KEY})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["earshot"] == __version__
    assert report["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    assert set(report["versions"]) == set(PACKAGES)
    assert all(v not in ("missing", "unknown") for v in report["versions"].values())
    assert [m["module"] for m in report["compiled"]] == list(COMPILED)
    assert {m["status"] for m in report["compiled"]} <= {"compiled", "pure"}
    scopes = {c["scope"]: c for c in report["config"]}
    assert scopes["project"]["found"] is True
    assert scopes["local"]["found"] is False
    assert report["auth"] == {"path": str(auth), "found": True, "providers": ["openrouter"]}
    sources = {p["id"]: p["key_source"] for p in report["providers"]}
    assert sources["anthropic"] == "env ANTHROPIC_API_KEY"
    assert sources["openrouter"] == "auth.json"
    assert set(report["tools"]) == {"git", "ripgrep", "bash"}
    assert report["tools"]["git"]["found"] == (shutil.which("git") is not None)
    assert report["tools"]["bash"]["found"] is True
    assert report["warnings"] == []
    assert report["problems"] == []


def test_doctor_never_prints_a_key(hermetic_env: Path, tmp_path: Path) -> None:
    _store_key(hermetic_env, "openrouter", STORED_KEY)
    for args in ((), ("--json",)):
        done = doctor(*args, cwd=tmp_path, env={"ANTHROPIC_API_KEY": KEY})
        assert done.returncode == 0, done.stderr
        for secret in (KEY, STORED_KEY, KEY[-8:], STORED_KEY[-8:]):
            assert secret not in done.stdout + done.stderr


def test_doctor_text_names_each_section_and_where_keys_come_from(tmp_path: Path) -> None:
    done = doctor(cwd=tmp_path, env={"ANTHROPIC_API_KEY": KEY})
    assert done.returncode == 0, done.stderr
    for heading in ("compiled modules", "versions", "config files", "providers with a key"):
        assert f"\n{heading}\n" in done.stdout
    assert "env ANTHROPIC_API_KEY" in done.stdout
    assert done.stderr == ""


def test_doctor_reports_an_unreadable_settings_file_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / ".earshot").mkdir()
    bad = tmp_path / ".earshot" / "settings.local.json"
    bad.write_text('{"model": ')
    done = doctor(cwd=tmp_path)
    assert done.returncode == 1
    assert str(bad) in done.stderr
    report = json.loads(doctor("--json", cwd=tmp_path).stdout)
    assert str(bad) in report["problems"][0]


def test_doctor_warns_about_an_auth_file_others_can_read(
    hermetic_env: Path, tmp_path: Path
) -> None:
    auth = _store_key(hermetic_env, "openrouter", STORED_KEY)
    auth.chmod(0o644)
    done = doctor(cwd=tmp_path)
    assert done.returncode == 0
    # File modes mean nothing on Windows: no warning there.
    assert (f"chmod 600 {auth}" in done.stderr) == (os.name == "posix")


def _install_with_corrupt_extension(root: Path, module: str) -> Path:
    """A copy of the installed package where ``module`` also has a corrupt compiled file."""
    package = Path(earshot.__file__).parent
    target = root / "earshot"
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
    source = root / (module.replace(".", "/") + ".py")
    assert source.is_file()
    for suffix in EXTENSION_SUFFIXES:  # whatever was compiled there: one corrupt file instead
        source.with_name(source.stem + suffix).unlink(missing_ok=True)
    broken = source.with_name(source.stem + EXTENSION_SUFFIXES[0])
    broken.write_bytes(b"\x7fELF truncated by a partial download")
    return broken


def test_a_corrupt_compiled_module_falls_back_with_one_warning(tmp_path: Path) -> None:
    install = tmp_path / "install"
    broken = _install_with_corrupt_extension(install, "earshot.core.permissions.match")
    env = {"PYTHONPATH": str(install)}
    done = doctor(cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "earshot.core.permissions.match" in warnings[0]
    assert "pure Python" in warnings[0]
    report = json.loads(doctor("--json", cwd=tmp_path, env=env).stdout)
    match = report["compiled"][0]
    assert match["status"] == "fallback"
    assert match["file"] == str(broken.with_name("match.py"))
    assert len(report["warnings"]) == 1


def test_a_corrupt_compiled_decoder_still_decodes_as_pure_python(tmp_path: Path) -> None:
    install = tmp_path / "install"
    _install_with_corrupt_extension(install, "earshot.providers.sse")
    probe = (
        "from earshot.providers.sse import SSEDecoder\n"
        "from earshot._compiled import FALLBACKS\n"
        "events = SSEDecoder().feed(b'event: ping\\ndata: {}\\n\\n')\n"
        "print(events[0].event, events[0].data, sorted(FALLBACKS))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(install)},
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ping {} ['earshot.providers.sse']\n"


def test_doctor_shows_the_sandbox_and_how_to_install_it_when_missing(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shown = json.loads(doctor("--json", cwd=work).stdout)["sandbox"]
    assert shown["mode"] == "auto"
    if sys.platform == "win32":
        assert shown["active"] is False
        assert "this OS has no sandbox" in shown["note"]
        return
    assert shown["active"] is True
    assert shown["backend"] == ("bwrap" if sys.platform.startswith("linux") else "seatbelt")
    if not sys.platform.startswith("linux"):
        return
    no_bwrap = path_without_bwrap(tmp_path)
    done = doctor(cwd=work, env={"PATH": no_bwrap})
    assert done.returncode == 0
    assert "bubblewrap (bwrap) is not on PATH" in done.stdout
    assert "install" in done.stderr and "bubblewrap" in done.stderr
    (work / ".earshot").mkdir()
    (work / ".earshot" / "settings.local.json").write_text('{"sandbox": {"mode": "required"}}')
    refused = doctor(cwd=work, env={"PATH": no_bwrap})
    assert refused.returncode == 1
    assert 'sandbox.mode is "required"' in refused.stderr
