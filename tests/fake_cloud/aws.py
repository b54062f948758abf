"""A fake of the AWS endpoints Bedrock users meet: instance metadata (IMDSv2), the container
credentials endpoint, the SSO portal's role credentials, SSO OIDC's ``CreateToken`` (the
refresh-token grant: unsigned JSON ``POST /token``), and Bedrock Runtime's ConverseStream.

Bedrock requests are authenticated as the service does: a bearer token must be the Bedrock
API key, or the SigV4 signature is recomputed (with botocore's signer, an implementation
independent of earshot's) from the received method, path, query, signed headers and body,
under the secret of the access key the request names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from earshot.providers.eventstream import encode_message
from tests.fake_cloud._http import Answer, RoutedServer
from tests.fake_provider._request import RecordedRequest

BEARER = "bedrock-api-key-fake"
IMDS_TOKEN = "imds-session-token"
SSO_ACCESS_TOKEN = "sso-access-token"
SSO_CLIENT = ("fake-sso-client-id", "fake-sso-client-secret")
SSO_REFRESH_TOKEN = "sso-refresh-token-1"
ROLE = "fake-role"
ROLE_ARN = "arn:aws:iam::111122223333:role/earshot-test"
WEB_IDENTITY_TOKEN = "eyJ.fake.web-identity"
_AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
    r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$"
)


@dataclass
class IssuedKeys:
    access_key_id: str
    secret_access_key: str
    session_token: str | None = None


def expiry(minutes: int = 60) -> str:
    return (datetime.now(UTC) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def event(kind: str, payload: object) -> bytes:
    return encode_message(
        {":event-type": kind, ":content-type": "application/json", ":message-type": "event"},
        json.dumps(payload).encode(),
    )


def exception(kind: str, message: str) -> bytes:
    return encode_message(
        {
            ":exception-type": kind,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"message": message}).encode(),
    )


def text_reply(text: str, *, stop: str = "end_turn") -> list[bytes]:
    """The frames of a plain text answer, split in two deltas, with usage."""
    half = len(text) // 2
    return [
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text[:half]}}),
        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text[half:]}}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("messageStop", {"stopReason": stop}),
        event(
            "metadata",
            {
                "usage": {"inputTokens": 11, "outputTokens": 7, "totalTokens": 18},
                "metrics": {"latencyMs": 5},
            },
        ),
    ]


@dataclass
class FakeAws:
    """One server for every endpoint. ``issued`` are the keys its credential endpoints hand
    out (and the only ones Bedrock accepts besides ``extra_keys``); ``streams`` are the
    ConverseStream answers, taken in order (each a list of frames, or an ``Answer``)."""

    issued: IssuedKeys = field(
        default_factory=lambda: IssuedKeys("ASIAFAKEISSUED", "issued/secret+key", "issued-token")
    )
    extra_keys: dict[str, str] = field(default_factory=dict)
    streams: list[list[bytes] | Answer] = field(default_factory=list)
    container_token: str | None = None
    seen_regions: list[str] = field(default_factory=list)
    assumed: list[dict[str, str]] = field(default_factory=list)
    sso_tokens: list[str] = field(default_factory=lambda: [SSO_ACCESS_TOKEN])
    """The SSO access tokens the portal accepts (``CreateToken`` adds the ones it issues)."""
    sso_refresh_token: str = SSO_REFRESH_TOKEN
    sso_refreshes: list[dict[str, object]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.server = RoutedServer(self.handle)
        self.base_url = self.server.base_url

    def close(self) -> None:
        self.server.close()

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.server.requests

    def _upper_keys(self) -> dict[str, object]:
        return {
            "Code": "Success",
            "Type": "AWS-HMAC",
            "AccessKeyId": self.issued.access_key_id,
            "SecretAccessKey": self.issued.secret_access_key,
            "Token": self.issued.session_token,
            "Expiration": expiry(),
        }

    def handle(self, request: RecordedRequest) -> Answer:
        path = request.path
        if path == "/latest/api/token" and request.method == "PUT":
            assert request.headers.get("x-aws-ec2-metadata-token-ttl-seconds")
            return Answer.text(200, IMDS_TOKEN)
        if path.startswith("/latest/meta-data/iam/security-credentials/"):
            if request.headers.get("x-aws-ec2-metadata-token") != IMDS_TOKEN:
                return Answer.text(401, "")
            role = path.rsplit("/", 1)[1]
            return Answer.text(200, ROLE) if not role else Answer.json(200, self._upper_keys())
        if path == "/container-credentials":
            if (
                self.container_token
                and request.headers.get("authorization") != self.container_token
            ):
                return Answer.json(403, {"message": "bad container token"})
            return Answer.json(200, self._upper_keys())
        if path == "/token" and request.method == "POST":
            return self._create_token(request)
        if path == "/federation/credentials":
            if request.headers.get("x-amz-sso_bearer_token") not in self.sso_tokens:
                return Answer.json(401, {"message": "Session token not found or invalid"})
            expires_ms = int((datetime.now(UTC) + timedelta(hours=1)).timestamp() * 1000)
            return Answer.json(
                200,
                {
                    "roleCredentials": {
                        "accessKeyId": self.issued.access_key_id,
                        "secretAccessKey": self.issued.secret_access_key,
                        "sessionToken": self.issued.session_token,
                        "expiration": expires_ms,
                    }
                },
            )
        if path == "/" and request.method == "POST":
            return self._sts(request)
        if path.startswith("/model/") and path.endswith("/converse-stream"):
            refused = self.check_auth(request)
            if refused is not None:
                return refused
            if not self.streams:
                return Answer.json(500, {"message": "fake aws: no scripted stream"})
            scripted = self.streams.pop(0)
            if isinstance(scripted, Answer):
                return scripted
            return Answer(
                200, headers={"content-type": "application/vnd.amazon.eventstream"}, chunks=scripted
            )
        return Answer.json(404, {"message": f"fake aws: no route {request.method} {path}"})

    def _sts(self, request: RecordedRequest) -> Answer:
        form = dict(parse_qsl(request.body.decode()))
        action = form.get("Action")
        if action == "AssumeRole":
            refused = self.check_auth(request, service="sts")
            if refused is not None:
                return refused
            if form.get("RoleArn") != ROLE_ARN:
                return _sts_error(403, "AccessDenied", "not authorized to perform sts:AssumeRole")
            self.assumed.append(form)
        elif action == "AssumeRoleWithWebIdentity":
            if form.get("WebIdentityToken") != WEB_IDENTITY_TOKEN:
                return _sts_error(400, "InvalidIdentityToken", "Token is not valid")
            self.assumed.append(form)
        else:
            return _sts_error(400, "InvalidAction", f"unknown action {action}")
        keys = self.issued
        xml = (
            f'<{action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
            f"<{action}Result><Credentials>"
            f"<AccessKeyId>{keys.access_key_id}</AccessKeyId>"
            f"<SecretAccessKey>{keys.secret_access_key}</SecretAccessKey>"
            f"<SessionToken>{keys.session_token}</SessionToken>"
            f"<Expiration>{expiry()}</Expiration>"
            f"</Credentials></{action}Result></{action}Response>"
        )
        return Answer(200, xml.encode(), {"content-type": "text/xml"})

    def _create_token(self, request: RecordedRequest) -> Answer:
        """SSO OIDC ``CreateToken``: the refresh-token grant of a registered client rotates
        the refresh token; errors are OAuth-shaped (``error``, ``error_description``)."""
        try:
            body = json.loads(request.body)
        except ValueError:
            return Answer.json(400, {"error": "invalid_request"})
        self.sso_refreshes.append(body)
        if (body.get("clientId"), body.get("clientSecret")) != SSO_CLIENT:
            return Answer.json(401, {"error": "invalid_client"})
        if body.get("grantType") != "refresh_token":
            return Answer.json(400, {"error": "unsupported_grant_type"})
        if body.get("refreshToken") != self.sso_refresh_token:
            return Answer.json(
                400, {"error": "invalid_grant", "error_description": "Invalid refresh token"}
            )
        n = len(self.sso_tokens) + 1
        self.sso_tokens.append(f"sso-access-token-{n}")
        self.sso_refresh_token = f"sso-refresh-token-{n}"
        answer = {
            "accessToken": self.sso_tokens[-1],
            "tokenType": "Bearer",
            "expiresIn": 28800,
            "refreshToken": self.sso_refresh_token,
        }
        return Answer.json(200, answer)

    def check_auth(self, request: RecordedRequest, service: str = "bedrock") -> Answer | None:
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            if auth[7:] == BEARER:
                return None
            return _error(
                403,
                "UnrecognizedClientException",
                "The security token included in the request is invalid.",
            )
        found = _AUTH.match(auth)
        if found is None:
            return _error(
                403, "MissingAuthenticationTokenException", "Missing Authentication Token"
            )
        access, day, region, scope_service, signed_names, signature = found.groups()
        self.seen_regions.append(region)
        keys = {self.issued.access_key_id: self.issued.secret_access_key, **self.extra_keys}
        secret = keys.get(access)
        if secret is None or scope_service != service:
            return _error(
                403,
                "UnrecognizedClientException",
                "The security token included in the request is invalid.",
            )
        if (
            access == self.issued.access_key_id
            and request.headers.get("x-amz-security-token") != self.issued.session_token
        ):
            return _error(
                403,
                "UnrecognizedClientException",
                "The security token included in the request is invalid.",
            )
        amz_date = request.headers.get("x-amz-date", "")
        if amz_date[:8] != day:
            return _error(
                403, "InvalidSignatureException", "Date in Credential scope does not match"
            )
        query = "&".join(f"{k}={v}" for k, v in request.query.items())
        url = f"http://{request.headers['host']}{request.path}" + (f"?{query}" if query else "")
        headers = {name: request.headers.get(name, "") for name in signed_names.split(";")}
        aws_request = AWSRequest(method=request.method, url=url, data=request.body, headers=headers)
        aws_request.context["timestamp"] = amz_date
        signer = SigV4Auth(
            Credentials(access, secret, request.headers.get("x-amz-security-token")),
            service,
            region,
        )
        canonical = signer.canonical_request(aws_request)
        expected = signer.signature(signer.string_to_sign(aws_request, canonical), aws_request)
        if expected != signature:
            return _error(
                403,
                "InvalidSignatureException",
                "The request signature we calculated does not match the signature you provided.",
            )
        return None


def _sts_error(status: int, code: str, message: str) -> Answer:
    xml = (
        '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error>'
        f"<Type>Sender</Type><Code>{code}</Code><Message>{message}</Message>"
        "</Error></ErrorResponse>"
    )
    return Answer(status, xml.encode(), {"content-type": "text/xml"})


def _error(status: int, kind: str, message: str) -> Answer:
    return Answer.json(
        status,
        {"message": message},
        **{
            "x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.coral.service/"
        },
    )
