"""The bash parser finds every command a line runs and every file it writes."""

from __future__ import annotations

import pytest

from earshot.core.permissions.shell import canonical_pattern, parse_line


def commands(line: str) -> list[str]:
    return [c.text for c in parse_line(line).commands]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git log; rm x", ["git log", "rm x"]),
        ("git log && rm x", ["git log", "rm x"]),
        ("git log || rm x", ["git log", "rm x"]),
        ("git log | rm x", ["git log", "rm x"]),
        ("git log |& rm x", ["git log", "rm x"]),
        ("git log & rm x", ["git log", "rm x"]),
        ("git log\nrm x", ["git log", "rm x"]),
        ("(cd a && rm x)", ["cd a", "rm x"]),
        ("{ rm x; }", ["rm x"]),
        ("echo $(rm x)", ["echo $(rm x)", "rm x"]),
        ("echo `rm x`", ["echo `rm x`", "rm x"]),
        ("cat <(rm x)", ["cat <(rm x)", "rm x"]),
        ("tee >(rm x)", ["tee >(rm x)", "rm x"]),
        ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
        ("for f in 1 2; do rm $f; done", ["rm $f"]),
        ("while a; do b; done", ["a", "b"]),
        ("until a; do b; done", ["a", "b"]),
        ("case $x in a) rm y;; *) z;; esac", ["rm y", "z"]),
        ("f() { rm x; }; f", ["rm x", "f"]),
        ("echo $((1 + $(rm x)))", ["echo $((1 + $(rm x)))", "rm x"]),
        ("echo ${a:-$(rm x)}", ["echo ${a:-$(rm x)}", "rm x"]),
        ("x=$(rm y)", ["rm y"]),
        ("[[ -n $(rm y) ]]", ["rm y"]),
        ("! rm x", ["rm x"]),
        ("ls # ; rm x", ["ls"]),
        ("git log \\\n  -5", ["git log -5"]),
    ],
)
def test_every_command_of_a_line_is_found(line: str, expected: list[str]) -> None:
    assert commands(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("bash -c 'rm -rf x'", ["rm -rf x"]),
        ("sh -c 'a; b'", ["a", "b"]),
        ("zsh -c 'rm x'", ["rm x"]),
        ("bash -lc 'rm x'", ["rm x"]),
        ("bash -o pipefail -c 'rm x'", ["rm x"]),
        ("eval 'rm x; ls'", ["rm x", "ls"]),
        ("eval rm x", ["rm x"]),
        ("env rm x", ["rm x"]),
        ("env -i -u HOME rm x", ["rm x"]),
        ("env LANG=C rm x", ["rm x"]),
        ("env GIT_PAGER=less git log", ["env GIT_PAGER=less git log", "git log"]),
        ("command rm x", ["rm x"]),
        ("builtin eval 'rm x'", ["rm x"]),
        ("exec rm x", ["rm x"]),
        ("nohup rm x &", ["rm x"]),
        ("nice -n 10 rm x", ["rm x"]),
        ("nice -10 rm x", ["rm x"]),
        ("time rm x", ["rm x"]),
        ("time -p rm x", ["rm x"]),
        ("timeout 5 rm x", ["rm x"]),
        ("timeout -s KILL --foreground 5s rm x", ["rm x"]),
        ("sudo rm x", ["sudo rm x", "rm x"]),
        ("sudo -u root -- rm x", ["sudo -u root -- rm x", "rm x"]),
        ("doas rm x", ["doas rm x", "rm x"]),
        ("su -c 'rm x' root", ["su -c 'rm x' root", "rm x"]),
        ("ls | xargs rm", ["ls", "rm …"]),
        ("ls | xargs -0 -n 1 rm -f", ["ls", "rm -f …"]),
        ("ls | xargs -I{} mv {} out", ["ls", "mv {} out"]),
        ("ls | xargs", ["ls", "echo …"]),
        ("find . -exec rm {} \\;", ["find . -exec rm {} ';'", "rm {}"]),
        ("find . -execdir rm {} +", ["find . -execdir rm {} +", "rm {}"]),
        ("find . -ok rm {} ';'", ["find . -ok rm {} ';'", "rm {}"]),
        ("find . -okdir rm {} \\;", ["find . -okdir rm {} ';'", "rm {}"]),
        ("stdbuf -oL rm x", ["rm x"]),
        ("setsid rm x", ["rm x"]),
        ("watch -n 1 'rm x'", ["rm x"]),
        ("busybox sh -c 'rm x'", ["rm x"]),
    ],
)
def test_wrappers_are_looked_through(line: str, expected: list[str]) -> None:
    assert commands(line) == expected


def test_wrappers_nest() -> None:
    found = commands("sudo timeout 5 nice bash -c \"eval 'rm x'\"")
    assert found[0].startswith("sudo timeout 5 nice bash -c")
    assert found[1:] == ["rm x"]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("/bin/rm x", "rm x"),
        ("/usr/bin/rm x", "rm x"),
        ('"rm" x', "rm x"),
        ("'rm' x", "rm x"),
        ("r'm' x", "rm x"),
        ('r""m x', "rm x"),
        ("\\rm x", "rm x"),
        ("r\\m x", "rm x"),
        ("$'\\x72\\x6d' x", "rm x"),
        ("$'\\162m' x", "rm x"),
        ("/usr/bin/env rm x", "rm x"),
    ],
)
def test_quoted_and_qualified_names_are_the_program_they_run(line: str, name: str) -> None:
    assert commands(line) == [name]


def test_a_program_outside_the_system_directories_keeps_its_path() -> None:
    parsed = parse_line("./git log")
    assert [(c.text, c.also) for c in parsed.commands] == [("./git log", ("git log",))]


def test_system_paths_are_matched_as_the_bare_name_and_as_written() -> None:
    parsed = parse_line("/usr/bin/git log")
    assert [(c.text, c.also) for c in parsed.commands] == [("git log", ("/usr/bin/git log",))]


def test_prefix_assignments_stay_part_of_the_command_unless_harmless() -> None:
    parsed = parse_line("PATH=/tmp LANG=C git log")
    assert [(c.text, c.also) for c in parsed.commands] == [("PATH=/tmp git log", ("git log",))]


@pytest.mark.parametrize(
    "line",
    ["$CMD x", "${RM:-rm} x", "r${x}m x", "$(echo rm) x", "r* x", "/bin/r? x", "rm${IFS}x"],
)
def test_a_computed_program_name_is_opaque(line: str) -> None:
    parsed = parse_line(line)
    assert parsed.commands[0].opaque


@pytest.mark.parametrize(
    "line",
    [
        'echo "unterminated',
        "echo $(",
        "a &&",
        "{rm,-rf,x}",
        "if true; then",
        "bash -c",
        'eval "$X"',
        'bash -c "$X"',
        "find . -exec rm {}",
        "sudo --bogus rm x",
        "env -S 'rm x'",
        "xargs --bogus rm",
        "cat <> rw",
    ],
)
def test_what_cannot_be_read_is_reported(line: str) -> None:
    parsed = parse_line(line)
    assert parsed.problems or any(c.opaque for c in parsed.commands)


def test_nesting_deeper_than_the_limit_is_unreadable() -> None:
    parsed = parse_line("eval " * 12 + "rm x")
    assert parsed.problems
    assert not any(c.text == "rm x" for c in parsed.commands)


@pytest.mark.parametrize(
    ("line", "targets"),
    [
        ("echo hi > out", ["out"]),
        ("echo hi >> out", ["out"]),
        ("echo hi &> out", ["out"]),
        ("echo hi &>> out", ["out"]),
        ("echo hi >| out", ["out"]),
        ("echo hi 2> err", ["err"]),
        ("echo hi >& out", ["out"]),
        ("echo hi | tee a b", ["a", "b"]),
        ("echo hi | tee -a a", ["a"]),
        ("time -o t.txt make", ["t.txt"]),
        ("find . -fprint list.txt", ["list.txt"]),
        ("cat <<EOF > out\nhi\nEOF", ["out"]),
        ("exec 3> fd3", ["fd3"]),
        ("> empty", ["empty"]),
    ],
)
def test_output_redirections_and_tee_are_writes(line: str, targets: list[str]) -> None:
    assert [w.target for w in parse_line(line).writes] == targets


@pytest.mark.parametrize(
    "line",
    ["echo hi 2>&1", "echo hi >&2", "echo hi > /dev/null", "echo hi 2>/dev/null", "cat < in"],
)
def test_descriptor_duplication_and_dev_null_are_not_writes(line: str) -> None:
    assert parse_line(line).writes == ()


def test_a_computed_redirection_target_is_not_literal() -> None:
    (write,) = parse_line("echo hi > $HOME/.bashrc").writes
    assert not write.literal


def test_a_home_relative_target_is_marked() -> None:
    (write,) = parse_line("echo hi > ~/notes").writes
    assert write.tilde and write.target == "~/notes"


def test_changing_directory_is_noticed() -> None:
    assert parse_line("cd /tmp && echo x > f").changes_dir
    assert not parse_line("echo x > f").changes_dir


def test_a_quoted_here_document_runs_nothing() -> None:
    assert commands("cat <<'EOF'\n$(rm x)\nEOF") == ["cat"]
    assert commands("cat <<EOF\n$(rm x)\nEOF") == ["cat", "rm x"]


def test_words_are_rendered_canonically() -> None:
    assert commands("git   commit -m \"fix the bug\"  --author='A B'") == [
        "git commit -m 'fix the bug' '--author=A B'"
    ]
    assert commands("echo 'a;b' \"it's\"") == ["echo 'a;b' 'it'\"'\"'s'"]
    assert commands("ls *.py") == ["ls *.py"]


@pytest.mark.parametrize(
    ("pattern", "canonical"),
    [
        ("git log *", "git log *"),
        ('git commit -m "fix bug" *', "git commit -m 'fix bug' *"),
        ("/usr/bin/git  log", "git log"),
        ("npm run build", "npm run build"),
    ],
)
def test_bash_patterns_take_the_same_canonical_form(pattern: str, canonical: str) -> None:
    assert canonical_pattern(pattern) == canonical


@pytest.mark.parametrize("pattern", ["a; b", "a && b", "a | b", "a > f", 'echo "x', "(a)"])
def test_a_pattern_that_is_not_one_simple_command_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match="one simple command"):
        canonical_pattern(pattern)


def test_nesting_past_the_interpreter_stack_is_unreadable_not_a_crash() -> None:
    parsed = parse_line("echo " + "$(" * 2000 + "rm x" + ")" * 2000)
    assert "the command nests too deeply to check" in parsed.problems


def test_parse_line_never_raises_on_odd_input() -> None:
    for line in ["", "   ", "\x00", "\udcff", ")))", "'''", "$(" * 50, "a" * 10000, "\\"]:
        parse_line(line)
