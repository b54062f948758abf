"""Turn input: text and images become one user message, checked before anything is sent."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from earshot.core.loop.input import InputError, image_part, user_message
from earshot.providers.models import ModelInfo
from earshot.providers.types import ImagePart, TextPart
from tests.wire.cases import PNG_1PX


def test_a_local_image_becomes_base64_with_its_detected_type(tmp_path: Path) -> None:
    path = tmp_path / "shot.bin"
    path.write_bytes(base64.b64decode(PNG_1PX))
    part = image_part("shot.bin", tmp_path)
    assert part == ImagePart(media_type="image/png", data=PNG_1PX)


def test_an_https_url_stays_a_reference() -> None:
    part = image_part("https://example.com/cat.jpg?size=2", Path("."))
    assert part == ImagePart(media_type="image/jpeg", url="https://example.com/cat.jpg?size=2")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("missing.png", "no such file"),
        ("http://example.com/a.png", "only https"),
        ("notes.txt", "not a PNG, JPEG, GIF or WebP"),
    ],
)
def test_bad_images_name_the_image_and_the_problem(
    tmp_path: Path, source: str, message: str
) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(InputError, match=message):
        image_part(source, tmp_path)


def test_vision_is_checked_before_the_message_exists() -> None:
    blind = ModelInfo(id="m", provider="p", vision=False)
    image = ImagePart(media_type="image/png", data=PNG_1PX)
    with pytest.raises(InputError, match="p/m does not accept images"):
        user_message([TextPart(text="look"), image], blind)
    seeing = ModelInfo(id="m", provider="p", vision=True)
    assert user_message([TextPart(text="look"), image], seeing).parts[1] == image


def test_an_empty_prompt_is_refused() -> None:
    with pytest.raises(InputError, match="empty"):
        user_message("   ", None)
