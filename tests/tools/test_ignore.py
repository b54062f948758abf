"""Gitignore-aware walking: pattern semantics, and the walker's file set against git's
own (``git ls-files --cached --others --exclude-standard``) and ripgrep's on real trees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from earshot.core.tools import _rg
from earshot.core.tools._ignore import Gitignore, parse_gitignore, translate_glob, walk
from earshot.core.tools.ops import FileStat, LocalFileOps

RG = _rg.find_rg({"PATH": os.environ.get("PATH", "")})


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, encoding="utf-8"
    )
    return done.stdout


def git_files(repo: Path) -> set[str]:
    out = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return {name for name in out.split("\0") if name}


def walked(root: Path) -> set[str]:
    return {entry.rel for entry in walk(root, LocalFileOps())}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    return path


def matches(lines: str, rel: str, *, is_dir: bool = False) -> bool | None:
    return Gitignore.from_text(lines).match(rel, is_dir)


@pytest.mark.parametrize(
    ("lines", "rel", "is_dir", "expected"),
    [
        ("*.log", "a.log", False, True),
        ("*.log", "deep/er/a.log", False, True),
        ("*.log", "a.txt", False, None),
        ("/build", "build", True, True),
        ("/build", "sub/build", True, None),
        ("build/", "build", True, True),
        ("build/", "build", False, None),
        ("build/", "x/build", True, True),
        ("doc/*.txt", "doc/a.txt", False, True),
        ("doc/*.txt", "doc/sub/a.txt", False, None),
        ("doc/*.txt", "x/doc/a.txt", False, None),
        ("**/foo", "foo", False, True),
        ("**/foo", "a/b/foo", False, True),
        ("a/**/b", "a/b", False, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("abc/**", "abc/x/y", False, True),
        ("abc/**", "abc", True, None),
        ("?.c", "a.c", False, True),
        ("?.c", "ab.c", False, None),
        ("[a-c].md", "b.md", False, True),
        ("[a-c].md", "d.md", False, None),
        ("[!a].md", "a.md", False, None),
        ("[!a].md", "b.md", False, True),
        ("[[:digit:]]x", "7x", False, True),
        ("[[:digit:]]x", "ax", False, None),
        ("\\#lit", "#lit", False, True),
        ("#comment", "#comment", False, None),
        ("\\!bang", "!bang", False, True),
        ("trail   ", "trail", False, True),
        ("space\\ ", "space ", False, True),
        ("space\\ ", "space", False, None),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("*.log\n!keep.log", "other.log", False, True),
        ("!keep.log\n*.log", "keep.log", False, True),
        ("*.tmp\r\n", "a.tmp", False, True),
        ("[abc", "[abc", False, None),
        ("a*b/", "axxb", True, True),
    ],
)
def test_gitignore_pattern_semantics(
    lines: str, rel: str, is_dir: bool, expected: bool | None
) -> None:
    assert matches(lines, rel, is_dir=is_dir) is expected


def test_blank_and_comment_lines_are_not_patterns() -> None:
    assert parse_gitignore("\n# a comment\n   \n/\n") == []


def test_glob_translation_keeps_stars_within_a_directory() -> None:
    import re

    def hit(glob: str, path: str) -> bool:
        return re.fullmatch(translate_glob(glob, braces=True), path) is not None

    assert hit("*.py", "a.py")
    assert not hit("*.py", "src/a.py")
    assert hit("**/*.py", "a.py")
    assert hit("**/*.py", "src/deep/a.py")
    assert hit("src/**", "src/a/b")
    assert hit("*.{ts,tsx}", "a.tsx")
    assert not hit("*.{ts,tsx}", "a.js")
    assert hit("{src,lib}/**/x.rs", "lib/a/x.rs")
    assert hit("a\\*b", "a*b")
    assert not hit("a\\*b", "axb")
    assert not hit("a?b", "a/b")
    assert not hit("a[/]b", "a/b")


def test_walker_lists_what_git_lists(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    write(
        repo,
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\ndocs/**/*.tmp\n",
            "keep.log": "",
            "debug.log": "",
            "top-only.txt": "",
            "sub/top-only.txt": "",
            "build/out.js": "",
            "sub/build/out.js": "",
            "docs/a/b/x.tmp": "",
            "docs/a/b/x.md": "",
            "src/.gitignore": "generated_*\n!generated_ok.py\n/local.cfg\n",
            "src/generated_a.py": "",
            "src/generated_ok.py": "",
            "src/local.cfg": "",
            "src/deeper/local.cfg": "",
            "src/deeper/generated_b.py": "",
            "src/app.py": "",
            ".hidden/conf.toml": "",
            ".env": "",
            "with space/a b.txt": "",
            "brackets/[x].txt": "",
            "unicodé/naïve.txt": "",
            "vendor/.gitignore": "*\n!.gitignore\n",
            "vendor/lib.c": "",
            "negated-dir/.gitkeep": "",
        },
    )
    (repo / ".git" / "info" / "exclude").write_text("*.secret\n/negated-dir/\n")
    write(repo, {"a.secret": "", "sub/b.secret": ""})
    git(repo, "add", "src/app.py", ".gitignore")
    expected = git_files(repo)
    assert walked(repo) == expected
    assert "keep.log" in expected
    assert "src/generated_ok.py" in expected
    assert "src/deeper/local.cfg" in expected
    assert "vendor/.gitignore" in expected


def test_ignored_directory_cannot_be_reincluded_from_inside(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    write(repo, {".gitignore": "out/\n!out/keep.txt\n", "out/keep.txt": "", "a.txt": ""})
    assert walked(repo) == git_files(repo) == {".gitignore", "a.txt"}


def test_walk_from_a_subdirectory_applies_rules_from_the_top(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    write(
        repo,
        {
            ".gitignore": "*.log\n/pkg/gen/\n",
            "pkg/a.log": "",
            "pkg/a.py": "",
            "pkg/gen/x.py": "",
            "pkg/.gitignore": "b.py\n",
            "pkg/sub/b.py": "",
            "pkg/sub/c.py": "",
        },
    )
    (repo / ".git" / "info" / "exclude").write_text("c.py\n")
    assert walked(repo / "pkg") == {".gitignore", "a.py"}
    assert walked(repo / "pkg" / "sub") == set()
    assert {f"pkg/{rel}" for rel in walked(repo / "pkg")} == {
        name for name in git_files(repo) if name.startswith("pkg/")
    }


def test_gitignore_outside_a_work_tree_is_not_read(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    write(plain, {".gitignore": "*.log\n", "a.log": "", "b.txt": ""})
    assert walked(plain) == {".gitignore", "a.log", "b.txt"}


def test_nested_repository_starts_its_own_rules(tmp_path: Path) -> None:
    outer = new_repo(tmp_path / "outer")
    write(outer, {".gitignore": "*.log\n", "a.log": "", "a.txt": ""})
    inner = new_repo(outer / "inner")
    write(inner, {".gitignore": "*.txt\n", "b.log": "", "b.txt": ""})
    assert walked(outer) == {".gitignore", "a.txt", "inner/.gitignore", "inner/b.log"}


def test_git_directory_is_always_skipped(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    write(plain, {".git/config": "", "x/.git": "gitdir: elsewhere\n", "x/y.txt": ""})
    assert walked(plain) == {"x/y.txt"}


def test_entries_come_in_path_order_and_respect_max_depth(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, {"b.txt": "", "a/z.txt": "", "a.txt": "", "a/b/c.txt": "", "A.txt": ""})
    order = [entry.rel for entry in walk(root, LocalFileOps())]
    assert order == ["A.txt", "a/b/c.txt", "a/z.txt", "a.txt", "b.txt"]
    shallow = [entry.rel for entry in walk(root, LocalFileOps(), max_depth=2)]
    assert shallow == ["A.txt", "a/z.txt", "a.txt", "b.txt"]


def test_stop_ends_the_walk_early(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, {f"d{i}/f.txt": "" for i in range(5)})
    assert list(walk(root, LocalFileOps(), stop=lambda: True)) == []


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_symlinks_are_listed_but_not_followed(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    write(repo, {"real/a.txt": ""})
    (repo / "dir-link").symlink_to(repo / "real")
    (repo / "file-link").symlink_to(repo / "real" / "a.txt")
    entries = {entry.rel: entry.is_symlink for entry in walk(repo, LocalFileOps())}
    assert entries == {"real/a.txt": False, "dir-link": True, "file-link": True}
    assert set(entries) == git_files(repo)


class CountingOps(LocalFileOps):
    """A FileOps that is not the local one: the walker goes through its methods."""

    def __init__(self) -> None:
        self.listed: list[Path] = []

    def list_dir(self, path: Path) -> list[str]:
        self.listed.append(path)
        return super().list_dir(path)

    def stat(self, path: Path) -> FileStat | None:
        return super().stat(path)


def test_walker_uses_injected_file_operations(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    write(repo, {".gitignore": "skip/\n*.o\n", "skip/a.c": "", "a.c": "", "a.o": "", "d/b.c": ""})
    ops = CountingOps()
    assert {entry.rel for entry in walk(repo, ops)} == walked(repo) == git_files(repo)
    assert repo / "d" in ops.listed
    assert repo / "skip" not in ops.listed


def test_ripgrep_searches_the_files_the_walker_yields(tmp_path: Path) -> None:
    """The flags grep gives rg select the same files as the walker (which grep's Python
    search uses); without rg on this machine the walker is held to the expected set."""
    repo = new_repo(tmp_path / "repo")
    write(
        repo,
        {
            ".gitignore": "*.log\n!keep.log\nout/\n",
            "keep.log": "",
            "a.log": "",
            "out/x.txt": "",
            ".hidden/h.txt": "",
            ".ignore": "src/\n",
            "src/.gitignore": "/gen.py\n",
            "src/gen.py": "",
            "src/app.py": "",
            "src/pkg/gen.py": "",
        },
    )
    (repo / ".git" / "info" / "exclude").write_text("*.bak\n")
    write(repo, {"src/old.bak": ""})
    expected = {
        ".gitignore",
        ".hidden/h.txt",
        ".ignore",
        "keep.log",
        "src/.gitignore",
        "src/app.py",
        "src/pkg/gen.py",
    }
    assert walked(repo) == expected
    assert git_files(repo) == expected
    if RG is not None:
        out = subprocess.run(
            [RG, *_rg.BASE_FLAGS, "--files", "--null", str(repo)],
            capture_output=True,
            check=True,
        ).stdout
        listed = {Path(os.fsdecode(p)).relative_to(repo).as_posix() for p in out.split(b"\0") if p}
        assert listed == expected
