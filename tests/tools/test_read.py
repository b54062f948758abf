"""The read tool: numbered lines, paging, caps, binary refusal, images, and read tracking;
and the shared output capping helper it and the other tools use."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from earshot.core.tools import read as read_module
from earshot.core.tools._output import cap_text
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.read import TOOL
from earshot.core.tools.state import ToolState
from earshot.providers.types import ImagePart, JSONObject, TextPart

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def make_ctx(cwd: Path, *, vision: bool = False) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState(), vision=vision)


async def read(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


async def read_error(ctx: ToolContext, args: JSONObject) -> str:
    with pytest.raises(ToolError) as info:
        await read(ctx, args)
    return info.value.message


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


@pytest.mark.anyio
async def test_read_numbers_lines_like_cat_n(work: Path) -> None:
    (work / "a.py").write_text("import os\n\nprint(os.sep)\n")
    result = await read(make_ctx(work), {"path": "a.py"})
    assert text_of(result) == "     1\timport os\n     2\t\n     3\tprint(os.sep)"
    assert not result.is_error
    assert "a.py" in result.brief


@pytest.mark.anyio
async def test_read_accepts_absolute_paths(work: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.txt"
    other.write_text("x\n")
    result = await read(make_ctx(work), {"path": str(other)})
    assert text_of(result) == "     1\tx"


@pytest.mark.anyio
async def test_read_shows_crlf_lines_without_carriage_returns(work: Path) -> None:
    (work / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert text_of(await read(make_ctx(work), {"path": "w.txt"})) == "     1\tone\n     2\ttwo"


@pytest.mark.anyio
async def test_read_pages_with_offset_and_limit_and_says_where_to_continue(work: Path) -> None:
    (work / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    text = text_of(await read(make_ctx(work), {"path": "n.txt", "offset": 10, "limit": 5}))
    lines = text.splitlines()
    assert lines[:5] == [f"{n:>6}\tline {n}" for n in range(10, 15)]
    assert "86 lines" in lines[5]
    assert "offset=15" in lines[5]
    assert "100 lines" in lines[5]


@pytest.mark.anyio
async def test_read_defaults_to_2000_lines(work: Path) -> None:
    (work / "big.txt").write_text("x\n" * 2500)
    text = text_of(await read(make_ctx(work), {"path": "big.txt"}))
    assert text.splitlines()[1999] == "  2000\tx"
    assert "500 lines" in text.splitlines()[2000]
    assert "offset=2001" in text


@pytest.mark.anyio
async def test_read_refuses_offset_past_the_end(work: Path) -> None:
    (work / "s.txt").write_text("a\nb\n")
    message = await read_error(make_ctx(work), {"path": "s.txt", "offset": 9})
    assert "offset 9" in message
    assert "2 lines" in message


def test_read_rejects_offset_below_one() -> None:
    with pytest.raises(ToolError, match="offset"):
        TOOL.parse({"path": "a", "offset": 0})


@pytest.mark.anyio
async def test_read_cuts_long_lines_with_a_marker(work: Path) -> None:
    (work / "long.txt").write_text("a" * 2500 + "\nshort\n")
    lines = text_of(await read(make_ctx(work), {"path": "long.txt"})).splitlines()
    assert lines[0].startswith("     1\t" + "a" * 2000 + " [... line cut: 500 more chars")
    assert lines[1] == "     2\tshort"


@pytest.mark.anyio
async def test_read_caps_output_size_and_says_how_to_page(work: Path) -> None:
    (work / "wide.txt").write_text(("b" * 1000 + "\n") * 1000)
    text = text_of(await read(make_ctx(work), {"path": "wide.txt"}))
    assert len(text) <= read_module.MAX_OUTPUT_CHARS + 200
    last_shown = int(text.splitlines()[-2].split("\t")[0])
    marker = text.splitlines()[-1]
    assert "256 KiB" in marker
    assert f"offset={last_shown + 1}" in marker
    assert f"{1000 - last_shown} lines" in marker


@pytest.mark.anyio
async def test_read_refuses_a_file_too_large_to_open(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_module, "MAX_FILE_BYTES", 100)
    (work / "huge.log").write_text("z" * 500)
    message = await read_error(make_ctx(work), {"path": "huge.log"})
    assert "500 bytes" in message
    assert "grep" in message


@pytest.mark.anyio
async def test_read_says_an_empty_file_is_empty(work: Path) -> None:
    (work / "empty.txt").write_bytes(b"")
    result = await read(make_ctx(work), {"path": "empty.txt"})
    assert "is empty" in text_of(result)
    assert not result.is_error


@pytest.mark.anyio
async def test_read_refuses_binary_naming_what_it_is_and_its_size(work: Path) -> None:
    (work / "blob.bin").write_bytes(b"\x01\x02\x00\x03" * 300)
    message = await read_error(make_ctx(work), {"path": "blob.bin"})
    assert "binary file" in message
    assert "1,200 bytes" in message


@pytest.mark.anyio
async def test_read_names_known_binary_formats(work: Path) -> None:
    (work / "doc.pdf").write_bytes(b"%PDF-1.7\n\x00\x01binary")
    (work / "prog").write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 40)
    assert "PDF document" in await read_error(make_ctx(work), {"path": "doc.pdf"})
    assert "ELF executable" in await read_error(make_ctx(work), {"path": "prog"})


@pytest.mark.anyio
async def test_read_refuses_undecodable_bytes_without_nul_as_binary(work: Path) -> None:
    (work / "noise").write_bytes(bytes(range(1, 32)) * 20 + b"\xff\xfe\x81")
    assert "binary" in await read_error(make_ctx(work), {"path": "noise"})


@pytest.mark.anyio
async def test_read_shows_legacy_encoded_text_and_names_the_encoding(work: Path) -> None:
    (work / "old.txt").write_bytes("café \u201cquoted\u201d\n".encode("cp1252"))
    text = text_of(await read(make_ctx(work), {"path": "old.txt"}))
    assert text == "[cp1252 text]\n     1\tcafé \u201cquoted\u201d"


@pytest.mark.anyio
async def test_read_decodes_utf16_with_a_bom(work: Path) -> None:
    (work / "u16.txt").write_bytes(b"\xff\xfe" + "hi\nthere\n".encode("utf-16-le"))
    text = text_of(await read(make_ctx(work), {"path": "u16.txt"}))
    assert text == "[utf-16-le text with BOM]\n     1\thi\n     2\tthere"


@pytest.mark.anyio
async def test_read_returns_an_image_part_to_a_vision_model(work: Path) -> None:
    (work / "pic.png").write_bytes(PNG)
    result = await read(make_ctx(work, vision=True), {"path": "pic.png"})
    image = result.content[1]
    assert isinstance(image, ImagePart)
    assert image.media_type == "image/png"
    assert image.data is not None
    assert base64.b64decode(image.data) == PNG
    assert "PNG image" in text_of(result)


@pytest.mark.anyio
async def test_read_tells_a_model_without_vision_it_cannot_see_images(work: Path) -> None:
    (work / "pic.png").write_bytes(PNG)
    message = await read_error(make_ctx(work, vision=False), {"path": "pic.png"})
    assert "PNG image" in message
    assert "cannot see images" in message


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00\x00\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 \x00", "image/webp"),
    ],
)
async def test_read_recognises_images_by_magic_bytes(
    work: Path, data: bytes, media_type: str
) -> None:
    (work / "img.dat").write_bytes(data)
    result = await read(make_ctx(work, vision=True), {"path": "img.dat"})
    image = result.content[1]
    assert isinstance(image, ImagePart)
    assert image.media_type == media_type


@pytest.mark.anyio
async def test_read_refuses_an_image_too_large_for_the_model(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_module, "MAX_IMAGE_BYTES", 10)
    (work / "pic.png").write_bytes(PNG)
    assert "smaller copy" in await read_error(make_ctx(work, vision=True), {"path": "pic.png"})


@pytest.mark.anyio
async def test_read_of_a_directory_suggests_ls(work: Path) -> None:
    (work / "pkg").mkdir()
    message = await read_error(make_ctx(work), {"path": "pkg"})
    assert "directory" in message
    assert "ls" in message


@pytest.mark.anyio
async def test_read_of_a_missing_file_suggests_near_names(work: Path) -> None:
    (work / "config.toml").write_text("x = 1\n")
    message = await read_error(make_ctx(work), {"path": "confg.toml"})
    assert "no such file" in message
    assert "config.toml" in message


@pytest.mark.anyio
async def test_read_records_the_read_in_the_session_state(work: Path) -> None:
    (work / "a.txt").write_text("hello\n")
    ctx = make_ctx(work)
    path = (work / "a.txt").resolve()
    assert ctx.state.stale_reason(path, ctx.files) is not None
    await read(ctx, {"path": "a.txt"})
    assert ctx.state.stale_reason(path, ctx.files) is None


def test_read_is_read_only_and_tells_the_model_how_to_page() -> None:
    assert TOOL.read_only
    properties = TOOL.input_schema["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"path", "offset", "limit"}
    assert "`offset`" in TOOL.description and "(1-based)" in TOOL.description
    assert "`limit`" in TOOL.description
    limit = properties["limit"]
    assert isinstance(limit, dict)
    assert limit["default"] == read_module.DEFAULT_LIMIT
    assert TOOL.input_schema["required"] == ["path"]


# --- the shared capping helper ---------------------------------------------------------


def test_cap_text_leaves_text_within_budget_alone() -> None:
    assert cap_text("a\nb\n", max_chars=100, max_lines=10, hint="h") == "a\nb\n"


def test_cap_text_keeps_head_and_tail_and_names_what_was_cut() -> None:
    text = "".join(f"line {i}\n" for i in range(1, 101))
    capped = cap_text(text, max_chars=10_000, max_lines=6, hint="use offset/limit")
    assert capped.splitlines() == [
        "line 1",
        "line 2",
        "line 3",
        "[... 94 lines (746 chars) cut; use offset/limit ...]",
        "line 98",
        "line 99",
        "line 100",
    ]


def test_cap_text_can_keep_only_the_head_or_the_tail() -> None:
    text = "".join(f"{i}\n" for i in range(1, 1001))
    head = cap_text(text, max_chars=10_000, max_lines=2, hint="more", keep="head")
    tail = cap_text(text, max_chars=10_000, max_lines=2, hint="more", keep="tail")
    assert head.splitlines() == ["1", "2", "[... 998 lines (3,889 chars) cut; more ...]"]
    assert tail.splitlines() == ["[... 998 lines (3,884 chars) cut; more ...]", "999", "1000"]


def test_cap_text_cuts_inside_a_single_long_line_by_characters() -> None:
    capped = cap_text("x" * 1000, max_chars=100, max_lines=10, hint="h")
    assert capped == "x" * 50 + "\n[... 900 chars cut; h ...]\n" + "x" * 50
