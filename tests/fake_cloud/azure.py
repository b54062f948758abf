"""A fake Azure OpenAI resource: deployments over chat completions (``api-version``
required) and the v1 Responses API, authenticated as Azure does (an ``api-key`` header, or
an Entra ID bearer token; the v1 API also takes the key as a bearer token)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.fake_cloud._http import Answer, RoutedServer
from tests.fake_cloud._replies import serve
from tests.fake_provider._replies import RawReply, SSEReply
from tests.fake_provider._request import RecordedRequest

API_KEY = "azure-key-0123456789abcdef"
ENTRA_TOKEN = "entra-token-fake"
_CHAT = re.compile(r"^/openai/deployments/(?P<deployment>[^/]+)/chat/completions$")


def _error(status: int, code: str, message: str) -> Answer:
    return Answer.json(status, {"error": {"code": code, "message": message}})


@dataclass
class FakeAzure:
    replies: list[SSEReply | RawReply] = field(default_factory=list)
    deployments: set[str] = field(default_factory=lambda: {"my-gpt", "my-4o"})

    def __post_init__(self) -> None:
        self.server = RoutedServer(self.handle)
        self.base_url = self.server.base_url

    def close(self) -> None:
        self.server.close()

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.server.requests

    def _authorized(self, request: RecordedRequest, *, v1: bool) -> bool:
        if request.headers.get("api-key") == API_KEY:
            return True
        bearer = request.headers.get("authorization", "")
        accepted = {f"Bearer {ENTRA_TOKEN}"} | ({f"Bearer {API_KEY}"} if v1 else set())
        return bearer in accepted

    def handle(self, request: RecordedRequest) -> Answer:
        chat = _CHAT.match(request.path)
        v1 = request.path == "/openai/v1/responses"
        if chat is None and not v1:
            return _error(404, "404", "Resource not found")
        if not self._authorized(request, v1=v1):
            return _error(
                401,
                "401",
                "Access denied due to invalid subscription key or wrong API endpoint.",
            )
        if chat is not None:
            if not request.query.get("api-version"):
                return _error(404, "404", "Resource not found")
            deployment = chat.group("deployment")
        else:
            model = request.json().get("model")
            deployment = model if isinstance(model, str) else ""
        if deployment not in self.deployments:
            return _error(
                404,
                "DeploymentNotFound",
                "The API deployment for this resource does not exist.",
            )
        return serve(self.replies.pop(0) if self.replies else None, "azure")
