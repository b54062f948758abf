"""The single file's unpack logic (build/unpack.py) and file layout (build/onefile.py).

These run everywhere, fast, on a small fake folder build. The real single file (launcher,
PyInstaller, racing first runs) is tested in tests/test_build.py when
``EARSHOT_FROZEN_ONEFILE`` names one; docs/build.md describes both.
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from earshot import __version__
from tests.frozen import Binary

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "build"))
import onefile  # noqa: E402
import rthook_env  # noqa: E402
import unpack  # noqa: E402

# Read at import: the hermetic fixture clears EARSHOT_* variables before each test runs.
ONEFILE = os.environ.get("EARSHOT_FROZEN_ONEFILE", "")
MTIME = 1_700_000_000
ID = "1.2.3-0123456789abcdef"


def make_tree(path: Path, extra: bytes = b"") -> Path:
    """A folder build in miniature: the launcher-facing exe and an _internal/ tree."""
    (path / "_internal" / "pkg").mkdir(parents=True)
    (path / unpack.EXE).write_bytes(b"#!/bin/sh\necho fake earshot\n")
    (path / "_internal" / "libpython.so").write_bytes(b"\x7fELF" + b"x" * 5000 + extra)
    (path / "_internal" / "pkg" / "data.json").write_text('{"a": 1}\n')
    return path


def make_bundle(tmp_path: Path) -> tuple[Path, unpack.Manifest]:
    """What the installer finds in its PyInstaller unpack: earshot/ and earshot.manifest."""
    bundle = tmp_path / "bundle"
    tree = make_tree(bundle / "earshot")
    text = unpack.build_manifest(tree, MTIME)
    (bundle / "earshot.manifest").write_text(text, encoding="utf-8")
    return bundle, unpack.parse_manifest(text)


def launcher_env(root: Path) -> dict[str, str]:
    return {"EARSHOT_ONEFILE_ID": ID, "EARSHOT_ONEFILE_ROOT": str(root), "PATH": "/bin"}


# --- the manifest -----------------------------------------------------------------------------


def test_manifest_lists_every_file_with_its_hash_and_size(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "t")
    manifest = unpack.parse_manifest(unpack.build_manifest(tree, MTIME))
    assert manifest.mtime == MTIME
    paths = {e.path: e for e in manifest.entries}
    assert set(paths) == {unpack.EXE, "_internal/libpython.so", "_internal/pkg/data.json"}
    assert paths["_internal/libpython.so"].size == 5004
    assert paths["_internal/pkg/data.json"].sha256 == unpack.file_sha256(
        tree / "_internal" / "pkg" / "data.json"
    )


def test_the_id_changes_with_any_file_of_the_build(tmp_path: Path) -> None:
    one = unpack.build_manifest(make_tree(tmp_path / "a"), MTIME)
    same = unpack.build_manifest(make_tree(tmp_path / "b"), MTIME)
    other = unpack.build_manifest(make_tree(tmp_path / "c", extra=b"!"), MTIME)
    assert unpack.manifest_id("1.2.3", one) == unpack.manifest_id("1.2.3", same)
    assert unpack.manifest_id("1.2.3", one) != unpack.manifest_id("1.2.3", other)
    assert unpack.manifest_id("1.2.3", one).startswith("1.2.3-")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("earshot-manifest 2\nmtime 1\n", "line 1"),
        ("earshot-manifest 1\nmtime soon\n" + "a" * 64 + " 1 x\n", "line 2"),
        ("earshot-manifest 1\nmtime 1\n" + "a" * 64 + " 1 ../etc/passwd\n", "line 3"),
        ("earshot-manifest 1\nmtime 1\n" + "a" * 64 + " 1 x\nnonsense\n", "line 4"),
        ("earshot-manifest 1\nmtime 1\n" + "a" * 64 + " 1 x", "no final newline"),
    ],
)
def test_a_bad_manifest_is_refused_naming_the_line(text: str, where: str) -> None:
    with pytest.raises(unpack.ManifestError, match=where):
        unpack.parse_manifest(text)


# --- install: layout, verification, damage, races ------------------------------------------


def test_first_run_unpacks_into_a_content_addressed_folder(tmp_path: Path) -> None:
    bundle, manifest = make_bundle(tmp_path)
    root = tmp_path / "cache" / "onefile"
    plan = unpack.prepare(bundle, launcher_env(root))
    assert plan.warning is None
    assert plan.folder == root / ID
    assert unpack.unpacked_ok(plan.folder, manifest)
    unpack.verify(plan.folder, manifest)
    assert (plan.folder / "_internal" / "pkg" / "data.json").read_text() == '{"a": 1}\n'
    assert int((plan.folder / unpack.EXE).stat().st_mtime) == MTIME
    marker = json.loads((plan.folder / unpack.MARKER).read_text())
    assert marker == {"id": ID, "cached": True, "reason": None}
    assert sorted(p.name for p in root.iterdir()) == [".lock", ID]  # nothing left behind


def test_a_damaged_payload_is_refused_and_nothing_is_installed(tmp_path: Path) -> None:
    bundle, _ = make_bundle(tmp_path)
    (bundle / "earshot" / "_internal" / "pkg" / "data.json").write_text('{"a": 2}\n')
    root = tmp_path / "cache"
    with pytest.raises(unpack.DamagedPayload, match=r"_internal/pkg/data\.json"):
        unpack.prepare(bundle, launcher_env(root))
    assert not (root / ID).exists()
    assert not list(root.glob(".staging-*"))


@pytest.mark.parametrize("damage", ["truncate", "modify", "delete"])
def test_a_damaged_unpack_fails_the_start_check_and_is_replaced(
    tmp_path: Path, damage: str
) -> None:
    bundle, manifest = make_bundle(tmp_path)
    root = tmp_path / "cache"
    folder = unpack.prepare(bundle, launcher_env(root)).folder
    lib = folder / "_internal" / "libpython.so"
    if damage == "truncate":
        with lib.open("r+b") as f:
            f.truncate(100)
    elif damage == "modify":
        time.sleep(0.01)
        with lib.open("r+b") as f:
            f.write(b"MZ")  # same size, new content: the mtime tells
        os.utime(lib, (MTIME + 7, MTIME + 7))  # as a slow clock or copy tool might leave it
    else:
        lib.unlink()
    assert not unpack.unpacked_ok(folder, manifest)

    bundle2, _ = make_bundle(tmp_path / "second")
    again = unpack.prepare(bundle2, launcher_env(root)).folder
    assert again == folder
    unpack.verify(again, manifest)
    assert unpack.unpacked_ok(again, manifest)
    assert not list(root.glob(".trash-*"))


def test_a_later_run_reuses_an_intact_unpack(tmp_path: Path) -> None:
    bundle, _ = make_bundle(tmp_path)
    root = tmp_path / "cache"
    folder = unpack.prepare(bundle, launcher_env(root)).folder
    before = (folder / unpack.MARKER).stat().st_mtime_ns
    bundle2, _ = make_bundle(tmp_path / "second")
    assert unpack.prepare(bundle2, launcher_env(root)).folder == folder
    assert (folder / unpack.MARKER).stat().st_mtime_ns == before


RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import unpack
    bundle, root, go = Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():
        time.sleep(0.001)
    env = {"EARSHOT_ONEFILE_ID": sys.argv[5], "EARSHOT_ONEFILE_ROOT": str(root)}
    print(unpack.prepare(bundle, env).folder)
    """
)


def test_racing_first_runs_end_with_one_intact_unpack(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    go = tmp_path / "go"
    racers = []
    for n in range(4):
        bundle, manifest = make_bundle(tmp_path / f"r{n}")
        args = [str(ROOT / "build"), str(bundle), str(root), str(go), ID]
        racers.append(
            subprocess.Popen(
                [sys.executable, "-c", RACER, *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    go.touch()
    outputs = [r.communicate(timeout=60) for r in racers]
    assert [r.returncode for r in racers] == [0] * 4, [err for _, err in outputs]
    assert {out.strip() for out, _ in outputs} == {str(root / ID)}
    unpack.verify(root / ID, manifest)
    assert unpack.unpacked_ok(root / ID, manifest)
    assert sorted(p.name for p in root.iterdir()) == [".lock", ID]


# --- falling back -------------------------------------------------------------------------


def test_an_unwritable_cache_dir_falls_back_to_the_temporary_unpack_with_one_warning(
    tmp_path: Path,
) -> None:
    bundle, manifest = make_bundle(tmp_path)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir should be\n")
    plan = unpack.prepare(bundle, launcher_env(blocker / "onefile"))
    assert plan.folder == bundle / "earshot"
    assert plan.warning is not None
    assert plan.warning.count("warning") == 1
    assert "EARSHOT_CACHE_DIR" in plan.warning
    assert str(blocker) in plan.warning
    assert unpack.unpacked_ok(plan.folder, manifest)
    marker = json.loads((plan.folder / unpack.MARKER).read_text())
    assert marker["cached"] is False


def test_without_a_home_there_is_no_cache_and_no_failure(tmp_path: Path) -> None:
    bundle, _ = make_bundle(tmp_path)
    plan = unpack.prepare(bundle, {"EARSHOT_ONEFILE_ID": ID, "EARSHOT_ONEFILE_ROOT": ""})
    assert plan.folder == bundle / "earshot"
    assert plan.warning is not None
    assert "no home or cache directory" in plan.warning


def test_the_installer_refuses_to_run_without_the_launcher(tmp_path: Path) -> None:
    bundle, _ = make_bundle(tmp_path)
    with pytest.raises(unpack.ManifestError, match="without the launcher"):
        unpack.prepare(bundle, {})


def test_earshot_runs_with_the_launchers_variables_removed_and_tmp_restored() -> None:
    tmpvar = unpack.TMPVAR
    env = unpack.child_env(
        {
            "EARSHOT_ONEFILE": "/home/u/bin/earshot",
            "EARSHOT_ONEFILE_ID": ID,
            "EARSHOT_ONEFILE_ROOT": "/c/onefile",
            "EARSHOT_ONEFILE_INSTALLER": "/c/onefile/.installer-1-0",
            "EARSHOT_ONEFILE_TMP": "/scratch",
            tmpvar: "/c/onefile",
            "LD_LIBRARY_PATH": "/tmp/_MEI123",
            "LD_LIBRARY_PATH_ORIG": "/opt/lib",
            "HOME": "/home/u",
        }
    )
    assert env == {
        "EARSHOT_ONEFILE": "/home/u/bin/earshot",
        tmpvar: "/scratch",
        "LD_LIBRARY_PATH": "/opt/lib",
        "HOME": "/home/u",
        "PYINSTALLER_RESET_ENVIRONMENT": "1",
    }
    plain = unpack.child_env({"EARSHOT_ONEFILE_ROOT": "/c", tmpvar: "/c", "LD_LIBRARY_PATH": "x"})
    assert tmpvar not in plain
    assert "LD_LIBRARY_PATH" not in plain


BUNDLE = "/home/u/.cache/earshot/onefile/1.2.3-0123456789abcdef/_internal"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # the bootloader's: the user's value comes back, or none
        (
            {"LD_LIBRARY_PATH": f"{BUNDLE}:/opt/lib", "LD_LIBRARY_PATH_ORIG": "/opt/lib"},
            {"LD_LIBRARY_PATH": "/opt/lib"},
        ),
        ({"LD_LIBRARY_PATH": BUNDLE}, {}),
        # a start that added the bundle twice saved it in the original too
        (
            {"LD_LIBRARY_PATH": f"{BUNDLE}:{BUNDLE}:/opt/lib", "LD_LIBRARY_PATH_ORIG": BUNDLE},
            {},
        ),
        # not the bootloader's (macOS and Windows set none): left alone
        ({"LD_LIBRARY_PATH": "/opt/lib"}, {"LD_LIBRARY_PATH": "/opt/lib"}),
    ],
)
def test_programs_the_frozen_earshot_runs_get_the_users_library_path(
    before: dict[str, str], after: dict[str, str]
) -> None:
    environ = {
        **before,
        "_PYI_ARCHIVE_FILE": "/x/earshot",
        "_PYI_PARENT_PROCESS_LEVEL": "1",
        "_PYI_LINUX_PROCESS_NAME": "earshot",
        "HOME": "/home/u",
    }
    rthook_env.restore(environ, BUNDLE)
    assert environ == {**after, "HOME": "/home/u"}


# --- pruning ----------------------------------------------------------------------------------


def test_old_versions_are_pruned_keeping_the_previous_one(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    for n, name in enumerate(["0.9.0-aaaa", "1.0.0-bbbb", "1.1.0-cccc", ID]):
        folder = make_tree(root / name)
        unpack.write_marker(folder, name)
        os.utime(folder / unpack.MARKER, (MTIME + n, MTIME + n))
    stale = root / ".staging-old-1-x"
    stale.mkdir()
    os.utime(stale, (MTIME - 7200, MTIME - 7200))
    fresh = root / ".staging-new-2-y"
    fresh.mkdir()
    for name, age in (("_MEIold", 25), ("_MEIyoung", 2)):
        (root / name).mkdir()
        os.utime(root / name, (MTIME - age * 3600, MTIME - age * 3600))
    (root / "unrelated").mkdir()  # not ours: no marker
    removed = unpack.prune(root, keep=ID, now=MTIME)
    assert sorted(p.name for p in removed) == [
        ".staging-old-1-x",
        "0.9.0-aaaa",
        "1.0.0-bbbb",
        "_MEIold",
    ]
    left = sorted(p.name for p in root.iterdir())
    assert left == [".staging-new-2-y", "1.1.0-cccc", ID, "_MEIyoung", "unrelated"]


# --- the single file's layout -----------------------------------------------------------------


def test_the_single_file_is_launcher_installer_manifest_trailer(tmp_path: Path) -> None:
    launcher = tmp_path / "launcher"
    launcher.write_bytes(b"LAUNCHER" * 100)
    installer = tmp_path / "installer"
    installer.write_bytes(b"INSTALLER" * 1000)
    text = unpack.build_manifest(make_tree(tmp_path / "tree"), MTIME)
    out = tmp_path / "dist" / "earshot-onefile"
    ident = onefile.assemble(launcher, installer, text, "1.2.3", out)
    assert ident == unpack.manifest_id("1.2.3", text)
    data = out.read_bytes()
    tail = data[-onefile.TRAILER :]
    assert tail[-16:] == onefile.MAGIC
    assert tail[:80].rstrip(b"\0").decode() == ident
    p_off, p_len, m_off, m_len = struct.unpack("<4Q", tail[80:112])
    assert data[:p_off] == launcher.read_bytes()
    assert data[p_off : p_off + p_len] == installer.read_bytes()
    assert data[m_off : m_off + m_len].decode() == text
    assert m_off + m_len + onefile.TRAILER == len(data)
    if os.name != "nt":
        assert os.access(out, os.X_OK)


# --- the real single file: opt-in (EARSHOT_FROZEN_ONEFILE=dist/earshot-onefile) -------------

if ONEFILE:

    def single(cache: Path) -> Binary:
        return Binary(Path(ONEFILE).resolve(), cache)

    def only_version(cache: Path) -> Path:
        folders = [p for p in (cache / "onefile").iterdir() if p.is_dir()]
        assert len(folders) == 1, folders
        assert re.fullmatch(rf"{re.escape(__version__)}-[0-9a-f]{{16}}", folders[0].name)
        return folders[0]

    def left_in(cache: Path) -> list[str]:
        return sorted(p.name for p in (cache / "onefile").iterdir())

    def test_single_file_unpacks_once_then_starts_from_its_cache(tmp_path: Path) -> None:
        binary = single(tmp_path / "cache")
        cold = binary.run("--version")
        assert (cold.returncode, cold.stdout, cold.stderr) == (0, f"earshot {__version__}\n", "")
        folder = only_version(binary.cache)
        assert (folder / unpack.EXE).is_file()
        assert (folder / "_internal").is_dir()
        assert left_in(binary.cache) == [".lock", folder.name]  # no installer, staging, _MEI
        before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
        warm = binary.run("--version")
        assert (warm.returncode, warm.stdout, warm.stderr) == (0, f"earshot {__version__}\n", "")
        assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before
        assert left_in(binary.cache) == [".lock", folder.name]
        report = json.loads(binary.run("doctor", "--json", cwd=tmp_path).stdout)
        assert report["build"] == {
            "kind": "single file",
            "path": str(binary.path),
            "unpacked": str(folder),
            "cached": True,
        }

    def test_single_file_unpacks_into_the_platforms_cache_dir(tmp_path: Path) -> None:
        home = Path(os.environ["HOME"])
        local = tmp_path / "AppData" / "Local"
        expected = {
            "win32": local / "earshot",
            "darwin": home / "Library" / "Caches" / "earshot",
        }.get(sys.platform, Path(os.environ["XDG_CACHE_HOME"]) / "earshot")
        env = {k: v for k, v in os.environ.items() if k != "EARSHOT_CACHE_DIR"}
        env["LOCALAPPDATA"] = str(local)
        done = subprocess.run(
            [str(Path(ONEFILE).resolve()), "--version"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        only_version(expected)

    def test_racing_first_runs_share_one_unpack(tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        env = {**os.environ, "EARSHOT_CACHE_DIR": str(cache)}
        runs = [
            subprocess.Popen(
                [str(Path(ONEFILE).resolve()), "--version"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for _ in range(2)
        ]
        outputs = [run.communicate(timeout=120) for run in runs]
        assert outputs == [(f"earshot {__version__}\n", "")] * 2
        folder = only_version(cache)
        assert left_in(cache) == [".lock", folder.name]
        assert single(cache).run("--version").returncode == 0

    @pytest.mark.parametrize("damage", ["truncate", "modify", "delete"])
    def test_a_damaged_unpack_is_detected_and_unpacked_again(tmp_path: Path, damage: str) -> None:
        binary = single(tmp_path / "cache")
        assert binary.run("--version").returncode == 0
        folder = only_version(binary.cache)
        # the bootloader, with every Python module in its archive (build/boot_archive.py)
        victim = folder / unpack.EXE
        original = victim.read_bytes()
        if damage == "truncate":
            victim.write_bytes(original[: len(original) // 2])
        elif damage == "modify":
            victim.write_bytes(bytes(len(original)))  # same size, wrong content
        else:
            victim.unlink()
        done = binary.run("--version")
        assert (done.returncode, done.stdout) == (0, f"earshot {__version__}\n"), done.stderr
        assert victim.read_bytes() == original
        assert only_version(binary.cache) == folder

    def test_an_unwritable_cache_dir_runs_from_a_temporary_unpack_with_one_warning(
        tmp_path: Path,
    ) -> None:
        blocker = tmp_path / "blocker"
        blocker.write_text("a file where the cache dir should be\n")
        binary = single(blocker / "cache")
        done = binary.run("--version")
        assert (done.returncode, done.stdout) == (0, f"earshot {__version__}\n")
        assert done.stderr.count("warning") == 1
        assert "EARSHOT_CACHE_DIR" in done.stderr
        report = json.loads(binary.run("doctor", "--json", cwd=tmp_path).stdout)
        assert report["build"]["kind"] == "single file"
        assert report["build"]["cached"] is False


# --- earshot doctor's build line --------------------------------------------------------------


def test_doctor_tells_the_builds_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from earshot.cli import doctor_cmd

    assert doctor_cmd.build_info()["kind"] == "python"
    folder = make_tree(tmp_path / "onefile" / ID)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(folder / unpack.EXE))
    assert doctor_cmd.build_info() == {"kind": "folder", "path": str(folder)}
    unpack.write_marker(folder, ID)
    monkeypatch.setenv("EARSHOT_ONEFILE", "/home/u/bin/earshot")
    info = doctor_cmd.build_info()
    assert info == {
        "kind": "single file",
        "path": "/home/u/bin/earshot",
        "unpacked": str(folder),
        "cached": True,
    }
    assert doctor_cmd._build_line(info) == (
        f"build: single file /home/u/bin/earshot, unpacked at {folder}"
    )
