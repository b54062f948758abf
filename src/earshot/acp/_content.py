"""ACP prompt content blocks as earshot's turn input (the same text and image parts every
front-end sends; the vision check happens later, in ``core.input.user_message``).

::

    text               TextPart
    image              ImagePart (base64 data; an https uri alone stays a reference)
    resource_link      TextPart naming the file or URI, for the model to read with its tools
    resource (text)    TextPart holding the content inside <context uri="..."> tags
    resource (blob)    ImagePart when it is an image, else a TextPart saying it was left out
    audio              PromptError: audio is not declared, so a client must not send it

Nothing here can change a permission: a resource is text for the model, never a rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

from earshot.providers.types import ImagePart, TextPart

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class PromptError(ValueError):
    """A prompt block earshot cannot take; the message says which and why."""


def file_path(uri: str) -> str | None:
    """The local path of a ``file:`` URI, else None."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    return unquote(parts.path)


def _link(block: ResourceContentBlock) -> TextPart:
    where = file_path(block.uri) or block.uri
    name = block.title or block.name
    extra = f" ({block.mime_type})" if block.mime_type else ""
    return TextPart(text=f"[The user attached {name}: {where}{extra}]")


def _embedded(block: EmbeddedResourceContentBlock) -> TextPart | ImagePart:
    resource = block.resource
    if isinstance(resource, BlobResourceContents):
        if resource.mime_type in IMAGE_TYPES:
            return ImagePart(media_type=resource.mime_type, data=resource.blob)
        kind = resource.mime_type or "binary data"
        return TextPart(
            text=f"[The user attached {resource.uri} ({kind}); its content cannot be shown]"
        )
    where = file_path(resource.uri) or resource.uri
    text = resource.text if resource.text.endswith("\n") else resource.text + "\n"
    return TextPart(text=f'<context uri="{where}">\n{text}</context>')


def _image(block: ImageContentBlock) -> ImagePart:
    if block.mime_type not in IMAGE_TYPES:
        raise PromptError(
            f"image of type {block.mime_type!r} is not supported; send PNG, JPEG, GIF or WebP"
        )
    if not block.data and block.uri and block.uri.startswith("https://"):
        return ImagePart(media_type=block.mime_type, url=block.uri)
    if not block.data:
        raise PromptError("an image block arrived without data")
    return ImagePart(media_type=block.mime_type, data=block.data)


def turn_parts(blocks: Sequence[PromptBlock]) -> list[TextPart | ImagePart]:
    """The parts of one user turn, in the order the client sent them."""
    parts: list[TextPart | ImagePart] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(TextPart(text=block.text))
        elif isinstance(block, ImageContentBlock):
            parts.append(_image(block))
        elif isinstance(block, ResourceContentBlock):
            parts.append(_link(block))
        elif isinstance(block, EmbeddedResourceContentBlock):
            parts.append(_embedded(block))
        else:
            raise PromptError(
                "audio prompts are not supported (earshot does not declare them); "
                "send text or images"
            )
    return parts


def prompt_text(parts: Sequence[TextPart | ImagePart]) -> str | None:
    """The text of a prompt made of one text part only (for slash commands), else None."""
    if len(parts) == 1 and isinstance(parts[0], TextPart):
        return parts[0].text
    return None


__all__ = ["IMAGE_TYPES", "PromptBlock", "PromptError", "file_path", "prompt_text", "turn_parts"]
