"""The undo object store: snapshots of a working tree as git trees, and restores.

::

    $XDG_DATA_HOME/earshot/undo/<cwd-key>/   GIT_DIR (ours; core.bare=false)
      earshot.index                          GIT_INDEX_FILE: our stat cache of the tree
      info/exclude                           a copy of the user repository's info/exclude
      info/attributes                        "* -text -filter -ident -working-tree-encoding"
      refs/earshot/<session-id>/undo         top of the session's undo stack
      refs/earshot/<session-id>/redo         top of its redo stack

The work tree is the user repository's top level when the working directory is inside
one (so its ``.gitignore`` files all apply), else the working directory; only the
working directory's subtree is snapshotted. ``info/attributes`` makes every file go in
and come out byte for byte (no line-ending conversion, no clean/smudge filters).

A stack is a chain of commits (each one's parent is the entry below it). A snapshot
commit's message is its label, then a line ``earshot: {json}`` listing the files that
were left out (over the size cap, nested repositories): a restore never deletes those.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from earshot.core.undo._git import (
    UserRepo,
    find_user_repo,
    run_git,
    scrubbed_env,
    start_git,
    store_lock,
)

ATTRIBUTES = b"* -text -filter -ident -working-tree-encoding\n"
CONFIG = (
    ("core.bare", "false"),
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.fsmonitor", "false"),
    ("core.untrackedCache", "false"),
    ("core.logAllRefUpdates", "false"),
    ("commit.gpgSign", "false"),
    ("gc.auto", "0"),
)
META = "earshot: "
_HEX = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True)
class Capture:
    tree: str
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class Commit:
    id: str
    tree: str
    parent: str | None
    label: str
    skipped: tuple[str, ...]
    time: int


@dataclass(frozen=True)
class Restore:
    written: list[str]
    removed: list[str]


class SnapshotStore:
    """Synchronous git plumbing over one object store; callers hold ``locked()``."""

    def __init__(
        self, git: str, store: Path, cwd: Path, *, max_file_bytes: int, repo: UserRepo | None
    ) -> None:
        self.git = git
        self.dir = store
        self.max_file_bytes = max_file_bytes
        self.repo = repo
        self.root = repo.toplevel if repo is not None else cwd
        rel = cwd.resolve().relative_to(self.root.resolve()) if repo is not None else Path()
        self.pathspec = rel.as_posix() if rel.parts else "."
        self.index = store / "earshot.index"
        self.env = scrubbed_env(
            {
                "GIT_DIR": str(store),
                "GIT_WORK_TREE": str(self.root),
                "GIT_INDEX_FILE": str(self.index),
            }
        )
        self._commits: dict[str, Commit] = {}
        """Commits read so far (a commit never changes)."""
        self._written: tuple[tuple[int, int, int], str] | None = None
        """The index file's (inode, size, mtime) when ``write-tree`` last ran, and its tree."""

    @classmethod
    def for_cwd(cls, git: str, store: Path, cwd: Path, *, max_file_bytes: int) -> SnapshotStore:
        return cls(git, store, cwd, max_file_bytes=max_file_bytes, repo=find_user_repo(git, cwd))

    def _git(
        self,
        *args: str,
        stdin: bytes | None = None,
        ok: tuple[int, ...] = (0,),
        env: dict[str, str] | None = None,
    ) -> bytes:
        return run_git(self.git, list(args), cwd=self.root, env=env or self.env, stdin=stdin, ok=ok)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Serialise store operations across processes (the index is shared)."""
        return store_lock(self.dir.with_name(self.dir.name + ".lock"))

    # --- set-up --------------------------------------------------------------------------

    def ensure(self) -> None:
        if (self.dir / "HEAD").exists() and (self.dir / "info" / "attributes").exists():
            self._sync_excludes()
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in self.env.items() if k not in ("GIT_WORK_TREE", "GIT_INDEX_FILE")}
        self._git("init", "-q", "--template=", env=env)
        for key, value in CONFIG:
            self._git("config", key, value, env=env)
        info = self.dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_bytes(ATTRIBUTES)
        self._sync_excludes()

    def _sync_excludes(self) -> None:
        """Give our store the user repository's ``info/exclude`` (it is not in the tree)."""
        if self.repo is None:
            return
        try:
            theirs = (self.repo.common_dir / "info" / "exclude").read_bytes()
        except OSError:
            theirs = b""
        ours = self.dir / "info" / "exclude"
        try:
            if ours.read_bytes() == theirs:
                return
        except OSError:
            pass
        ours.write_bytes(theirs)

    # --- snapshots -----------------------------------------------------------------------

    def capture(self) -> Capture:
        """Hash the tracked and untracked-not-ignored files of the subtree into a tree.

        One git process when nothing changed since the last capture (two inside a user's
        repository, run side by side): ``ls-files --modified`` stats every entry itself and
        lists one whose stat data changed even when its bytes did not (an index refresh
        first would only save re-hashing such a file; its entry is updated below either
        way), so no separate ``update-index --refresh`` runs."""
        tracked_ignored = self._user_tracked_ignored()
        try:
            listed = self._git(
                "ls-files",
                "-z",
                "-t",
                "--others",
                "--modified",
                "--deleted",
                "--exclude-standard",
                "--",
                self.pathspec,
            )
        finally:
            also = tracked_ignored()  # waited for even when ls-files failed
        paths = {item[2:] for item in listed.decode("utf-8", "surrogateescape").split("\0") if item}
        paths.update(also)
        update: list[str] = []
        drop: list[str] = []
        skipped: list[str] = []
        for path in sorted(paths):
            if path.endswith("/"):
                skipped.append(path)  # a nested repository
                continue
            try:
                st = os.lstat(self.root / path)
            except FileNotFoundError:
                update.append(path)  # gone: --remove drops it
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size > self.max_file_bytes:
                skipped.append(path)
                drop.append(path)
            elif stat.S_ISDIR(st.st_mode):
                drop.append(path)  # a file that became a directory; its files are listed too
            else:
                update.append(path)
        if drop:
            self._git("update-index", "-z", "--force-remove", "--stdin", stdin=_nul(drop))
        if update:
            self._git("update-index", "-z", "--add", "--remove", "--stdin", stdin=_nul(update))
        # Nothing to record and the index file as our last write-tree left it (no other
        # session sharing this store wrote it since): the tree is the one written then.
        signature = self._index_signature()
        if not (drop or update) and self._written is not None and self._written[0] == signature:
            return Capture(tree=self._written[1], skipped=tuple(skipped))
        tree = self._git("write-tree").decode().strip()
        self._written = (signature, tree) if signature != (0, 0, 0) else None
        return Capture(tree=tree, skipped=tuple(skipped))

    def _index_signature(self) -> tuple[int, int, int]:
        try:
            st = os.stat(self.index)
        except OSError:
            return (0, 0, 0)
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _user_tracked_ignored(self) -> Callable[[], list[str]]:
        """Start listing the files the user's repository tracks although its ignore rules
        match them; the returned call waits for the list."""
        if self.repo is None:
            return list
        pending = start_git(
            self.git,
            ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard", "--", self.pathspec],
            cwd=self.root,
            env=scrubbed_env(),
        )

        def wait() -> list[str]:
            out = pending()
            return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]

        return wait

    def commit(self, capture: Capture, *, parent: str | None, label: str) -> str:
        meta = json.dumps({"skipped": list(capture.skipped)}, ensure_ascii=False)
        message = f"{label or 'tool batch'}\n\n{META}{meta}\n"
        args = ["commit-tree", capture.tree, "-F", "-"]
        if parent is not None:
            args += ["-p", parent]
        return self._git(*args, stdin=message.encode()).decode().strip()

    def read_commit(self, commit: str) -> Commit:
        known = self._commits.get(commit)
        if known is None:
            known = self._commits[commit] = self._read_commit(commit)
        return known

    def _read_commit(self, commit: str) -> Commit:
        raw = self._git("cat-file", "commit", commit).decode("utf-8", "surrogateescape")
        head, _, message = raw.partition("\n\n")
        tree, parent, when = "", None, 0
        for line in head.splitlines():
            key, _, value = line.partition(" ")
            if key == "tree":
                tree = value
            elif key == "parent" and parent is None:
                parent = value
            elif key == "committer":
                when = int(value.rsplit(" ", 2)[-2])
        label = message.split("\n", 1)[0]
        skipped: tuple[str, ...] = ()
        for line in message.splitlines():
            if line.startswith(META):
                skipped = tuple(json.loads(line[len(META) :]).get("skipped", []))
        return Commit(id=commit, tree=tree, parent=parent, label=label, skipped=skipped, time=when)

    def chain(self, top: str | None) -> list[Commit]:
        out: list[Commit] = []
        while top is not None:
            commit = self.read_commit(top)
            out.append(commit)
            top = commit.parent
        return out

    # --- refs ----------------------------------------------------------------------------

    def refs(self, prefix: str) -> dict[str, str]:
        out = self._git("for-each-ref", "--format=%(refname) %(objectname)", prefix)
        pairs = (line.split(" ", 1) for line in out.decode().splitlines() if line)
        return {name: value for name, value in pairs}

    def read_refs(self, prefix: str, names: Sequence[str]) -> dict[str, str | None]:
        """The commits ``names`` (under ``prefix``) point at (None: no such ref), read
        from their files while the store keeps every ref as a loose file (as
        ``update-ref`` writes them; nothing here packs them): no git process. A store with
        packed refs or another ref backend asks git."""
        if (self.dir / "packed-refs").exists() or (self.dir / "reftable").exists():
            known = self.refs(prefix)
            return {name: known.get(name) for name in names}
        out: dict[str, str | None] = {}
        for name in names:
            try:
                value = (self.dir / name).read_bytes().strip().decode("ascii", "replace")
            except (FileNotFoundError, NotADirectoryError):
                out[name] = None
                continue
            if value.startswith("ref:") or not _HEX.fullmatch(value):
                known = self.refs(name)  # not a plain object id: let git resolve it
                out[name] = known.get(name)
            else:
                out[name] = value
        return out

    def set_refs(self, updates: dict[str, str | None]) -> None:
        """Move (or, with None, delete) several refs in one transaction."""
        lines = [
            f"delete {name}\n" if value is None else f"update {name} {value}\n"
            for name, value in updates.items()
        ]
        if lines:
            self._git("update-ref", "--stdin", stdin="".join(lines).encode())

    # --- restoring -----------------------------------------------------------------------

    def patch(self, current: str, target: str) -> str:
        out = self._git(
            "diff-tree", "-r", "--patch-with-stat", "--no-color", "--no-renames", current, target
        )
        return out.decode("utf-8", "replace")

    def restore(self, current: Capture, target: Commit) -> Restore:
        """Make the subtree match ``target``: files that differ are written back, files
        that are in ``current`` and not in ``target`` are removed (unless ``target`` left
        them out). Ignored files and files outside the subtree are never touched."""
        out = self._git("diff-tree", "-r", "-z", "--no-renames", current.tree, target.tree)
        fields = out.decode("utf-8", "surrogateescape").split("\0")
        keep = set(target.skipped)
        write: list[str] = []
        remove: list[str] = []
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            status = meta.rsplit(" ", 1)[-1][:1]
            if status == "D":
                if path not in keep:
                    remove.append(path)
            elif path:
                write.append(path)
        for path in remove:
            _remove(self.root, path)
        if write:
            self._checkout(target.tree, write)
        return Restore(written=write, removed=remove)

    def _checkout(self, tree: str, paths: list[str]) -> None:
        index = self.dir / f"restore-{os.getpid()}-{os.urandom(16).hex()}.index"
        env = {**self.env, "GIT_INDEX_FILE": str(index)}
        try:
            self._git("read-tree", tree, env=env)
            self._git("checkout-index", "-f", "-z", "--stdin", stdin=_nul(paths), env=env)
        finally:
            for leftover in (index, index.with_name(index.name + ".lock")):
                leftover.unlink(missing_ok=True)


def _nul(paths: list[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def _remove(root: Path, path: str) -> None:
    """Remove one file, then its parent directories while they are empty."""
    target = root / path
    try:
        if stat.S_ISDIR(os.lstat(target).st_mode):
            return
        target.unlink()
    except FileNotFoundError:
        pass
    parent = target.parent
    while parent != root and root in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            return
        parent = parent.parent


__all__ = ["Capture", "Commit", "Restore", "SnapshotStore"]
