"""A real ``earshot -p`` whose model asks for a file a Read deny rule covers: the file's bytes
reach no request, no stdout and no transcript, in ask mode and in yolo; and ``earshot
permissions check`` says deny for the same spellings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.test_headless_cli import earshot

ENV_SECRET = "sk-env-7f3a9c1e-never-leave"
SSH_SECRET = "ssh-7f3a9c1e-private-key"
PEM_SECRET = "pem-7f3a9c1e-certificate"
SECRETS = (ENV_SECRET, SSH_SECRET, PEM_SECRET)


@pytest.fixture
def repo(tmp_path: Path, hermetic_env: Path) -> Path:
    work = tmp_path / "repo"
    (work / ".earshot").mkdir(parents=True)
    (work / "certs").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / ".env").write_text(f"TOKEN={ENV_SECRET}\n")
    (work / "certs/site.pem").write_text(f"{PEM_SECRET}\n")
    (work / "notes.txt").write_text("7f3a9c1e appears here too\n")
    (work / "link").symlink_to(work / ".env")
    ssh = hermetic_env / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(f"{SSH_SECRET}\n")
    settings = {"permissions": {"deny": ["Read(./.env)", "Read(*.pem)"]}}
    (work / ".earshot/settings.json").write_text(json.dumps(settings))
    user = hermetic_env / ".config/earshot"
    user.mkdir(parents=True)
    (user / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(~/.ssh/**)"]}}))
    return work


def _leaks(fake: FakeProvider, done: subprocess.CompletedProcess[str], home: Path) -> list[str]:
    sent = "".join(r.body.decode(errors="replace") for r in fake.requests)
    transcripts = "".join(
        p.read_text(errors="replace") for p in (home / ".local/share").rglob("*.jsonl")
    )
    where = {
        "request": sent,
        "stdout": done.stdout,
        "stderr": done.stderr,
        "transcript": transcripts,
    }
    return [f"{s} in {w}" for s in SECRETS for w, text in where.items() if s in text]


CALLS = [
    ("read", {"path": ".env"}),
    ("read", {"path": "./certs/../.env"}),
    ("read", {"path": "link"}),
    ("read", {"path": "~/.ssh/id_rsa"}),
    ("read", {"path": "{home}/.ssh/id_rsa"}),
    ("grep", {"pattern": "7f3a9c1e", "path": ".", "output_mode": "content"}),
    ("grep", {"pattern": "7f3a9c1e", "path": "~/.ssh", "output_mode": "content"}),
    ("glob", {"pattern": "**/*"}),
    ("ls", {"path": "~/.ssh"}),
]


@pytest.mark.parametrize("mode", ["ask", "yolo"])
def test_a_denied_file_never_reaches_the_model(
    fake_provider: FakeProvider, repo: Path, hermetic_env: Path, mode: str
) -> None:
    calls = [
        ToolCallSpec(
            f"c{i}",
            name,
            {k: v.replace("{home}", hermetic_env.as_posix()) for k, v in args.items()},
        )
        for i, (name, args) in enumerate(CALLS)
    ]
    fake_provider.script(anthropic.tool_calls_turn(calls), anthropic.text_turn("done"))
    done = earshot(
        fake_provider,
        repo,
        "-p",
        "show me the secrets",
        "--permission-mode",
        mode,
        "--output-format",
        "stream-json",
    )
    assert done.returncode == 0, done.stderr
    assert _leaks(fake_provider, done, hermetic_env) == []
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    decisions = [r["decision"] for r in records if r["type"] == "permission"]
    assert decisions[:5] == ["deny"] * 5
    assert decisions[5:] == ["allow", "deny", "allow", "deny"]
    second = fake_provider.requests[1].body.decode()
    assert "notes.txt" in second  # the grep over . still ran, and found the harmless file
    assert "withheld by Read(*.pem)" in second
    fake_provider.assert_protocol_invariants()


@pytest.mark.parametrize(
    "request_text",
    ["Read(.env)", "Read(certs/../.env)", "Read(link)", "Read(.//.env/)", "Read(~/.ssh/id_rsa)"],
)
def test_permissions_check_agrees_with_the_tools(repo: Path, request_text: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "permissions", "check", request_text, "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decision"] == "deny"
