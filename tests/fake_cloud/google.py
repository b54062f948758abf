"""A fake of Google Cloud for Vertex AI: the OAuth token endpoint, the metadata server, and
Vertex's ``streamGenerateContent`` (Gemini) and ``streamRawPredict`` (Claude).

Tokens are checked as Google does: a service account's JWT assertion is verified with
google-auth's verifier against the account's public key (audience = this token endpoint,
scope cloud-platform, unexpired); a refresh-token grant must carry the file's client id,
secret and refresh token. Vertex calls must carry a bearer token this fake issued.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth import jwt

from tests.fake_cloud._http import Answer, RoutedServer
from tests.fake_cloud._replies import serve
from tests.fake_provider._replies import RawReply, SSEReply
from tests.fake_provider._request import RecordedRequest

SA_EMAIL = "earshot-test@fake-project.iam.gserviceaccount.com"
KEY_ID = "fake-key-1"
STANDARD_AUDIENCE = "https://oauth2.googleapis.com/token"
USER_CLIENT = {
    "client_id": "fake-client.apps",
    "client_secret": "fake-client-secret",
    "refresh_token": "fake-refresh",
}
_VERTEX = re.compile(
    r"^/v1(?:beta1)?/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/publishers/"
    r"(?P<publisher>google|anthropic)/models/(?P<model>[^/:]+):(?P<method>\w+)$"
)
_KEY: rsa.RSAPrivateKey | None = None


def _private_key() -> rsa.RSAPrivateKey:
    global _KEY
    if _KEY is None:
        _KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return _KEY


@dataclass
class VertexCall:
    project: str
    location: str
    publisher: str
    model: str
    method: str
    request: RecordedRequest


@dataclass
class FakeGoogle:
    replies: list[SSEReply | RawReply] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)
    calls: list[VertexCall] = field(default_factory=list)
    token_requests: int = 0
    project_requests: int = 0
    lifetime: int = 3599
    project_on_metadata: str = "meta-project"

    def __post_init__(self) -> None:
        self.server = RoutedServer(self.handle)
        self.base_url = self.server.base_url
        self.token_uri = self.base_url + "/token"

    def close(self) -> None:
        self.server.close()

    # --- credential files this fake accepts ------------------------------------------------
    def service_account_file(self, path: Path, *, project: str = "sa-project") -> Path:
        pem = _private_key().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        path.write_text(
            json.dumps(
                {
                    "type": "service_account",
                    "project_id": project,
                    "private_key_id": KEY_ID,
                    "private_key": pem.decode(),
                    "client_email": SA_EMAIL,
                    "client_id": "1234567890",
                    "token_uri": self.token_uri,
                }
            )
        )
        return path

    def user_file(self, path: Path, *, quota_project: str = "user-project") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(
                {
                    "type": "authorized_user",
                    "quota_project_id": quota_project,
                    **USER_CLIENT,
                    "token_uri": self.token_uri,
                }
            )
        )
        return path

    # --- serving ---------------------------------------------------------------------------
    def _issue(self) -> Answer:
        token = f"ya29.fake-{len(self.issued) + 1}"
        self.issued.append(token)
        return Answer.json(
            200, {"access_token": token, "expires_in": self.lifetime, "token_type": "Bearer"}
        )

    def handle(self, request: RecordedRequest) -> Answer:
        path = request.path
        if path == "/token" and request.method == "POST":
            self.token_requests += 1
            return self._token(dict(parse_qsl(request.body.decode())))
        if path.startswith("/computeMetadata/"):
            if request.headers.get("metadata-flavor") != "Google":
                return Answer.text(403, "Missing Metadata-Flavor:Google header.")
            return self._metadata(path, request.query)
        if path == "/":
            return Answer(200, b"", {"metadata-flavor": "Google"})
        found = _VERTEX.match(path)
        if found is None:
            return Answer.json(
                404, {"error": {"code": 404, "message": f"no route {path}", "status": "NOT_FOUND"}}
            )
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.issued:
            return Answer.json(
                401,
                {
                    "error": {
                        "code": 401,
                        "message": "Request had invalid authentication credentials.",
                        "status": "UNAUTHENTICATED",
                    }
                },
            )
        call = VertexCall(request=request, **found.groupdict())
        self.calls.append(call)
        if call.publisher == "anthropic":
            body = request.json()
            # Vertex's documented value, or a dated API version (what newer SDKs send).
            version = str(body.get("anthropic_version"))
            assert re.fullmatch(r"(vertex-)?\d{4}-\d{2}-\d{2}", version), version
            assert "model" not in body, "Vertex takes the model from the URL"
        return serve(self.replies.pop(0) if self.replies else None, "google")

    def _token(self, form: dict[str, str]) -> Answer:
        grant = form.get("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            public = (
                _private_key()
                .public_key()
                .public_bytes(
                    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
                )
            )
            try:
                claims = jwt.decode(
                    form.get("assertion", ""),
                    certs={KEY_ID: public.decode()},
                    audience=STANDARD_AUDIENCE,
                )
            except ValueError as exc:
                return Answer.json(
                    400, {"error": "invalid_grant", "error_description": f"Invalid JWT: {exc}"}
                )
            if claims.get("iss") != SA_EMAIL or "cloud-platform" not in str(claims.get("scope")):
                return Answer.json(
                    400, {"error": "invalid_scope", "error_description": "bad iss or scope"}
                )
            return self._issue()
        if grant == "refresh_token":
            if any(form.get(k) != v for k, v in USER_CLIENT.items()):
                return Answer.json(
                    400, {"error": "invalid_grant", "error_description": "Bad Request"}
                )
            return self._issue()
        return Answer.json(400, {"error": "unsupported_grant_type"})

    def _metadata(self, path: str, query: dict[str, str]) -> Answer:
        headers = {"metadata-flavor": "Google"}
        if path.endswith("/service-accounts/default/token"):
            answer = self._issue()
            answer.headers.update(headers)
            return answer
        if path.endswith("/service-accounts/default/") or path.endswith(
            "/service-accounts/default"
        ):
            info = {
                "email": SA_EMAIL,
                "scopes": ["https://www.googleapis.com/auth/cloud-platform"],
                "aliases": ["default"],
            }
            return Answer(
                200, json.dumps(info).encode(), {"content-type": "application/json", **headers}
            )
        if path.endswith("/project/project-id"):
            self.project_requests += 1
            return Answer(
                200, self.project_on_metadata.encode(), {"content-type": "text/plain", **headers}
            )
        return Answer(404, b"", headers)
