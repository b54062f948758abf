"""Check a request body against the vendor's official SDK request types.

The Anthropic and OpenAI SDKs describe request bodies as ``TypedDict``s, which nothing
validates at run time; ``typed_errors`` walks one strictly: every required key present, no
key the type does not declare, every value of a declared type (a union holds when one
branch does). Gemini's SDK describes the REST body's parts as pydantic models that forbid
unknown fields; ``gemini_errors`` validates each part with its model.

Each returns a list of problems (``"body.thinking.budget_tokens: expected int"``), empty
when the body conforms.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Literal, Union, get_args, get_origin

import typing_extensions
from typing_extensions import get_type_hints, is_typeddict

from earshot.providers.types import JSONObject


def typed_errors(value: object, annotation: object, path: str = "body") -> list[str]:
    """Problems of ``value`` against a type from an SDK's ``*_params`` modules."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (typing.Annotated, typing_extensions.Annotated):
        return typed_errors(value, args[0], path)
    if origin in (Union, types.UnionType):
        best: list[str] | None = None
        for branch in args:
            errors = typed_errors(value, branch, path)
            if not errors:
                return []
            if best is None or len(errors) < len(best):
                best = errors
        return best or [f"{path}: matches no type of {annotation}"]
    if origin in (Literal, typing_extensions.Literal):
        return [] if value in args else [f"{path}: {value!r} is not one of {list(args)}"]
    if is_typeddict(annotation):
        return _typed_dict_errors(value, annotation, path)
    if annotation is type(None) or annotation is None:
        return [] if value is None else [f"{path}: expected null"]
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence):
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        return [
            e for i, item in enumerate(value) for e in typed_errors(item, args[0], f"{path}[{i}]")
        ]
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        return [e for k, v in value.items() for e in typed_errors(v, args[1], f"{path}.{k}")]
    return _scalar_errors(value, annotation, path)


def _typed_dict_errors(value: object, annotation: object, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({getattr(annotation, '__name__', annotation)})"]
    hints = get_type_hints(annotation)
    required: frozenset[str] = getattr(annotation, "__required_keys__", frozenset())
    errors = [f"{path}.{key}: required" for key in sorted(required) if key not in value]
    for key, item in value.items():
        if key not in hints:
            name = getattr(annotation, "__name__", "the type")
            errors.append(f"{path}.{key}: not a field of {name}")
            continue
        errors += typed_errors(item, hints[key], f"{path}.{key}")
    return errors


def _scalar_errors(value: object, annotation: object, path: str) -> list[str]:
    if annotation in (object, typing.Any):
        return []
    if annotation is bool:
        return [] if isinstance(value, bool) else [f"{path}: expected a boolean"]
    if annotation is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected an integer"]
    if annotation is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected a number"]
    if annotation is str:
        return [] if isinstance(value, str) else [f"{path}: expected a string"]
    if annotation is dict:
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    if annotation is list:
        return [] if isinstance(value, list) else [f"{path}: expected a list"]
    return []  # file uploads and other SDK-side objects never appear in a JSON body


def gemini_errors(body: JSONObject) -> list[str]:
    """Problems of a ``generateContent`` REST body against the google-genai models."""
    import pydantic
    from google.genai import types as gt

    parts: dict[str, tuple[type[pydantic.BaseModel], bool]] = {
        "contents": (gt.Content, True),
        "systemInstruction": (gt.Content, False),
        "tools": (gt.Tool, True),
        "toolConfig": (gt.ToolConfig, False),
        "generationConfig": (gt.GenerationConfig, False),
    }
    errors = [f"body.{key}: not a field of the REST body" for key in body if key not in parts]
    for key, (model, many) in parts.items():
        if key not in body:
            continue
        value = body[key]
        items = value if many and isinstance(value, list) else [value]
        for index, item in enumerate(items):
            try:
                model.model_validate(item)
            except pydantic.ValidationError as exc:
                errors.append(f"body.{key}[{index}]: {exc}")
    return errors


def anthropic_errors(body: JSONObject) -> list[str]:
    from anthropic.types.message_create_params import MessageCreateParamsStreaming

    return typed_errors(body, MessageCreateParamsStreaming)


def responses_errors(body: JSONObject) -> list[str]:
    from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

    return typed_errors(body, ResponseCreateParamsStreaming)


def chat_errors(body: JSONObject, *, extensions: tuple[str, ...] = ()) -> list[str]:
    """Chat Completions problems; ``extensions`` are message fields a compatible server
    defines beyond OpenAI's (``reasoning_content``), not reported as unknown."""
    from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming

    errors = typed_errors(body, CompletionCreateParamsStreaming)
    allowed = tuple(f".{field}: not a field of" for field in extensions)
    return [e for e in errors if not any(mark in e for mark in allowed)]


__all__ = [
    "anthropic_errors",
    "chat_errors",
    "gemini_errors",
    "responses_errors",
    "typed_errors",
]
