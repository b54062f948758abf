"""SigV4 signing: the published test-suite vectors, and agreement with botocore's signer on
the request shapes Bedrock sends (encoded model ids, query strings, temporary keys)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from earshot.providers.cloud.sigv4 import AwsCredentials, canonical_uri, sign

# The test suite's credentials, scope and clock (AKIDEXAMPLE, us-east-1, service, 2015-08-30).
SUITE = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
SUITE_TIME = datetime(2015, 8, 30, 12, 36, tzinfo=UTC)
SCOPE = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request"


@pytest.mark.parametrize(
    ("method", "signature"),
    [
        ("GET", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("POST", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    ],
    ids=["get-vanilla", "post-vanilla"],
)
def test_signature_matches_published_vanilla_vectors(method: str, signature: str) -> None:
    added = sign(
        method=method,
        url="https://example.amazonaws.com/",
        headers={},
        body=b"",
        credentials=SUITE,
        region="us-east-1",
        service="service",
        now=SUITE_TIME,
    )
    assert added["x-amz-date"] == "20150830T123600Z"
    assert added["authorization"] == (
        f"AWS4-HMAC-SHA256 Credential={SCOPE}, SignedHeaders=host;x-amz-date, Signature={signature}"
    )


def test_model_id_with_colon_is_signed_double_encoded() -> None:
    assert (
        canonical_uri("/model/anthropic.claude-v2%3A1/converse-stream")
        == "/model/anthropic.claude-v2%253A1/converse-stream"
    )


def _botocore_authorization(
    url: str, headers: dict[str, str], body: bytes, creds: AwsCredentials
) -> tuple[str, str]:
    request = AWSRequest(method="POST", url=url, data=body, headers=headers)
    boto_creds = Credentials(creds.access_key_id, creds.secret_access_key, creds.session_token)
    SigV4Auth(boto_creds, "bedrock", "eu-west-3").add_auth(request)
    return str(request.headers["Authorization"]), str(request.headers["X-Amz-Date"])


@pytest.mark.parametrize(
    ("url", "session_token"),
    [
        ("https://bedrock-runtime.eu-west-3.amazonaws.com/model/amazon.nova-pro-v1%3A0/x", None),
        ("https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/converse-stream", "tok/en+=="),
        (
            "https://bedrock-runtime.eu-west-3.amazonaws.com/model/"
            "arn%3Aaws%3Abedrock%3Aeu-west-3%3A1%3Ainference-profile%2Feu.m/converse-stream",
            None,
        ),
        ("http://127.0.0.1:8123/model/m/converse-stream?b=2&a=1&a=0&sp=x%20y", None),
    ],
    ids=["colon-model", "session-token", "profile-arn", "query-and-port"],
)
def test_signature_agrees_with_botocore(url: str, session_token: str | None) -> None:
    creds = AwsCredentials("AKIDEXAMPLE", "secret/with+chars", session_token)
    body = b'{"messages":[{"role":"user","content":[{"text":"h\xc3\xa9"}]}]}'
    headers = {"content-type": "application/json", "accept": "application/vnd.amazon.eventstream"}
    expected, amz_date = _botocore_authorization(url, headers, body, creds)
    now = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    added = sign(
        method="POST",
        url=url,
        headers={**headers, "user-agent": "earshot/test"},
        body=body,
        credentials=creds,
        region="eu-west-3",
        service="bedrock",
        now=now,
    )
    assert added["authorization"] == expected
    assert added.get("x-amz-security-token") == session_token


def test_credentials_repr_hides_the_secret_and_token() -> None:
    text = repr(AwsCredentials("AKID", "very-secret", "session-token-value"))
    assert "very-secret" not in text
    assert "session-token-value" not in text
