"""One place gives every request its credential, for every auth style, the same way on
every wire: a key in its header, a bearer token, Azure's api-key or Entra token, Google's
application default credentials, or a SigV4 signature over the final bytes."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

import anyio
import pytest

from earshot.providers.auth_headers import auth_headers
from earshot.providers.cloud import azure
from earshot.providers.target import AuthStyle, Secret, Target, WireName

KEY = "sk-test-0123456789abcdef"
URL = "https://host.example/v1/x?b=2&a=1"


def target(auth: AuthStyle, key: str | None = KEY, wire: WireName = "openai-chat") -> Target:
    return Target(
        provider="p",
        wire=wire,
        base_url="https://host.example",
        model="m",
        auth=auth,
        api_key=Secret(key) if key is not None else None,
    )


def headers_for(tgt: Target, body: bytes = b"{}") -> dict[str, str]:
    return anyio.run(
        lambda: auth_headers(
            tgt, method="POST", url=URL, headers={"content-type": "application/json"}, body=body
        )
    )


@pytest.mark.parametrize(
    ("auth", "expected"),
    [
        ("x-api-key", {"x-api-key": KEY}),
        ("x-goog-api-key", {"x-goog-api-key": KEY}),
        ("bearer", {"authorization": f"Bearer {KEY}"}),
        ("api-key", {"api-key": KEY}),
        ("none", {}),
    ],
)
def test_key_styles_put_the_key_in_their_header(auth: AuthStyle, expected: dict[str, str]) -> None:
    assert headers_for(target(auth)) == expected


@pytest.mark.parametrize("auth", ["x-api-key", "x-goog-api-key", "bearer", "api-key", "none"])
def test_no_key_sends_no_credential_for_local_servers(auth: AuthStyle) -> None:
    assert headers_for(target(auth, key=None)) == {}


def test_every_auth_style_is_covered() -> None:
    covered = {"x-api-key", "x-goog-api-key", "bearer", "api-key", "none", "google-adc"}
    covered |= {"aws-sigv4"}
    assert set(get_args(AuthStyle)) == covered


def test_bedrock_api_key_is_a_bearer_token() -> None:
    assert headers_for(target("aws-sigv4", wire="amazon-bedrock")) == {
        "authorization": f"Bearer {KEY}"
    }


def test_sigv4_signs_the_final_body(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    tgt = target("aws-sigv4", key=None, wire="amazon-bedrock")
    one, two = headers_for(tgt, b'{"a":1}'), headers_for(tgt, b'{"a":2}')
    assert one["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/bedrock/aws4_request" in one["authorization"]
    assert one["x-amz-date"][:8] == datetime.now(UTC).strftime("%Y%m%d")
    assert one["authorization"] != two["authorization"]
    assert "secret" not in one["authorization"]


def test_azure_without_a_key_uses_the_entra_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "entra-token")
    got = headers_for(target("api-key", key=None, wire="azure-openai"))
    assert got == {"authorization": "Bearer entra-token"}


def test_azure_cli_token_is_fetched_once_and_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    azure.clear_cache()
    calls = tmp_path / "calls"
    program = tmp_path / "fake_az.py"
    program.write_text(
        "import json, sys\n"
        f"with open({str(calls)!r}, 'a') as f: f.write(' '.join(sys.argv[1:]) + '\\n')\n"
        "print(json.dumps({'accessToken': 'cli-token', 'expires_on': 4102444800}))\n"
    )
    posix = tmp_path / "az"  # what `az` is on POSIX; az.cmd is what Windows finds
    posix.write_text(f"#!{sys.executable}\nexec(open({str(program)!r}).read())\n")
    posix.chmod(0o755)
    (tmp_path / "az.cmd").write_text(f'@"{sys.executable}" "{program}" %*\n')
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    tgt = target("api-key", key=None, wire="azure-openai")
    assert headers_for(tgt) == {"authorization": "Bearer cli-token"}
    assert headers_for(tgt) == {"authorization": "Bearer cli-token"}
    lines = calls.read_text().splitlines()
    assert lines == [
        "account get-access-token --resource https://cognitiveservices.azure.com --output json"
    ]
    azure.clear_cache()
