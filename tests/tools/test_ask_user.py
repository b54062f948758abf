"""The ask_user tool: asks through ctx.ask, headless and dismissed answers as error
results, choices enforced when free text is not allowed, read-only, abortable."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from earshot.core.tools.ask_user import TOOL
from earshot.core.tools.base import AskFn, Question, ToolContext, ToolError, ToolResult
from earshot.core.tools.display import Answered
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONObject, TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class User:
    """Answers each question with the next scripted reply and remembers what was asked."""

    def __init__(self, *replies: str | None) -> None:
        self.replies = list(replies)
        self.asked: list[Question] = []

    async def __call__(self, question: Question) -> str | None:
        self.asked.append(question)
        return self.replies.pop(0)


def make_ctx(cwd: Path, ask: AskFn | None) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState(), ask=ask)


async def ask(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


@pytest.mark.anyio
async def test_ask_user_passes_the_question_and_returns_the_answer(tmp_path: Path) -> None:
    user = User("Use PostgreSQL")
    result = await ask(make_ctx(tmp_path, user), {"question": "  Which database?  "})
    assert user.asked == [Question(text="Which database?", choices=())]
    assert text_of(result) == "The user answered: Use PostgreSQL"
    assert not result.is_error
    assert result.display == Answered(question="Which database?", answer="Use PostgreSQL")


@pytest.mark.anyio
async def test_ask_user_offers_the_choices(tmp_path: Path) -> None:
    user = User("sqlite")
    args: JSONObject = {"question": "Which database?", "choices": ["postgres", "sqlite"]}
    result = await ask(make_ctx(tmp_path, user), args)
    assert user.asked == [Question(text="Which database?", choices=("postgres", "sqlite"))]
    assert text_of(result) == "The user answered: sqlite"
    assert isinstance(result.display, Answered)
    assert result.display.choices == ["postgres", "sqlite"]


@pytest.mark.anyio
async def test_ask_user_accepts_free_text_beside_choices_by_default(tmp_path: Path) -> None:
    args: JSONObject = {"question": "Which database?", "choices": ["postgres", "sqlite"]}
    result = await ask(make_ctx(tmp_path, User("neither, use files")), args)
    assert text_of(result) == "The user answered: neither, use files"


@pytest.mark.anyio
async def test_ask_user_rejects_an_answer_outside_the_choices_without_free_text(
    tmp_path: Path,
) -> None:
    args: JSONObject = {
        "question": "Which database?",
        "choices": ["postgres", "sqlite"],
        "allow_free_text": False,
    }
    with pytest.raises(ToolError, match="'mongo', which is not one of the choices") as caught:
        await ask(make_ctx(tmp_path, User("mongo")), args)
    assert "'postgres', 'sqlite'" in caught.value.message
    assert caught.value.brief == "answer outside the choices"


@pytest.mark.anyio
async def test_ask_user_matches_a_choice_ignoring_case_and_spaces(tmp_path: Path) -> None:
    args: JSONObject = {
        "question": "Which database?",
        "choices": ["PostgreSQL", "SQLite"],
        "allow_free_text": False,
    }
    result = await ask(make_ctx(tmp_path, User("  sqlite ")), args)
    assert text_of(result) == "The user answered: SQLite"


@pytest.mark.anyio
async def test_ask_user_headless_tells_the_model_to_proceed_on_its_own_judgment(
    tmp_path: Path,
) -> None:
    with pytest.raises(ToolError, match="There is no one to ask") as caught:
        await ask(make_ctx(tmp_path, None), {"question": "Which database?"})
    assert "Proceed on your own best judgment" in caught.value.message
    assert "state the assumptions you made" in caught.value.message


@pytest.mark.anyio
async def test_ask_user_reports_that_the_user_declined_to_answer(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="The user declined to answer") as caught:
        await ask(make_ctx(tmp_path, User(None)), {"question": "Which database?"})
    assert caught.value.brief == "user declined to answer"


@pytest.mark.anyio
async def test_ask_user_reports_an_empty_reply(tmp_path: Path) -> None:
    result = await ask(make_ctx(tmp_path, User("")), {"question": "Anything else?"})
    assert text_of(result) == "The user answered with an empty reply."


@pytest.mark.anyio
async def test_ask_user_refuses_an_empty_question(tmp_path: Path) -> None:
    user = User("x")
    with pytest.raises(ToolError, match="the question is empty"):
        await ask(make_ctx(tmp_path, user), {"question": "  "})
    assert user.asked == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"question": "q", "choices": ["a", " "]}, "a choice is empty"),
        ({"question": "q", "choices": ["a", "A"]}, "choices repeat"),
        ({"question": "q", "allow_free_text": False}, "no choices were given"),
    ],
)
async def test_ask_user_refuses_choices_that_cannot_be_answered(
    tmp_path: Path, args: JSONObject, expected: str
) -> None:
    user = User("x")
    with pytest.raises(ToolError, match=expected):
        await ask(make_ctx(tmp_path, user), args)
    assert user.asked == []


@pytest.mark.anyio
async def test_ask_user_stops_waiting_when_aborted(tmp_path: Path) -> None:
    async def never_answers(question: Question) -> str | None:
        await anyio.sleep_forever()
        return None

    ctx = make_ctx(tmp_path, never_answers)

    async def abort_soon() -> None:
        await anyio.sleep(0.05)
        ctx.abort.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(abort_soon)
            with pytest.raises(ToolError, match="interrupted while waiting"):
                await ask(ctx, {"question": "Which database?"})


@pytest.mark.anyio
async def test_ask_user_lets_a_failing_front_end_error_through_unwrapped(
    tmp_path: Path,
) -> None:
    async def broken(question: Question) -> str | None:
        raise RuntimeError("terminal went away")

    with pytest.raises(RuntimeError, match="terminal went away"):
        await ask(make_ctx(tmp_path, broken), {"question": "Which database?"})


def test_ask_user_is_read_only() -> None:
    assert TOOL.read_only
    assert TOOL.permission is None


def test_ask_user_schema_defaults_allow_free_text_to_true() -> None:
    properties = TOOL.input_schema["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"question", "choices", "allow_free_text"}
    assert TOOL.input_schema["required"] == ["question"]
    free = properties["allow_free_text"]
    assert isinstance(free, dict)
    assert free["default"] is True
