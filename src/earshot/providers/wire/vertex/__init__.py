"""The ``google-vertex`` wire: Gemini and Claude models on Vertex AI.

::

    Gemini   POST {base}/v1/projects/{project}/locations/{location}/publishers/google/
                  models/{model}:streamGenerateContent?alt=sse
             the google-gemini wire's body, parser and errors, unchanged
    Claude   POST {base}/v1/projects/{project}/locations/{location}/publishers/anthropic/
                  models/{model}:streamRawPredict
             the anthropic-messages wire's body without ``model`` (the URL names it) and
             with ``anthropic_version: vertex-2023-10-16``; its parser; errors in either
             Google's or Anthropic's shape

A model id starting ``claude-`` is Claude; a catalog id's ``@default`` suffix (the newest
version) is dropped from the URL. ``project`` and ``location`` come from ``Target.cloud``
(``cloud/google.py``); the bearer token from ``providers.auth_headers`` (application default
credentials). Reasoning metadata is kept under the provider id, so a session moved
between Vertex and Anthropic's or Google's own API does not replay the other's signatures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from earshot.providers.errors import ProviderError
from earshot.providers.target import Target, WireName
from earshot.providers.types import ModelRequest
from earshot.providers.wire import anthropic, gemini
from earshot.providers.wire.base import Framing, HttpCall, StreamParser, encode_json

VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16"

if TYPE_CHECKING:
    from earshot.providers.wire.base import Wire


def is_claude(model: str) -> bool:
    return model.startswith("claude-")


def model_url(target: Target, model: str, method: str) -> str:
    project = target.cloud.get("project", "")
    location = target.cloud.get("location", "global")
    publisher = "anthropic" if is_claude(model) else "google"
    name = model.removesuffix("@default")
    return (
        f"{target.base_url.rstrip('/')}/v1/projects/{quote(project, safe='')}/locations/"
        f"{quote(location, safe='')}/publishers/{publisher}/models/"
        f"{quote(name, safe='@.-_')}:{method}"
    )


class VertexWire:
    framing: Framing = "sse"

    @property
    def name(self) -> WireName:
        return "google-vertex"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        model = request.model or target.model
        if is_claude(model):
            inner = anthropic.WIRE.build_call(request, target)
            body = inner.json()
            body.pop("model", None)
            body = {"anthropic_version": VERTEX_ANTHROPIC_VERSION, **body}
            # The version goes in the body on Vertex; beta headers pass as they are.
            headers = {k: v for k, v in inner.headers.items() if k.lower() != "anthropic-version"}
            return HttpCall(
                url=model_url(target, model, "streamRawPredict"),
                headers=headers,
                body=encode_json(body),
            )
        inner = gemini.WIRE.build_call(request, target)
        return HttpCall(
            url=model_url(target, model, "streamGenerateContent"),
            headers=dict(inner.headers),
            body=inner.body,
            params=dict(inner.params),
        )

    def parser(self, request: ModelRequest, target: Target) -> StreamParser:
        if is_claude(request.model or target.model):
            return anthropic.WIRE.parser(request, target)
        return gemini.WIRE.parser(request, target)

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        if is_claude(target.model) and b'"type"' in body and b'"error"' in body:
            return anthropic.WIRE.error_from_response(status, headers, body, target)
        return gemini.WIRE.error_from_response(status, headers, body, target)


WIRE = VertexWire()

if TYPE_CHECKING:
    _wire: Wire = WIRE

__all__ = ["VERTEX_ANTHROPIC_VERSION", "WIRE", "VertexWire", "is_claude", "model_url"]
