"""Turn input: text, or a sequence of text and images, into one user ``Message``.

A local image path becomes base64 data; an https URL stays a reference. Everything is
checked before anything is appended or sent: a missing file, an unknown image type, or
images for a model without vision are an ``InputError`` naming the image and the fix.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path

from earshot._base.errors import UserError
from earshot.providers.models import ModelInfo
from earshot.providers.types import ImagePart, Message, TextPart

MAX_IMAGE_BYTES = 20 * 1024 * 1024

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


class InputError(UserError, ValueError):
    """Turn input earshot cannot send; the message names the input and the fix."""


def image_media_type(data: bytes) -> str | None:
    for magic, media in _MAGIC:
        if data.startswith(magic):
            return media
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_part(source: str, cwd: Path) -> ImagePart:
    """An image from a local path (read now, as base64) or an https URL (kept as a ref)."""
    if source.startswith("https://"):
        media = _BY_SUFFIX.get(Path(source.split("?", 1)[0]).suffix.lower(), "image/png")
        return ImagePart(media_type=media, url=source)
    if source.startswith("http://"):
        raise InputError(f"image {source}: only https URLs can be sent as references")
    path = Path(source).expanduser()
    path = path if path.is_absolute() else cwd / path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"image {source}: no such file") from None
    except OSError as exc:
        raise InputError(f"image {source}: cannot read ({exc.strerror or exc})") from exc
    if len(data) > MAX_IMAGE_BYTES:
        raise InputError(f"image {source}: {len(data):,} bytes is over the 20 MB limit")
    detected = image_media_type(data)
    if detected is None:
        raise InputError(f"image {source}: not a PNG, JPEG, GIF or WebP image")
    return ImagePart(media_type=detected, data=base64.b64encode(data).decode("ascii"))


TurnInput = str | Sequence[TextPart | ImagePart]


def user_message(turn_input: TurnInput, info: ModelInfo | None) -> Message:
    """The user message for a turn, after the vision check."""
    if isinstance(turn_input, str):
        parts: list[TextPart | ImagePart] = [TextPart(text=turn_input)]
    else:
        parts = list(turn_input)
    if not parts or all(isinstance(p, TextPart) and not p.text.strip() for p in parts):
        raise InputError("the prompt is empty")
    images = [p for p in parts if isinstance(p, ImagePart)]
    if images and info is not None and not info.vision:
        raise InputError(
            f"{info.ref} does not accept images; choose a model with vision "
            "(`earshot models` shows which) or send text only"
        )
    return Message(role="user", parts=list(parts))


def with_notes(turn_input: TurnInput, notes: Sequence[str]) -> TurnInput:
    """``turn_input`` with earshot's notes for the model after it (the person's words come
    first and stay as typed)."""
    if not notes:
        return turn_input
    added = "\n\n".join(f"<earshot-note>\n{note}\n</earshot-note>" for note in notes)
    if isinstance(turn_input, str):
        return f"{turn_input}\n\n{added}"
    return [*turn_input, TextPart(text=added)]


__all__ = [
    "InputError",
    "TurnInput",
    "image_media_type",
    "image_part",
    "user_message",
    "with_notes",
]
