"""The single file's installer: put the folder build in the cache dir, verified, then run it.

build/launcher.c runs this (frozen as a PyInstaller onefile that carries the folder build under
``earshot/``) whenever the cache holds no intact copy of its version: on the first run, and
after a file there went missing, was truncated or was modified. Steps:

1. move the folder build (the launcher has this installer unpack itself inside the cache dir
   when there is room) or copy it into ``<root>/.staging-*``, and hash every file against the
   manifest (a mismatch means a damaged download: stop, never run it);
2. set each file's mtime to the manifest's (the launcher's cheap check on every later start is
   "every manifest file exists with its size and this mtime"), write ``.earshot-onefile.json``;
3. under ``<root>/.lock``: if another first run won the race, keep its copy; else move a damaged
   copy aside and rename the staging dir to ``<root>/<id>``;
4. prune: older versions (keeping the newest previous one, which may still be running), stale
   staging dirs and installers;
5. run ``<root>/<id>/earshot`` with our arguments.

When the cache dir cannot be written (read-only, full, no home), earshot runs from this
installer's own temporary unpack instead (the plain onefile behaviour), after one warning.

Only the standard library: this is frozen on its own, small, beside the folder build. The
manifest format is shared with the launcher and ``build/onefile.py``; tests/test_onefile.py
covers everything here. docs/build.md explains the design.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

HEADER = "earshot-manifest 1"
MARKER = ".earshot-onefile.json"
EXE = "earshot.exe" if os.name == "nt" else "earshot"
STALE_SECONDS = 3600
# Variables the launcher sets for this installer only; EARSHOT_ONEFILE (the single file's path)
# stays for earshot itself (`earshot doctor`).
LAUNCHER_VARS = (
    "EARSHOT_ONEFILE_ID",
    "EARSHOT_ONEFILE_ROOT",
    "EARSHOT_ONEFILE_INSTALLER",
    "EARSHOT_ONEFILE_TMP",
)
TMPVAR = "TMP" if os.name == "nt" else "TMPDIR"


class ManifestError(Exception):
    """The manifest itself is malformed."""


class DamagedPayload(Exception):
    """What the single file carries does not match its manifest: a damaged download."""


@dataclass(frozen=True)
class Entry:
    sha256: str
    size: int
    path: str  # relative, "/"-separated


@dataclass(frozen=True)
class Manifest:
    mtime: int
    entries: tuple[Entry, ...]


# --- the manifest ------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def build_manifest(tree: Path, mtime: int) -> str:
    """The manifest text of a folder build (at build time)."""
    lines = [HEADER, f"mtime {mtime}"]
    found = (p for p in tree.rglob("*") if p.is_file() or p.is_symlink())
    # each directory's files together: the launcher opens each directory once
    for path in sorted(found, key=lambda p: (p.parent.relative_to(tree).as_posix(), p.name)):
        if path.is_symlink() or not path.is_file():
            raise ManifestError(f"{path}: the folder build must hold regular files only")
        rel = path.relative_to(tree).as_posix()
        if "\n" in rel or rel == MARKER:
            raise ManifestError(f"{path}: unusable file name")
        lines.append(f"{file_sha256(path)} {path.stat().st_size} {rel}")
    return "\n".join(lines) + "\n"


def parse_manifest(text: str) -> Manifest:
    lines = text.split("\n")
    if len(lines) < 3 or lines[0] != HEADER or not lines[1].startswith("mtime "):
        raise ManifestError(f"line 1: expected {HEADER!r} and an mtime line")
    try:
        mtime = int(lines[1].removeprefix("mtime "))
    except ValueError:
        raise ManifestError(f"line 2: bad mtime {lines[1]!r}") from None
    if lines[-1] != "":
        raise ManifestError(f"line {len(lines)}: no final newline")
    entries: list[Entry] = []
    for number, line in enumerate(lines[2:-1], start=3):
        digest, _, rest = line.partition(" ")
        size, _, path = rest.partition(" ")
        parts = path.split("/")
        if (
            len(digest) != 64
            or not all(c in "0123456789abcdef" for c in digest)
            or not size.isdigit()
            or not path
            or path.startswith("/")
            or any(p in ("", ".", "..") for p in parts)
            or "\\" in path
        ):
            raise ManifestError(f"line {number}: expected '<sha256> <size> <path>', got {line!r}")
        entries.append(Entry(digest, int(size), path))
    if not entries:
        raise ManifestError("no files")
    return Manifest(mtime, tuple(entries))


def manifest_id(version: str, text: str) -> str:
    """The content address: the version, then the manifest's digest (which hashes every file)."""
    return f"{version}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


# --- checks --------------------------------------------------------------------------------


def unpacked_ok(folder: Path, manifest: Manifest) -> bool:
    """The launcher's check, on every start: each file there, a regular file, its size, its
    mtime. A copy that fails it is unpacked again."""
    for entry in manifest.entries:
        try:
            st = (folder / entry.path).lstat()
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode) or st.st_size != entry.size:
            return False
        if int(st.st_mtime) != manifest.mtime:
            return False
    return True


def verify(folder: Path, manifest: Manifest) -> None:
    """Hash every file; DamagedPayload names the first that differs."""
    for entry in manifest.entries:
        path = folder / entry.path
        try:
            digest = file_sha256(path)
        except OSError as exc:
            raise DamagedPayload(f"{entry.path}: {exc.strerror or exc}") from None
        if digest != entry.sha256:
            raise DamagedPayload(f"{entry.path}: content differs from the manifest")


def _copy_verified(source: Path, dest: Path, entry: Entry) -> None:
    digest = hashlib.sha256()
    try:
        src = source.open("rb")
    except OSError as exc:
        raise DamagedPayload(f"{entry.path}: {exc.strerror or exc}") from None
    with src, dest.open("xb") as out:
        while chunk := src.read(1 << 20):
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != entry.sha256:
        raise DamagedPayload(f"{entry.path}: content differs from the manifest")


def seal(folder: Path, manifest: Manifest) -> None:
    """Give every file the manifest's mtime (what the launcher checks) and make earshot
    executable."""
    os.chmod(folder / EXE, 0o755)
    for entry in manifest.entries:
        os.utime(folder / entry.path, (manifest.mtime, manifest.mtime))


def write_marker(folder: Path, ident: str, reason: str | None = None) -> None:
    data = {"id": ident, "cached": reason is None, "reason": reason}
    (folder / MARKER).write_text(json.dumps(data) + "\n", encoding="utf-8")


# --- the cache dir ---------------------------------------------------------------------------


@contextlib.contextmanager
def locked(path: Path, timeout: float = 120.0) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if needed), across processes."""
    with path.open("a+b") as f:
        if sys.platform == "win32":
            import msvcrt

            deadline = time.monotonic() + timeout
            while True:
                try:
                    msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            try:
                yield
            finally:
                f.seek(0)
                msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _remove(path: Path) -> None:
    """Best effort: a folder still in use (Windows) stays for a later prune."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _rename(source: Path, dest: Path) -> None:
    """``source.rename(dest)``; on Windows, retried for a moment while a virus scanner still
    holds a file it just saw written."""
    attempts = 20 if os.name == "nt" else 1
    for attempt in range(1, attempts + 1):
        try:
            source.rename(dest)
            return
        except PermissionError:
            if attempt == attempts:
                raise
            time.sleep(0.1)


def _aside(root: Path, path: Path) -> None:
    """Move a folder out of the way, then delete it: a half-deleted copy never keeps its name."""
    trash = root / f".trash-{os.urandom(6).hex()}"
    try:
        _rename(path, trash)
    except OSError:
        return  # in use (Windows): a later prune retries; never leave it half deleted
    _remove(trash)


def _stage(tree: Path, staging: Path, manifest: Manifest) -> bool:
    """Fill ``staging`` with a verified copy of ``tree``: a rename when both are on one
    filesystem (the launcher arranges that), else a copy. True when ``tree`` was moved."""
    try:
        _rename(tree, staging)
    except OSError:
        staging.mkdir()
        for entry in manifest.entries:
            dest = staging / entry.path
            dest.parent.mkdir(parents=True, exist_ok=True)
            _copy_verified(tree / entry.path, dest, entry)
        return False
    try:
        verify(staging, manifest)
    except DamagedPayload:
        staging.rename(tree)
        raise
    return True


def _runnable(folder: Path) -> bool:
    """Whether earshot may run from ``folder``: not on a filesystem mounted noexec."""
    return os.name == "nt" or os.access(folder / EXE, os.X_OK)


def install(tree: Path, manifest: Manifest, root: Path, ident: str) -> Path:
    """Put a verified, sealed copy of ``tree`` at ``root/ident``; return the folder to run.

    OSError: the cache dir cannot be written (the caller falls back to ``tree``, which is then
    where it was). DamagedPayload: ``tree`` does not match the manifest (nothing may run)."""
    target = root / ident
    if unpacked_ok(target, manifest) and _runnable(target):  # another first run finished
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = root / f".staging-{ident}-{os.getpid()}-{os.urandom(4).hex()}"
    moved = False
    try:
        moved = _stage(tree, staging, manifest)
        seal(staging, manifest)
        if not _runnable(staging):
            raise PermissionError(errno.EACCES, "programs may not run there (noexec)", str(root))
        write_marker(staging, ident)
        with locked(root / ".lock"):
            if unpacked_ok(target, manifest):
                return target  # a racing first run got there first: use its copy
            if target.exists() or target.is_symlink():
                _aside(root, target)  # damaged: truncated, modified or half deleted
            _rename(staging, target)
    finally:
        if moved and staging.exists():
            with contextlib.suppress(OSError):
                staging.rename(tree)  # give the fallback its files back
        if staging.exists():
            _remove(staging)
    return target


def _installed_at(folder: Path) -> float:
    try:
        return (folder / MARKER).stat().st_mtime
    except OSError:
        return 0.0


def prune(root: Path, keep: str, now: float | None = None) -> list[Path]:
    """Delete older versions, keeping ``keep`` and the newest other one (it may still be
    running: the single file was just replaced), and leftovers of interrupted runs older than an
    hour (a day for an installer's own unpack). Returns what was removed. Call with the lock
    held."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    versions: list[Path] = []
    for path in sorted(root.iterdir()):
        name = path.name
        if name == keep or name == ".lock":
            continue
        if name.startswith((".staging-", ".trash-", ".installer-", "_MEI")):
            # _MEI*: an installer's own unpack, left by a killed run; it may also be what a run
            # that could not install is running from, so give it a day
            limit = STALE_SECONDS * (24 if name.startswith("_MEI") else 1)
            try:
                old = now - path.lstat().st_mtime > limit
            except OSError:
                continue
            if old or name.startswith(".trash-"):
                _remove(path)
                removed.append(path)
        elif path.is_dir() and (path / MARKER).exists():
            versions.append(path)
    versions.sort(key=_installed_at, reverse=True)
    for path in versions[1:]:
        _aside(root, path)
        removed.append(path)
    return removed


# --- the installer process -------------------------------------------------------------------


def child_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment earshot runs with: the launcher's variables gone, the temp dir variable
    it redirected restored, and PyInstaller's onefile settings undone (the folder build is a
    fresh PyInstaller program)."""
    env = {k: v for k, v in environ.items() if k not in LAUNCHER_VARS}
    root = environ.get("EARSHOT_ONEFILE_ROOT")
    if root and environ.get(TMPVAR) == root:  # the launcher pointed it at the cache dir
        if "EARSHOT_ONEFILE_TMP" in environ:
            env[TMPVAR] = environ["EARSHOT_ONEFILE_TMP"]
        else:
            env.pop(TMPVAR, None)
    if "LD_LIBRARY_PATH_ORIG" in env:
        env["LD_LIBRARY_PATH"] = env.pop("LD_LIBRARY_PATH_ORIG")
    else:
        env.pop("LD_LIBRARY_PATH", None)
    env["PYINSTALLER_RESET_ENVIRONMENT"] = "1"
    return env


def _run(folder: Path, argv: list[str], env: dict[str, str]) -> int:
    exe = str(folder / EXE)
    if sys.platform == "win32":
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # earshot gets Ctrl+C from the console
        return subprocess.call([exe, *argv], env=env)
    os.execve(exe, [exe, *argv], env)


@dataclass(frozen=True)
class Plan:
    folder: Path  # where the earshot to run is
    env: dict[str, str]
    warning: str | None  # the one warning of a fallback run


def prepare(bundle: Path, environ: Mapping[str, str]) -> Plan:
    """Everything but running earshot. ``bundle`` holds ``earshot/`` and ``earshot.manifest``."""
    tree = bundle / "earshot"
    ident = environ.get("EARSHOT_ONEFILE_ID", "")
    root = environ.get("EARSHOT_ONEFILE_ROOT", "")
    env = child_env(environ)
    manifest = parse_manifest((bundle / "earshot.manifest").read_text(encoding="utf-8"))
    if not ident:
        raise ManifestError("started without the launcher")
    problem = "no home or cache directory"
    if root:
        try:
            folder = install(tree, manifest, Path(root), ident)
        except OSError as exc:
            problem = f"{exc.strerror or exc}: {exc.filename or root}"
        else:
            with contextlib.suppress(OSError), locked(Path(root) / ".lock"):
                prune(Path(root), keep=ident)
            return Plan(folder, env, None)
    verify(tree, manifest)
    seal(tree, manifest)
    write_marker(tree, ident, problem)
    warning = (
        f"earshot: warning: cannot unpack into the cache dir ({problem}); running from a "
        "temporary directory, which makes every start slower. Set EARSHOT_CACHE_DIR to a "
        "directory earshot may write to and run programs from to fix this."
    )
    return Plan(tree, env, warning)


def main() -> int:
    bundle = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parent))
    installer = os.environ.get("EARSHOT_ONEFILE_INSTALLER", "")
    if installer and os.name != "nt":  # Windows: the launcher deletes it once we exit
        with contextlib.suppress(OSError):
            os.unlink(installer)
    try:
        plan = prepare(bundle, os.environ)
    except (ManifestError, DamagedPayload) as exc:
        sys.stderr.write(f"earshot: this executable is damaged ({exc}); download it again\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"earshot: cannot start: {exc}\n")
        return 1
    if plan.warning:
        sys.stderr.write(plan.warning + "\n")
    try:
        return _run(plan.folder, sys.argv[1:], plan.env)
    except OSError as exc:  # say, a cache dir on a filesystem mounted noexec
        sys.stderr.write(
            f"earshot: cannot run {plan.folder / EXE}: {exc.strerror or exc}. Set "
            "EARSHOT_CACHE_DIR to a directory where programs may run.\n"
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
