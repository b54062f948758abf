"""Undo from a private git object store, with real git and real files: the user's
repository is compared byte for byte before and after."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from earshot.core.undo import DEFAULT_MAX_FILE_BYTES, NO_GIT, Undo

pytestmark = pytest.mark.anyio
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and symlinks")

SESSION = "01a22b88-db53-7f77-b3a7-58f60ee79975"
OTHER_SESSION = "01a22b88-db53-7f77-b3a7-58f60ee79976"


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        check=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    )
    return out.stdout.decode()


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def tree_of(root: Path) -> dict[str, str]:
    """Every file under ``root`` except the user's ``.git``, with its text."""
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def repo_state(repo: Path) -> dict[str, bytes]:
    """HEAD, refs, packed refs, index, stash, config and reflogs, byte for byte."""
    dot = repo / ".git"
    state = {
        str(p.relative_to(dot)): p.read_bytes()
        for p in sorted(dot.rglob("*"))
        if p.is_file() and (p.relative_to(dot).parts[0] in ("refs", "logs") or p.name in _TOP_FILES)
    }
    assert {"HEAD", "index", "config"} <= state.keys()
    return state


_TOP_FILES = {"HEAD", "index", "config", "packed-refs", "ORIG_HEAD", "FETCH_HEAD"}


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q", "-b", "main")
    write(project, {"a.py": "a = 1\n", "b.py": "b = 1\n", ".gitignore": "build/\n*.log\n"})
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "first")
    # A stash, a staged change, an unstaged change and an untracked file, as users have.
    write(project, {"a.py": "a = 'stashed'\n"})
    git(project, "stash", "-q")
    write(project, {"a.py": "a = 2  # staged\n"})
    git(project, "add", "a.py")
    write(project, {"b.py": "b = 2  # unstaged\n", "notes.txt": "untracked\n"})
    return project


def undo_for(
    cwd: Path, data: Path, session: str = SESSION, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> Undo:
    undo = Undo(cwd, session, data, max_file_bytes=max_file_bytes)
    assert undo.available
    return undo


async def test_undo_of_an_edit_and_redo_leave_the_users_repository_byte_identical(
    repo: Path, data: Path
) -> None:
    before = repo_state(repo)
    staged = git(repo, "diff", "--cached")
    undo = undo_for(repo, data)
    original = tree_of(repo)

    await undo.snapshot("edit a.py")
    write(repo, {"a.py": "a = 3  # edited by the agent\n"})
    edited = tree_of(repo)

    result = await undo.undo()
    assert result.ok, result.message
    assert result.restored == ["a.py"] and result.removed == []
    assert tree_of(repo) == original

    again = await undo.redo()
    assert again.ok, again.message
    assert tree_of(repo) == edited

    assert repo_state(repo) == before
    assert git(repo, "diff", "--cached") == staged
    assert git(repo, "stash", "list").count("\n") == 1


async def test_undo_of_a_shell_batch_that_deleted_and_created_files(repo: Path, data: Path) -> None:
    before = repo_state(repo)
    undo = undo_for(repo, data)
    original = tree_of(repo)
    await undo.snapshot("bash: reorganise")
    await anyio.run_process(
        [
            "sh",
            "-c",
            "rm a.py notes.txt && mkdir -p pkg/sub && echo x > pkg/sub/new.py "
            "&& echo y > c.py && echo log > run.log",
        ],
        cwd=repo,
    )
    result = await undo.undo()
    assert result.ok
    assert sorted(result.removed) == ["c.py", "pkg/sub/new.py"]
    assert sorted(result.restored) == ["a.py", "notes.txt"]
    # Ignored files are neither saved nor removed.
    assert tree_of(repo) == {**original, "run.log": "log\n"}
    assert not (repo / "pkg").exists()
    assert repo_state(repo) == before


async def test_repeated_undo_steps_back_and_redo_steps_forward(repo: Path, data: Path) -> None:
    undo = undo_for(repo, data)
    states = [tree_of(repo)]
    for n in range(3):
        await undo.snapshot(f"batch {n}")
        write(repo, {"a.py": f"a = {n + 10}\n", f"new{n}.py": "x\n"})
        states.append(tree_of(repo))
    for n in (2, 1, 0):
        result = await undo.undo()
        assert result.ok and result.message.startswith(f"undid batch {n}")
        assert tree_of(repo) == states[n]
    nothing = await undo.undo()
    assert not nothing.ok and "nothing to undo" in nothing.message
    assert [step.kind for step in undo.list()] == ["redo"] * 3
    for n in (0, 1):
        assert (await undo.redo()).ok
        assert tree_of(repo) == states[n + 1]
    # A new batch after an undo clears what could be redone.
    await undo.snapshot("batch 3")
    assert not (await undo.redo()).ok
    assert [(s.kind, s.label) for s in undo.list()] == [
        ("undo", "batch 3"),
        ("undo", "batch 1"),
        ("undo", "batch 0"),
    ]


async def test_a_batch_that_changed_nothing_is_not_an_undo_step(repo: Path, data: Path) -> None:
    undo = undo_for(repo, data)
    original = tree_of(repo)
    first = await undo.snapshot("edit")
    write(repo, {"a.py": "changed\n"})
    second = await undo.snapshot("failed edit")
    third = await undo.snapshot("read-only after all")
    assert first != second and second == third
    result = await undo.undo()
    assert result.ok and tree_of(repo) == original


async def test_snapshots_belong_to_the_session_that_took_them(repo: Path, data: Path) -> None:
    mine = undo_for(repo, data, SESSION)
    theirs = undo_for(repo, data, OTHER_SESSION)
    await mine.snapshot("mine")
    write(repo, {"a.py": "by session one\n"})
    assert theirs.list() == []
    assert not (await theirs.undo()).ok
    assert await theirs.preview() is None
    assert (repo / "a.py").read_text() == "by session one\n"
    assert (await mine.undo()).ok


async def test_preview_shows_the_diff_undo_would_apply(repo: Path, data: Path) -> None:
    undo = undo_for(repo, data)
    await undo.snapshot("edit")
    write(repo, {"b.py": "b = 'new'\n"})
    patch = await undo.preview()
    assert patch is not None
    assert "-b = 'new'" in patch and "+b = 2  # unstaged" in patch
    assert (repo / "b.py").read_text() == "b = 'new'\n"


async def test_works_outside_any_repository(project: Path, data: Path) -> None:
    write(project, {"x.txt": "one\n", "dir/y.txt": "two\n"})
    undo = undo_for(project, data)
    await undo.snapshot("edit")
    write(project, {"x.txt": "changed\n", "dir/z.txt": "new\n"})
    (project / "dir" / "y.txt").unlink()
    result = await undo.undo()
    assert result.ok
    assert tree_of(project) == {"x.txt": "one\n", "dir/y.txt": "two\n"}
    assert not (project / ".git").exists()


async def test_files_over_the_size_cap_are_skipped_and_never_deleted(
    project: Path, data: Path
) -> None:
    undo = undo_for(project, data, max_file_bytes=100)
    write(project, {"small.txt": "s\n"})
    await undo.snapshot("batch")
    assert not undo.last_skipped
    write(project, {"big.bin": "x" * 500, "small.txt": "changed\n"})
    await undo.snapshot("next batch")
    assert undo.last_skipped == ("big.bin",)
    write(project, {"small.txt": "changed again\n"})
    result = await undo.undo()
    assert "big.bin" in result.message
    assert (project / "big.bin").read_text() == "x" * 500
    assert (await undo.undo()).ok
    assert (project / "small.txt").read_text() == "s\n"
    assert (project / "big.bin").exists()  # created after the snapshot, but never saved


async def test_a_subdirectory_cwd_snapshots_only_its_subtree_with_the_repos_ignores(
    repo: Path, data: Path
) -> None:
    sub = repo / "sub"
    write(sub, {"s.py": "s = 1\n"})
    before = repo_state(repo)
    undo = undo_for(sub, data)
    await undo.snapshot("edit")
    write(repo, {"sub/s.py": "s = 2\n", "sub/build/out.o": "obj\n", "b.py": "outside\n"})
    result = await undo.undo()
    assert result.restored == ["sub/s.py"]
    assert (sub / "s.py").read_text() == "s = 1\n"
    assert (sub / "build" / "out.o").exists()  # ignored by the repository's .gitignore
    assert (repo / "b.py").read_text() == "outside\n"  # outside the cwd: not ours
    assert repo_state(repo) == before


async def test_files_tracked_despite_ignore_rules_are_snapshotted(repo: Path, data: Path) -> None:
    write(repo, {"keep.log": "tracked on purpose\n"})
    git(repo, "add", "-f", "keep.log")
    undo = undo_for(repo, data)
    await undo.snapshot("edit")
    write(repo, {"keep.log": "overwritten\n"})
    assert (await undo.undo()).ok
    assert (repo / "keep.log").read_text() == "tracked on purpose\n"


@posix_only
async def test_modes_symlinks_and_bytes_come_back_exactly(project: Path, data: Path) -> None:
    script = project / "run.sh"
    script.write_bytes(b"#!/bin/sh\r\necho hi\r\n")
    script.chmod(0o755)
    (project / ".gitattributes").write_text("*.sh text eol=lf\n")
    (project / "link").symlink_to("run.sh")
    undo = undo_for(project, data)
    await undo.snapshot("chmod")
    script.chmod(0o644)
    script.write_bytes(b"changed\n")
    (project / "link").unlink()
    (project / "link").symlink_to("elsewhere")
    assert (await undo.undo()).ok
    assert script.read_bytes() == b"#!/bin/sh\r\necho hi\r\n"
    assert script.stat().st_mode & 0o777 == 0o755
    assert os.readlink(project / "link") == "run.sh"


async def test_inherited_git_variables_do_not_redirect_it_to_the_users_repository(
    repo: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = repo_state(repo)
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / ".git" / "index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    undo = undo_for(repo, data)
    await undo.snapshot("edit")
    write(repo, {"b.py": "x\n"})
    assert (await undo.undo()).ok
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    monkeypatch.delenv("GIT_WORK_TREE")
    assert repo_state(repo) == before


async def test_no_git_on_path_disables_undo_with_one_notice(
    project: Path, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    undo = Undo(project, SESSION, data)
    assert not undo.available
    assert undo.notice == NO_GIT
    assert undo.take_notice() == NO_GIT
    assert undo.take_notice() is None
    assert await undo.snapshot() is None
    result = await undo.undo()
    assert not result.ok and result.message == NO_GIT
    assert not (await undo.redo()).ok
    assert await undo.preview() is None
    assert undo.list() == []
    assert not await anyio.Path(data).exists()


def test_a_session_id_must_be_a_safe_ref_name(project: Path, data: Path) -> None:
    with pytest.raises(ValueError, match="not a session id"):
        Undo(project, "../x", data)


async def test_a_relative_data_dir_is_taken_from_the_process_cwd(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(project, {"x.txt": "one\n"})
    undo = undo_for(project, Path("relative-data"))
    await undo.snapshot("edit")
    write(project, {"x.txt": "two\n"})
    assert (await undo.undo()).ok
    assert tree_of(project) == {"x.txt": "one\n"}
    assert not (project / "relative-data").exists()


async def test_a_capture_started_while_the_call_streams_is_what_undo_restores(
    repo: Path, data: Path
) -> None:
    undo = undo_for(repo, data)
    original = tree_of(repo)
    undo.prefetch()  # the model has begun writing a mutating call
    await undo.snapshot("edit a.py")
    write(repo, {"a.py": "a = 3  # edited by the agent\n"})
    result = await undo.undo()
    assert result.ok, result.message
    assert tree_of(repo) == original


async def test_a_capture_no_batch_used_is_never_taken_for_a_later_snapshot(
    repo: Path, data: Path
) -> None:
    undo = undo_for(repo, data)
    undo.prefetch()  # a call began, but the batch took no snapshot (denied, say)
    undo.discard()
    write(repo, {"notes.txt": "the user edited this meanwhile\n"})
    meanwhile = tree_of(repo)
    await undo.snapshot("edit a.py")
    write(repo, {"a.py": "a = 3  # edited by the agent\n"})
    result = await undo.undo()
    assert result.ok, result.message
    assert tree_of(repo) == meanwhile


async def test_undo_steps_survive_the_store_refs_being_packed(repo: Path, data: Path) -> None:
    undo = undo_for(repo, data)
    original = tree_of(repo)
    await undo.snapshot("edit a.py")
    write(repo, {"a.py": "a = 3  # edited by the agent\n"})
    await undo.snapshot("edit b.py")
    write(repo, {"b.py": "b = 3  # edited by the agent\n"})
    # someone ran git's housekeeping in the store: the refs now live in packed-refs
    git(repo, "--git-dir", str(undo.store_dir), "pack-refs", "--all")
    assert not list((undo.store_dir / "refs").rglob("undo"))
    assert [step.label for step in undo.list()] == ["edit b.py", "edit a.py"]
    assert (await undo.undo()).ok
    assert (await undo.undo()).ok
    assert tree_of(repo) == original
