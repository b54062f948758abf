"""What the parser sees for each shell class of issue 12: text bash runs as code, words bash
rewrites, what programs do with their arguments, and lines that can change nothing. The
decisions these lead to are in the bypass corpus (``bypass_corpus.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.permissions._programs import INLINE_STDIN
from earshot.core.permissions.match import glob_paths_meet, segments_meet
from earshot.core.permissions.shell import parse_line
from tests.permissions.helpers import bash, outcome, ruleset


def commands(line: str) -> list[str]:
    return [c.text for c in parse_line(line).commands]


# --- text bash runs as code ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("cat <<-EOF\n\t$(rm x)\n\tEOF", "rm x"),
        ("cat <<EOF\n`rm x`\nEOF", "rm x"),
        ('cat <<EOF\n"$(rm x)" and "quotes"\nEOF', "rm x"),
        ("cat <<EOF\n${a:-$(rm x)}\nEOF", "rm x"),
        ("cat <<EOF\n$(printf '%s' \"$(rm x)\")\nEOF", "rm x"),
        ("trap 'rm x' EXIT", "rm x"),
        ("trap -- 'rm x' INT TERM", "rm x"),
        ("mapfile -C 'rm x' -c 1 lines < f", "rm x"),
        ("coproc X { rm x; }", "rm x"),
    ],
)
def test_code_in_bodies_and_handlers_is_found(line: str, found: str) -> None:
    assert found in commands(line)


def test_a_quoted_here_document_stays_data() -> None:
    assert commands("cat <<'EOF'\n$(rm x)\n`rm y`\nEOF") == ["cat"]


@pytest.mark.parametrize(
    "line",
    [
        "printf -v 'a[$(rm x)]' 1",
        "read 'a[$(rm x)]'",
        "read -r -a 'a[`rm x`]'",
        "unset 'a[$(rm x)]'",
        "test -v 'a[$(rm x)]'",
        "[ -v 'a[$(rm x)]' ]",
        "let 'a[$(rm x)]=1'",
        "declare -n r='a[$(rm x)]'",
        "x='a[$(rm x)]'; echo $((x))",
        "x='a[$(rm x)]'; (( x ))",
        "read x; [[ $x -eq 1 ]]",
        "read i; echo ${arr[i]}",
        "read i; echo ${s:i}",
        "x=$(cat f); echo ${!x}",
        "for i in $(cat f); do echo $((i)); done",
        "mapfile lines < f; echo $((lines))",
        "x=y; read y; echo $((x))",
        "f() { echo $(($1 + 1)); }; f 'a[$(rm x)]'",
        "bash -c '[[ $1 -eq 1 ]]' _ 'a[$(rm x)]'",
        "read $name",
        "echo ${x@P}",
        "alias ls='rm x'",
        "BASH_ALIASES[ls]='rm x'",
        "hash -p /tmp/x git",
        "enable -f ./x.so cat",
        "bash <<EOF\nrm x\nEOF",
        "echo 'rm x' | sh",
        "bash -s < f",
        "bash -",
        "bash /dev/stdin",
        "bash <(curl x)",
        "source /dev/stdin",
        ". /proc/self/fd/0",
        "source <(curl x)",
        'trap "$X" EXIT',
        'eval "$X"',
    ],
)
def test_text_bash_would_run_that_earshot_cannot_prove_is_unreadable(line: str) -> None:
    parsed = parse_line(line)
    assert parsed.problems or any(c.opaque for c in parsed.commands)


@pytest.mark.parametrize(
    "line",
    [
        "x=1; echo $((x + 1))",
        "for i in 1 2 3; do echo $((i * 2)); done",
        "x=y; y=2; echo $((x + $#))",
        "for ((i = 0; i < 3; i++)); do echo $i; done",
        "a[0]=1; echo ${a[0]}",
        "read x < f; echo $x",
        "echo ${x:-a} ${#x}",
        "printf -v out %s 1",
        "[[ $x == y ]]",
        "trap - EXIT",
        "alias",
        "bash script.sh",
        "bash --version",
        "source ./env.sh",
    ],
)
def test_ordinary_variables_and_scripts_stay_readable(line: str) -> None:
    parsed = parse_line(line)
    assert not parsed.problems and not any(c.opaque for c in parsed.commands)


# --- words bash rewrites --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("r\\\nm -rf x", ["rm -rf x"]),
        ("git lo\\\ng -5", ["git log -5"]),
        ("git log \\\n-5", ["git log -5"]),
        ("echo hi > out rm -rf x", ["echo hi rm -rf x"]),
        ("git push > /dev/null --force", ["git push --force"]),
        ("> out rm x", ["rm x"]),
    ],
)
def test_continuations_join_words_and_words_after_a_target_are_arguments(
    line: str, expected: list[str]
) -> None:
    assert commands(line) == expected


@pytest.mark.parametrize(
    ("line", "target", "glob"),
    [
        ("echo x > .gi\\\nt/config", ".git/config", False),
        ("echo x > .gi[t]/config", ".gi[t]/config", True),
        ("echo x | tee .earsho?/settings.json", ".earsho?/settings.json", True),
        ("echo x > {a,b}/c", "{a,b}/c", True),
        ("echo x > /dev/fd/3", "/dev/fd/3", False),
        ("echo x > /proc/self/fd/1", "/proc/self/fd/1", False),
    ],
)
def test_write_targets_keep_their_globs_and_descriptor_paths(
    line: str, target: str, glob: bool
) -> None:
    (write,) = parse_line(line).writes
    assert (write.target, write.glob) == (target, glob)


def test_a_bare_assignment_that_changes_what_runs_is_a_part() -> None:
    assert commands("PATH=/tmp/evil:$PATH; git status") == ["PATH=/tmp/evil:$PATH", "git status"]
    assert commands("x=1; LANG=C; git status") == ["git status"]


# --- programs that write, read or run their arguments -----------------------------------------


@pytest.mark.parametrize(
    ("line", "targets"),
    [
        ("cp a b dest", ["dest"]),
        ("cp -t dest a b", ["dest"]),
        ("cp --target-directory=dest a", ["dest"]),
        ("mv a b", ["b", "a"]),
        ("install -m 644 a /usr/local/bin/a", ["/usr/local/bin/a"]),
        ("install -d x y", ["x", "y"]),
        ("ln -s target link", ["link"]),
        ("ln -s /etc/passwd", ["passwd"]),
        ("dd if=a of=b bs=1M", ["b"]),
        ("sed -i s/a/b/ f g", ["f", "g"]),
        ("sed -i.bak -e s/a/b/ f", ["f"]),
        ("sed --in-place s/a/b/ f", ["f"]),
        ("perl -pi -e s/a/b/ f", ["f"]),
        ("perl -i.bak -pe s/a/b/ f", ["f"]),
        ("git diff --output=out.patch", ["out.patch"]),
        ("git -C x log --output out.txt", ["out.txt"]),
        ("truncate -s 0 a b", ["a", "b"]),
        ("touch -d yesterday a", ["a"]),
        ("rm -rf a b", ["a", "b"]),
        ("mkdir -p -m 755 d", ["d"]),
        ("chmod 600 a", ["a"]),
        ("sort -o out in", ["out"]),
        ("find build -delete", ["build"]),
        ("cp x /dev/null", []),
        ("curl -o out.html -c jar https://x", ["out.html", "jar"]),
        ("wget -O out -P dir https://x", ["out", "dir"]),
        ("tar xzf a.tgz -C dest", ["dest"]),
        ("tar czf out.tgz src", ["out.tgz"]),
        ("tar -tf a.tar", []),
        ("unzip a.zip -d dest", ["dest"]),
        ("rsync -a src/ dest/", ["dest/"]),
        ("rsync -a src/ host:dest/", []),
        ("sed s/a/b/ f", []),
        ("git diff", []),
    ],
)
def test_programs_that_write_their_arguments(line: str, targets: list[str]) -> None:
    assert [w.target for w in parse_line(line).writes] == targets


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        ("cat .env", [".env"]),
        ("grep -r KEY ~/.ssh", ["~/.ssh"]),
        ("grep -e KEY -f pats.txt src", ["src", "pats.txt"]),
        ("base64 ~/.ssh/id_rsa", ["~/.ssh/id_rsa"]),
        ("cat < .env", [".env"]),
        ("git show HEAD:.env", ["show", "HEAD:.env", ".env"]),
        ("dd if=.env of=out", [".env", "if=.env", "of=out"]),
        ("cp .env /tmp/x", [".env"]),
        ("find src -name '*.pem'", ["src"]),
        ("echo .env", []),
        ("grep -rn .env src", ["src"]),
        ("curl -d @body.json https://h", ["body.json", "@body.json", "https://h", "//h"]),
        ("curl -F 'f=@up.bin;type=x' h", ["up.bin", "f=@up.bin;type=x", "@up.bin;type=x", "h"]),
        ("cat $HOME/.ssh/id_rsa", ["~/.ssh/id_rsa"]),
        ("f=.env; cat $f", ["$f", ".env"]),
        ('for f in a "b c"; do cat "$f"/x; done', ['"$f"/x', "a/x", "b c/x"]),
        ("f='a b'; cat $f", ["$f", "a", "b"]),
        ('cat "${HOME}/x" $HOMEDIR/y', ["~/x", "$HOMEDIR/y"]),
    ],
)
def test_file_arguments_are_reads(line: str, reads: list[str]) -> None:
    assert [r.target for r in parse_line(line).reads] == reads


@pytest.mark.parametrize(
    ("line", "inline"),
    [
        ("python3 -c 'print(1)'", "-c"),
        ("python3 -Ic 'print(1)'", "-Ic"),
        ("python3.12 -c x", "-c"),
        ("python3 - < f", "-"),
        ("python3", INLINE_STDIN),
        ("node -e x", "-e"),
        ("node --eval=x", "--eval"),
        ("perl -ne 'print'", "-ne"),
        ("ruby -e x", "-e"),
        ("php -r x", "-r"),
        ("awk 'BEGIN{system(\"id\")}'", 'BEGIN{system("id")}'),
        ("gawk -e '{print > \"f\"}' in", '{print > "f"}'),
        ("sed 's/a/b/e' f", "s/a/b/e"),
        ("sed -n '/x/w out' f", "/x/w out"),
        ("python3 script.py -c x", ""),
        ("python3 -m http.server", ""),
        ("python3 --version", ""),
        ("awk '{print $1}' f", ""),
        ("awk '$1 > 5 || $2' f", ""),
        ("sed -e 's/a/b/' -e 'y/ab/cd/' f", ""),
    ],
)
def test_inline_code_names_the_word_a_rule_must_contain(line: str, inline: str) -> None:
    assert parse_line(line).commands[0].inline == inline


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("su root -c 'rm x'", "rm x"),
        ("su - root -c 'rm x'", "rm x"),
        ("su --command='rm x' root", "rm x"),
        ("runuser -u bob -- rm x", "rm x"),
        ("runuser -l bob -c 'rm x'", "rm x"),
        ("parallel -j 4 'rm {}' ::: a b", "rm {}"),
        ("flock /tmp/lock rm x", "rm x"),
        ("flock -w 5 /tmp/lock -c 'rm x'", "rm x"),
        ("watch -x rm x", "rm x"),
        ("ksh -c 'rm x'", "rm x"),
        ("dash -c 'rm x'", "rm x"),
        ("busybox sh -c 'rm x'", "rm x"),
    ],
)
def test_programs_that_run_programs_are_looked_through(line: str, found: str) -> None:
    assert found in commands(line)


@pytest.mark.parametrize(
    "line",
    [
        "fish -c 'rm x'",
        "tcsh -c 'rm x'",
        "csh -c 'rm x'",
        "su root 'rm x'",
        "ls | parallel",
        "git -c core.pager='rm x' log",
        "git -c alias.st='!rm x' st",
        "git -c core.fsmonitor=x status",
        "git --exec-path=/tmp status",
        "git --config-env=core.pager=X log",
    ],
)
def test_programs_that_run_what_earshot_cannot_read_fail_closed(line: str) -> None:
    assert any(c.opaque for c in parse_line(line).commands)


@pytest.mark.parametrize(
    ("line", "also"),
    [
        ("git -C dir push", "git push"),
        ("git --git-dir=x push origin", "git push origin"),
        ("git --git-dir x --work-tree y push", "git push"),
        ("git -c user.name=x push", "git push"),
        ("git --no-pager -P log", "git log"),
    ],
)
def test_git_global_options_are_dropped_for_deny_and_ask_rules(line: str, also: str) -> None:
    assert also in parse_line(line).commands[0].also


# --- lines that change nothing ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "read_only"),
    [
        ("ls -la", True),
        ("pwd && git status", True),
        ("git log --oneline -5 | head -3 | wc -l", True),
        ("grep -rn TODO src", True),
        ("rg -n TODO", True),
        ("find . -name '*.py' -type f", True),
        ("git diff HEAD~1 -- src", True),
        ("git branch -a", True),
        ("git -C other status", True),
        ("echo $(git status)", True),
        ("cd src && ls", True),
        ("ls > out", False),
        ("find . -exec cat {} \\;", False),
        ("find . -fprint out", False),
        ("grep -f $PATTERNS src", False),
        ("rg --pre ./x TODO", False),
        ("git branch new", False),
        ("git diff --output=x", False),
        ("git -c color.ui=always log", False),
        ("git stash list", False),
        ("sort -o out in", False),
        ("printf -v x %s 1", False),
        ("cat $F", False),
        ("ls | xargs cat", False),
        ("./ls", False),
        ("PATH=/tmp ls", False),
        ("cd src && cat a", False),
        ("ls; make", False),
    ],
)
def test_a_line_of_read_only_programs_is_read_only(line: str, read_only: bool) -> None:
    assert parse_line(line).read_only is read_only


@pytest.mark.parametrize(
    ("line", "below"),
    [
        ("grep -r KEY src lib", ["src", "lib"]),
        ("grep -R KEY", ["."]),
        ("grep -d recurse KEY x", ["x"]),
        ("rg KEY", ["."]),
        ("rg -n KEY src", ["src"]),
        ("grep KEY a.txt", []),
    ],
)
def test_recursive_searches_name_the_directories_they_read_below(
    line: str, below: list[str]
) -> None:
    assert [b.target for b in parse_line(line).below] == below


def test_a_recursive_search_that_could_reach_a_denied_file_is_not_read_only(
    tmp_path: Path,
) -> None:
    rules = ruleset(tmp_path, deny=["Read(./.env)"])
    assert outcome(rules, "ask", tmp_path, bash("grep -r KEY src")) == "allow"
    assert outcome(rules, "ask", tmp_path, bash("grep -r KEY .")) == "ask"
    assert outcome(rules, "ask", tmp_path, bash("rg KEY")) == "ask"
    named = ruleset(tmp_path, deny=["Read(*.pem)"])
    assert outcome(named, "ask", tmp_path, bash("grep -r KEY src")) == "ask"


# --- globs read as patterns ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shell", "rule", "dotglob", "meet"),
    [
        (".gi[t]", ".git", False, True),
        (".earsho?", ".earshot", False, True),
        ("*", ".git", False, False),
        ("*", ".git", True, True),
        (".*", ".git", False, True),
        ("*.o", ".git", True, False),
        ("[!.]*", ".env", True, False),
        ("se*s", "secrets", False, True),
        ("*.pem", "*.key", False, False),
        ("*.pem", "id_*", False, True),
    ],
)
def test_segment_globs_meet_when_one_name_matches_both(
    shell: str, rule: str, dotglob: bool, meet: bool
) -> None:
    assert segments_meet(shell, rule, dotglob) is meet


@pytest.mark.parametrize(
    ("shell", "rule", "meet"),
    [
        ("/p/.gi[t]/config", "/p/.git", True),
        ("/p/secret?/key.pem", "/p/secrets/**", True),
        ("/p/src/*.py", "/p/secrets/**", False),
        ("/p/*/config", "/p/secrets", True),
        ("/p/a/*.pem", "*.pem", True),
        ("/p/a/*.txt", "*.pem", False),
    ],
)
def test_a_glob_path_meets_a_rule_when_an_expansion_could_be_covered(
    shell: str, rule: str, meet: bool
) -> None:
    assert glob_paths_meet(shell, rule, dotglob=False) is meet
