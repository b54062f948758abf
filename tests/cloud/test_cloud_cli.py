"""What the issue promises a user: with only an AWS profile, only a service-account file, or
only an Azure key and endpoint, ``earshot -p`` answers from a model on that cloud (each cloud
a loopback fake), and ``earshot providers`` shows where the credentials come from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_cloud.aws import FakeAws, text_reply
from tests.fake_cloud.azure import API_KEY, FakeAzure
from tests.fake_cloud.google import FakeGoogle
from tests.fake_provider import FakeProvider, anthropic
from tests.fake_provider import gemini as fake_gemini
from tests.fake_provider import openai_chat as fake_chat


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def earshot(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        timeout=60,
        check=False,
    )


def test_aws_profile_only(
    repo: Path, hermetic_env: Path, monkeypatch: pytest.MonkeyPatch, fake_aws: FakeAws
) -> None:
    aws = hermetic_env / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text(
        "[dev]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile/secret\n"
    )
    (aws / "config").write_text("[profile dev]\nregion = eu-central-1\n")
    fake_aws.extra_keys["AKIDPROFILE"] = "profile/secret"
    fake_aws.streams.append(text_reply("Bedrock says hi."))
    monkeypatch.setenv("AWS_PROFILE", "dev")
    monkeypatch.setenv("AMAZON_BEDROCK_BASE_URL", fake_aws.base_url)
    model = "amazon-bedrock/eu.anthropic.claude-sonnet-4-5-20250929-v1:0"
    done = earshot(repo, "--model", model, "-p", "hello")
    assert done.returncode == 0, done.stderr
    assert "Bedrock says hi." in done.stdout
    assert fake_aws.seen_regions == ["eu-central-1"]
    listed = json.loads(earshot(repo, "providers", "--json").stdout)
    bedrock = next(r for r in listed if r["id"] == "amazon-bedrock")
    assert bedrock["key_set"] is True
    assert bedrock["key_source"] == "profile dev (~/.aws/credentials)"
    assert "(planned)" not in earshot(repo, "providers").stdout
    assert "profile/secret" not in json.dumps(listed)


def test_service_account_file_only(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_google: FakeGoogle
) -> None:
    key_file = fake_google.service_account_file(tmp_path / "sa.json", project="cli-proj")
    fake_google.replies.append(fake_gemini.text_turn("Vertex says hi."))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", fake_google.base_url)
    done = earshot(repo, "--model", "google-vertex/gemini-2.5-pro", "-p", "hello")
    assert done.returncode == 0, done.stderr
    assert "Vertex says hi." in done.stdout
    assert fake_google.calls[0].project == "cli-proj"
    assert fake_google.calls[0].location == "global"


def test_azure_key_and_endpoint_only(
    repo: Path, monkeypatch: pytest.MonkeyPatch, fake_azure: FakeAzure
) -> None:
    fake_azure.replies.append(fake_chat.text_turn("Azure says hi."))
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", fake_azure.base_url)
    done = earshot(repo, "--model", "azure/my-4o", "-p", "hello")
    assert done.returncode == 0, done.stderr
    assert "Azure says hi." in done.stdout
    assert API_KEY not in done.stdout + done.stderr


CLOUD_MODULES = (
    "earshot.providers.cloud",
    "earshot.providers.eventstream",
    "earshot.providers.wire.bedrock",
    "earshot.providers.wire.vertex",
    "earshot.providers.wire.azure",
)


def test_a_non_cloud_model_loads_no_cloud_code(
    repo: Path, monkeypatch: pytest.MonkeyPatch, fake_provider: FakeProvider
) -> None:
    fake_provider.script(anthropic.text_turn("plain"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_provider.base_url)
    probe = (
        "import sys, json\n"
        "from earshot.cli._entry import main\n"
        "code = main(['--model', 'anthropic/claude-sonnet-4-6', '-p', 'hi'])\n"
        "sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=repo, timeout=60
    )
    assert "plain" in done.stdout, done.stderr
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert not [m for m in loaded if m.startswith(CLOUD_MODULES)]


def test_doctor_checks_each_cloud_the_user_set_up(repo: Path) -> None:
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIDDOCTOR",
        "AWS_SECRET_ACCESS_KEY": "doctor/secret/value",
        "AWS_REGION": "ap-southeast-2",
        "AZURE_OPENAI_API_KEY": "azure-doctor-key-0123456789",
    }
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "doctor", "--json"],
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=60,
        check=False,
    )
    report = json.loads(done.stdout)
    by_id = {r["id"]: r for r in report["providers"]}
    bedrock = by_id["amazon-bedrock"]
    assert bedrock["usable"] is True
    assert bedrock["placement"] == {"region": "ap-southeast-2"}
    azure = by_id["azure"]
    assert azure["usable"] is False
    assert "AZURE_OPENAI_ENDPOINT" in azure["problem"]
    assert any("AZURE_OPENAI_ENDPOINT" in p for p in report["problems"])
    assert done.returncode == 1
    assert "google-vertex" not in by_id, "a cloud nobody set up is not checked"
    assert "doctor/secret/value" not in done.stdout + done.stderr
    assert "azure-doctor-key" not in done.stdout + done.stderr


def test_doctor_reads_the_azure_endpoint_from_settings_as_a_run_does(
    repo: Path, hermetic_env: Path
) -> None:
    settings = hermetic_env / ".config" / "earshot" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    azure = {"base_url": "contoso-ai", "api_version": "2025-04-01-preview"}
    settings.write_text(json.dumps({"providers": {"azure": azure}}))
    env = {**os.environ, "AZURE_OPENAI_API_KEY": "azure-doctor-key-0123456789"}
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "doctor", "--json"],
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=60,
        check=False,
    )
    by_id = {r["id"]: r for r in json.loads(done.stdout)["providers"]}
    assert by_id["azure"]["usable"] is True, done.stdout
    assert by_id["azure"]["placement"] == {
        "endpoint": "https://contoso-ai.openai.azure.com",
        "api_version": "2025-04-01-preview",
    }
    assert "problem" not in by_id["azure"]
