"""What the input box holds besides typed text: collapsed pastes, images, ``@path``
references, and the completer for ``/commands`` and ``@paths``.

A paste longer than ``PASTE_CHARS`` characters or ``PASTE_LINES`` lines shows as
``[Pasted text #N +L lines]`` and is expanded when the message is sent. A pasted path to
an image file shows as ``[Image #N]`` and is sent as an image part; so is an ``@path`` that
names an image. Any other ``@path`` naming a text file attaches it: its text is sent
after the message (up to ``ATTACH_BYTES``; a larger or binary file stays a reference the
model can ``read``), and the scrollback shows the message as typed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

if TYPE_CHECKING:
    from earshot.core.loop.input import TurnInput
    from earshot.tui._pickers import Choice

ATTACH_BYTES = 256 * 1024
PASTE_CHARS = 800
PASTE_LINES = 12
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_AT_PATH = re.compile(r"(?:^|\s)@(\S+)")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache"}


def _image_path(text: str, cwd: Path) -> Path | None:
    candidate = text.strip().strip("'\"")
    if "\n" in candidate or not candidate.lower().endswith(IMAGE_SUFFIXES):
        return None
    path = Path(candidate).expanduser()
    path = path if path.is_absolute() else cwd / path
    return path if path.is_file() else None


@dataclass
class Attachments:
    """Pasted text collapsed to a placeholder, and images, until the message is sent."""

    pastes: dict[str, str] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)

    def clear(self) -> None:
        self.pastes.clear()
        self.images.clear()


def placeholder_for(data: str, attachments: Attachments, cwd: Path) -> str:
    """What a paste inserts into the box: the text itself, or a placeholder."""
    data = data.replace("\r\n", "\n").replace("\r", "\n")
    image = _image_path(data, cwd)
    if image is not None:
        key = f"[Image #{len(attachments.images) + 1}]"
        attachments.images[key] = str(image)
        return key
    lines = data.rstrip("\n").count("\n") + 1  # a trailing newline ends a line, adds none
    if len(data) > PASTE_CHARS or lines > PASTE_LINES:
        key = f"[Pasted text #{len(attachments.pastes) + 1} +{lines} lines]"
        attachments.pastes[key] = data
        return key
    return data


def build_input(raw: str, attachments: Attachments, cwd: Path) -> tuple[str, TurnInput]:
    """``(shown, input)``: the text as the scrollback shows it (placeholders kept) and the
    turn input (pastes expanded, images as parts). Raises ``InputError`` for a bad image."""
    from earshot.core.loop.input import image_part
    from earshot.providers import types as pt

    text = raw
    for key, pasted in attachments.pastes.items():
        text = text.replace(key, pasted)
    images: list[pt.ImagePart] = []
    for key, path in attachments.images.items():
        if key in raw:
            images.append(image_part(path, cwd))
    files: list[str] = []
    for match in _AT_PATH.finditer(raw):
        ref = match.group(1)
        if ref.lower().endswith(IMAGE_SUFFIXES) and (cwd / ref).is_file():
            images.append(image_part(ref, cwd))
            continue
        attached = _file_text(cwd, ref)
        if attached is not None and ref not in files:
            files.append(ref)
            text += f"\n\nContents of {ref}:\n```\n{attached}\n```"
    if not images:
        return raw, text
    return raw, [pt.TextPart(text=text), *images]


def _file_text(cwd: Path, ref: str) -> str | None:
    """The text of the file ``@ref`` names, or None (no such file, too large, binary)."""
    path = Path(ref).expanduser()
    path = path if path.is_absolute() else cwd / path
    try:
        if not path.is_file() or path.stat().st_size > ATTACH_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace").rstrip("\n")


def _files_under(cwd: Path, prefix: str, limit: int = 50) -> list[str]:
    """Relative paths under ``cwd`` starting with ``prefix`` (directories end with /)."""
    folder, _, stem = prefix.rpartition("/")
    base = cwd / folder if folder else cwd
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    found: list[str] = []
    for name in names:
        if name in _SKIP_DIRS or not name.startswith(stem):
            continue
        if name.startswith(".") and not stem.startswith("."):
            continue
        rel = f"{folder}/{name}" if folder else name
        found.append(rel + "/" if (base / name).is_dir() else rel)
        if len(found) >= limit:
            break
    return found


class InputCompleter(Completer):
    """``/command`` at the start of the box, then its argument (``_pickers``); ``@path``
    anywhere."""

    def __init__(
        self,
        cwd: Path,
        commands: Callable[[], dict[str, str]],
        arguments: Callable[[str], list[Choice]] | None = None,
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before and "\n" not in before:
            for name, about in self.commands().items():
                if name.startswith(before[1:]):
                    yield Completion(f"/{name}", start_position=-len(before), display_meta=about)
            return
        if before.startswith("/") and "\n" not in before and self.arguments is not None:
            name, _, typed = before[1:].partition(" ")
            choices = self.arguments(name)
            if choices:
                from earshot.tui._pickers import matches

                for choice in matches(choices, typed):
                    yield Completion(
                        choice.value, start_position=-len(typed), display_meta=choice.meta
                    )
                return
        word = before.split()[-1] if before.split() and not before[-1].isspace() else ""
        if word.startswith("@"):
            for rel in _files_under(self.cwd, word[1:]):
                yield Completion(f"@{rel}", start_position=-len(word))


__all__ = ["InputCompleter", "build_input", "placeholder_for"]
