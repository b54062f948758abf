"""The single file's launcher (build/launcher.c), compiled here and run on a fake payload.

The installer and earshot are both stood in for by a small C program that prints its
arguments and the variables the launcher sets, and exits 7: so these tests see which one the
launcher ran, from where, with what, without PyInstaller. The launcher is compiled with the
C compiler Python's build tools find (what scripts/build uses: cc, or MSVC on Windows).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "build"))
import onefile  # noqa: E402
import unpack  # noqa: E402

VARS = (
    "EARSHOT_ONEFILE",
    "EARSHOT_ONEFILE_ID",
    "EARSHOT_ONEFILE_ROOT",
    "EARSHOT_ONEFILE_INSTALLER",
    "EARSHOT_ONEFILE_TMP",
    unpack.TMPVAR,
    "_PYI_ARCHIVE_FILE",
    "_PYI_PARENT_PROCESS_LEVEL",
    "LD_LIBRARY_PATH",
    "LD_LIBRARY_PATH_ORIG",
)
FAKE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    const char *names[] = {NAMES};
    for (int i = 0; i < argc; i++) printf("arg=%s\n", argv[i]);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *value = getenv(names[i]);
        if (value != NULL) printf("%s=%s\n", names[i], value);
    }
    return 7;
}
""".replace("NAMES", ", ".join(f'"{name}"' for name in VARS))


@dataclass(frozen=True)
class Ran:
    code: int
    args: list[str]  # the first is the program the launcher ran
    env: dict[str, str]
    stderr: str


@dataclass(frozen=True)
class Single:
    path: Path
    ident: str
    tree: Path
    manifest: unpack.Manifest

    def run(self, *args: str, env: dict[str, str] | None = None) -> Ran:
        base = {k: v for k, v in os.environ.items() if k not in VARS or k == unpack.TMPVAR}
        done = subprocess.run(
            [str(self.path), *args],
            capture_output=True,
            text=True,
            env={**base, **(env or {})},
            timeout=60,
            check=False,
        )
        lines = done.stdout.splitlines()
        found = dict(line.split("=", 1) for line in lines if not line.startswith("arg="))
        return Ran(
            done.returncode, [x[4:] for x in lines if x.startswith("arg=")], found, done.stderr
        )


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Single:
    work = tmp_path_factory.mktemp("launcher")
    (work / "fake.c").write_text(FAKE)
    fake = onefile.compile_c(work / "fake.c", "fake", work)
    launcher = onefile.compile_launcher(work)  # as scripts/build makes it
    tree = work / "tree"
    (tree / "_internal").mkdir(parents=True)
    (tree / unpack.EXE).write_bytes(fake.read_bytes())
    (tree / "_internal" / "data.txt").write_text("the folder build\n")
    text = unpack.build_manifest(tree, 1_700_000_000)
    out = work / ("earshot-onefile.exe" if os.name == "nt" else "earshot-onefile")
    ident = onefile.assemble(launcher, fake, text, "1.2.3", out)
    return Single(out, ident, tree, unpack.parse_manifest(text))


def same(a: str | Path, b: str | Path) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def test_a_first_run_starts_the_installer_with_where_to_unpack(
    single: Single, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    ran = single.run("two words", "--flag", env={"EARSHOT_CACHE_DIR": str(cache)})
    assert ran.code == 7, ran.stderr  # the exit code comes through
    assert ran.args[1:] == ["two words", "--flag"]
    assert same(ran.args[0], ran.env["EARSHOT_ONEFILE_INSTALLER"])
    assert same(Path(ran.args[0]).parent, cache / "onefile")
    assert ran.env["EARSHOT_ONEFILE_ID"] == single.ident
    assert same(ran.env["EARSHOT_ONEFILE_ROOT"], cache / "onefile")
    assert same(ran.env["EARSHOT_ONEFILE"], single.path)
    # the installer unpacks beside the cache, so moving the folder in is a rename
    assert same(ran.env[unpack.TMPVAR], cache / "onefile")


def test_the_temp_dir_variable_the_installer_borrows_is_handed_back(
    single: Single, tmp_path: Path
) -> None:
    env = {"EARSHOT_CACHE_DIR": str(tmp_path / "cache"), unpack.TMPVAR: str(tmp_path)}
    ran = single.run(env=env)
    assert ran.env["EARSHOT_ONEFILE_TMP"] == str(tmp_path)
    restored = unpack.child_env(ran.env)
    assert restored[unpack.TMPVAR] == str(tmp_path)


def test_the_cache_dir_defaults_to_the_platforms(single: Single, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    local = tmp_path / "AppData" / "Local"
    expected = {
        "win32": local / "earshot" / "onefile",
        "darwin": home / "Library" / "Caches" / "earshot" / "onefile",
    }.get(sys.platform, Path(os.environ["XDG_CACHE_HOME"]) / "earshot" / "onefile")
    ran = single.run(env={"LOCALAPPDATA": str(local)})
    assert same(ran.env["EARSHOT_ONEFILE_ROOT"], expected)
    if sys.platform == "linux":  # a relative XDG_CACHE_HOME is ignored, as the spec says
        ran = single.run(env={"XDG_CACHE_HOME": "relative/cache"})
        assert same(ran.env["EARSHOT_ONEFILE_ROOT"], home / ".cache" / "earshot" / "onefile")


def installed(single: Single, tmp_path: Path) -> Path:
    """The fake folder build, unpacked in the cache dir ``tmp_path/cache`` as a first run
    leaves it."""
    root = tmp_path / "cache" / "onefile"
    staged = tmp_path / "staged"
    staged.mkdir()
    for entry in single.manifest.entries:
        (staged / entry.path).parent.mkdir(parents=True, exist_ok=True)
        (staged / entry.path).write_bytes((single.tree / entry.path).read_bytes())
    return unpack.install(staged, single.manifest, root, single.ident)


def damage(folder: Path, how: str) -> None:
    data = folder / "_internal" / "data.txt"
    if how == "modified":
        data.write_text("the folder build?\n")
    elif how == "a directory replaced by a file":
        shutil.rmtree(data.parent)
        data.parent.write_text("not a directory\n")
    else:  # a directory gone
        shutil.rmtree(data.parent)


@pytest.mark.parametrize("how", ["modified", "a directory gone", "a directory replaced by a file"])
def test_an_intact_unpack_is_run_directly_and_a_damaged_one_is_not(
    single: Single, tmp_path: Path, how: str
) -> None:
    folder = installed(single, tmp_path)
    env = {"EARSHOT_CACHE_DIR": str(tmp_path / "cache")}

    warm = single.run("--version", env=env)
    assert warm.code == 7
    assert same(warm.args[0], folder / unpack.EXE)
    assert warm.args[1:] == ["--version"]
    assert "EARSHOT_ONEFILE_ID" not in warm.env  # no installer involved
    assert same(warm.env["EARSHOT_ONEFILE"], single.path)

    damage(folder, how)
    damaged = single.run("--version", env=env)
    assert same(damaged.args[0], damaged.env["EARSHOT_ONEFILE_INSTALLER"])


@pytest.mark.parametrize("library_path", ["/opt/own/lib", None])
def test_on_linux_a_warm_start_hands_earshot_what_its_bootloader_would_restart_for(
    single: Single, tmp_path: Path, library_path: str | None
) -> None:
    # PyInstaller's bootloader on Linux sets LD_LIBRARY_PATH and executes itself again; handed
    # these, it starts once (build/launcher.c). Elsewhere nothing is added.
    folder = installed(single, tmp_path)
    env = {"EARSHOT_CACHE_DIR": str(tmp_path / "cache")}
    if library_path is not None:
        env["LD_LIBRARY_PATH"] = library_path
    warm = single.run("--version", env=env)
    assert warm.code == 7
    if sys.platform != "linux":
        assert "_PYI_ARCHIVE_FILE" not in warm.env
        assert warm.env.get("LD_LIBRARY_PATH") == library_path
        return
    real = os.path.realpath(folder / unpack.EXE)
    bundle = os.path.join(os.path.dirname(real), "_internal")
    assert warm.env["_PYI_ARCHIVE_FILE"] == real
    assert warm.env["_PYI_PARENT_PROCESS_LEVEL"] == "-1"
    expected = bundle if library_path is None else f"{bundle}:{library_path}"
    assert warm.env["LD_LIBRARY_PATH"] == expected
    assert warm.env.get("LD_LIBRARY_PATH_ORIG") == library_path
    # a cache dir reached through a link: the bootloader names itself by its resolved path
    (tmp_path / "link").symlink_to(tmp_path / "cache")
    linked = single.run("--version", env={**env, "EARSHOT_CACHE_DIR": str(tmp_path / "link")})
    assert linked.args[0] == str(tmp_path / "link" / "onefile" / single.ident / unpack.EXE)
    assert linked.env["_PYI_ARCHIVE_FILE"] == real
    assert linked.env["LD_LIBRARY_PATH"] == expected
    # the installer (a first run, or after damage) is a program of its own: none of it
    (folder / "_internal" / "data.txt").unlink()
    cold = single.run("--version", env=env)
    assert same(cold.args[0], cold.env["EARSHOT_ONEFILE_INSTALLER"])
    assert "_PYI_ARCHIVE_FILE" not in cold.env
    assert "_PYI_PARENT_PROCESS_LEVEL" not in cold.env
    assert cold.env.get("LD_LIBRARY_PATH") == library_path


def test_an_unusable_cache_dir_puts_the_installer_in_the_temp_dir(
    single: Single, tmp_path: Path
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache dir should be\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {"EARSHOT_CACHE_DIR": str(blocker / "cache"), unpack.TMPVAR: str(temp)}
    if os.name == "nt":
        env["TEMP"] = str(temp)
    ran = single.run(env=env)
    assert ran.code == 7
    assert same(Path(ran.env["EARSHOT_ONEFILE_INSTALLER"]).parent, temp)
    assert same(ran.env[unpack.TMPVAR], temp)  # left alone
    assert "EARSHOT_ONEFILE_TMP" not in ran.env


def test_a_truncated_single_file_says_so(single: Single, tmp_path: Path) -> None:
    data = single.path.read_bytes()
    launcher = int.from_bytes(data[-48:-40], "little")  # the payload's offset, in the trailer
    cut = tmp_path / single.path.name
    cut.write_bytes(data[: launcher + (len(data) - launcher) // 2])  # half of what follows it
    cut.chmod(0o755)
    done = subprocess.run([str(cut)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "damaged download" in done.stderr
