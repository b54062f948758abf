"""The ``azure-openai`` wire: an Azure OpenAI deployment over chat completions or the v1
Responses API.

::

    chat       POST {endpoint}/openai/deployments/{deployment}/chat/completions
                    ?api-version={api_version}
    responses  POST {endpoint}/openai/v1/responses          (``model`` = the deployment)

Which API a deployment speaks is ``Target.cloud["api"]`` (``cloud/azure.py``: settings
``models.azure.<deployment>.wire``, else the Responses API for GPT-5 and o-series models).
Bodies, parsers and error mapping are the openai-chat and openai-responses wires', unchanged;
the credential (``api-key`` or an Entra ID bearer token) comes from
``providers.auth_headers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from earshot.providers.errors import ProviderError
from earshot.providers.target import Target, WireName
from earshot.providers.types import ModelRequest
from earshot.providers.wire import openai_chat, openai_responses
from earshot.providers.wire.base import Framing, HttpCall, StreamParser

if TYPE_CHECKING:
    from earshot.providers.wire.base import Wire


def _responses(target: Target) -> bool:
    return target.cloud.get("api") == "responses"


class AzureWire:
    framing: Framing = "sse"

    @property
    def name(self) -> WireName:
        return "azure-openai"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        endpoint = target.base_url.rstrip("/")
        deployment = request.model or target.model
        if _responses(target):
            inner = openai_responses.WIRE.build_call(request, target)
            return HttpCall(
                url=f"{endpoint}/openai/v1/responses", headers=inner.headers, body=inner.body
            )
        inner = openai_chat.WIRE.build_call(request, target)
        return HttpCall(
            url=f"{endpoint}/openai/deployments/{quote(deployment, safe='')}/chat/completions",
            headers=inner.headers,
            body=inner.body,
            params={"api-version": target.cloud.get("api_version", "")},
        )

    def parser(self, request: ModelRequest, target: Target) -> StreamParser:
        if _responses(target):
            return openai_responses.WIRE.parser(request, target)
        return openai_chat.WIRE.parser(request, target)

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        if _responses(target):
            return openai_responses.WIRE.error_from_response(status, headers, body, target)
        return openai_chat.WIRE.error_from_response(status, headers, body, target)


WIRE = AzureWire()

if TYPE_CHECKING:
    _wire: Wire = WIRE

__all__ = ["WIRE", "AzureWire"]
