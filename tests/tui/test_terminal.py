"""The interactive UI as a person uses it: a real ``earshot`` in a pseudo-terminal against
the fake provider, read from the screen and its scrollback."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from earshot.providers.types import JSONValue
from tests.fake_provider import FakeProvider, SSEReply, ToolCallSpec, anthropic, openai_responses
from tests.tui.terminal import ENTER, ESC, MODEL, Terminal, earshot_env


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "notes.txt").write_text("alpha\nbeta\n")
    return work


@pytest.fixture
def term(fake_provider: FakeProvider, repo: Path) -> Iterator[Terminal]:
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as t:
        t.wait_ready()
        yield t


def slow(reply: SSEReply, delay: float) -> SSEReply:
    reply.delay = delay
    return reply


def test_streamed_answer_lands_in_scrollback_exactly_once(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    answer = "The first answer is ZEBRA-4711, streamed in pieces."
    fake_provider.script(
        slow(anthropic.text_turn(answer, chunks=12), 0.02),
        anthropic.text_turn("Second answer OKAPI-9."),
    )
    term.type_line("what is it?")
    term.wait_for("ZEBRA-4711, streamed in pieces.")
    term.wait_for(term.idle, "the turn to end")
    term.type_line("and again?")
    term.wait_for("OKAPI-9")
    term.wait_for(term.idle, "the turn to end")
    text = term.text()
    assert text.count("ZEBRA-4711") == 1
    assert text.count("what is it?") == 1
    assert text.count("OKAPI-9") == 1
    assert text.index("what is it?") < text.index("ZEBRA") < text.index("and again?")
    assert term.exit() == 0
    fake_provider.assert_protocol_invariants()


def test_esc_interrupts_a_streaming_answer(fake_provider: FakeProvider, term: Terminal) -> None:
    words = " ".join(f"word{i}" for i in range(40)) + " FINALWORD"
    fake_provider.script(slow(anthropic.text_turn(words, chunks=40), 0.15))
    term.type_line("talk slowly")
    term.wait_for("word1", "the first words")
    term.send(ESC)
    term.wait_for("interrupted")
    term.wait_for(term.idle, "the turn to end")
    assert "FINALWORD" not in term.text()
    assert term.exit() == 0


def test_esc_interrupts_a_running_bash_sleep(fake_provider: FakeProvider, repo: Path) -> None:
    call = ToolCallSpec("t1", "bash", {"command": "sleep 30"})
    fake_provider.script(anthropic.tool_calls_turn([call]))
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "--permission-mode", "yolo"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("wait a while")
        term.wait_for("running bash: sleep 30")
        term.send(ESC)
        term.wait_for("interrupted")
        term.wait_for(term.idle, "the turn to end")
        assert "bash: sleep 30" in term.text()
        assert term.exit() == 0
    assert len(fake_provider.requests) == 1


def test_message_typed_while_working_is_queued_and_sent_after_the_current_call(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    fake_provider.script(
        slow(anthropic.text_turn("one two three four five six seven", chunks=14), 0.1),
        anthropic.text_turn("Got the follow-up QUOKKA."),
    )
    term.type_line("start")
    term.wait_for("one", "the stream to start")
    term.type_line("also check the tests")
    term.wait_for("queued: also check the tests")
    term.wait_for("QUOKKA")
    term.wait_for(term.idle, "the turn to end")
    assert "sent while working" in term.text()
    assert len(fake_provider.requests) == 2
    second = str(fake_provider.requests[1].json()["messages"])
    assert "also check the tests" in second
    assert "also check the tests" not in str(fake_provider.requests[0].json()["messages"])
    assert term.exit() == 0
    fake_provider.assert_protocol_invariants()


def test_permission_prompt_denied_with_a_reason_then_allowed(
    fake_provider: FakeProvider, term: Terminal, repo: Path
) -> None:
    call = ToolCallSpec("t1", "bash", {"command": "touch made.txt"})
    again = ToolCallSpec("t2", "bash", {"command": "touch made.txt"})
    fake_provider.script(
        anthropic.tool_calls_turn([call]),
        anthropic.text_turn("Understood, not now."),
        anthropic.tool_calls_turn([again]),
        anthropic.text_turn("Made it."),
    )
    term.type_line("make a file")
    term.wait_for("allow bash?")
    term.wait_for("touch made.txt")
    term.wait_for(lambda: "[y]" in term.display(), "the prompt to take answers")
    term.send("n")
    term.wait_for("reason ›")
    term.type_line("not before lunch")
    term.wait_for("Understood, not now.")
    term.wait_for(term.idle, "the turn to end")
    assert not (repo / "made.txt").exists()
    assert "not before lunch" in str(fake_provider.requests[1].json()["messages"])
    term.type_line("now make it")
    term.wait_for(lambda: term.text().count("allow bash?") >= 1 and "[y]" in term.display())
    term.send("y")
    term.wait_for("Made it.")
    assert (repo / "made.txt").exists()
    assert term.exit() == 0
    fake_provider.assert_protocol_invariants()


def test_enter_alone_denies_a_permission_prompt(
    fake_provider: FakeProvider, term: Terminal, repo: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("t1", "bash", {"command": "touch x.txt"})]),
        anthropic.text_turn("Fine."),
    )
    term.type_line("make x")
    term.wait_for("[y]", "the permission prompt")
    term.send(ENTER)
    term.wait_for("Fine.")
    assert not (repo / "x.txt").exists()
    assert "denied" in term.text()
    assert term.exit() == 0


def test_typing_while_a_prompt_appears_never_answers_it_and_the_draft_is_kept(
    fake_provider: FakeProvider, term: Terminal, repo: Path
) -> None:
    fake_provider.script(
        slow(anthropic.tool_calls_turn([ToolCallSpec("t1", "bash", {"command": "touch x"})]), 0.4),
        anthropic.text_turn("Left it."),
    )
    term.type_line("tidy up")
    typed = ""
    words = "add tests and also say yes "
    while "allow bash?" not in term.display():  # typing as the prompt comes up...
        term.send(words[len(typed) % len(words)])
        typed += words[len(typed) % len(words)]
        time.sleep(0.03)
    for _ in range(len(words)):  # ...and on after it is on screen
        term.send(words[len(typed) % len(words)])
        typed += words[len(typed) % len(words)]
        time.sleep(0.03)
    term.wait_for(lambda: "[y]" in term.display(), "the prompt to take answers")
    assert not (repo / "x").exists()
    assert "allowed by the user" not in term.text()
    assert typed.strip().split()[-1] in term.input_line()  # the draft kept every key
    term.send("n")
    term.wait_for("reason ›")
    term.send(ENTER)
    term.wait_for("Left it.")
    term.wait_for(term.idle, "the turn to end")
    assert not (repo / "x").exists()
    assert "tidy up" in str(fake_provider.requests[0].json()["messages"])
    assert typed.strip().split()[-1] in term.input_line()
    term.send(ESC)  # clear the draft, so Ctrl-D exits
    term.wait_for(lambda: term.input_line().strip() == "›", "the box to clear")
    assert term.exit() == 0


def test_model_command_switches_provider_and_wire_mid_session(
    fake_provider: FakeProvider, repo: Path
) -> None:
    with FakeProvider() as other:
        other.script(openai_responses.text_turn("Answer from the other wire: LLAMA."))
        fake_provider.script(anthropic.text_turn("Answer from anthropic: EMU."))
        env = earshot_env(
            fake_provider.base_url, OPENAI_API_KEY="sk-test-openai", OPENAI_BASE_URL=other.base_url
        )
        with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
            term.wait_ready()
            term.type_line("first")
            term.wait_for("EMU.")
            term.wait_for(term.idle, "the turn to end")
            term.type_line("/model openai/gpt-5.4")
            term.wait_for("model: openai/gpt-5.4")
            term.type_line("second")
            term.wait_for("LLAMA.")
            assert term.exit() == 0
        assert fake_provider.requests[0].path.endswith("/messages")
        assert other.requests[0].path.endswith("/responses")
        assert "first" in str(other.requests[0].json()["input"])


def test_undo_command_restores_a_file(fake_provider: FakeProvider, repo: Path) -> None:
    write = ToolCallSpec("t1", "write", {"path": "made.txt", "content": "new file\n"})
    fake_provider.script(anthropic.tool_calls_turn([write]), anthropic.text_turn("Rewrote it."))
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "--permission-mode", "yolo"], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("rewrite notes")
        term.wait_for("Rewrote it.")
        term.wait_for(term.idle, "the turn to end")
        assert (repo / "made.txt").read_text() == "new file\n"
        term.type_line("/undo")
        term.wait_for(lambda: not (repo / "made.txt").exists(), "the undo")
        term.wait_for("removed made.txt")
        assert term.exit() == 0


def test_resize_mid_stream_keeps_the_answer_whole(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    answer = " ".join(f"w{i}" for i in range(30)) + " END-OF-ANSWER"
    fake_provider.script(slow(anthropic.text_turn(answer, chunks=30), 0.05))
    term.type_line("go")
    term.wait_for("w3 ", "the stream to start")
    term.resize(24, 80)
    term.wait_for("END-OF-ANSWER")
    term.wait_for(term.idle, "the turn to end")
    assert term.text().count("END-OF-ANSWER") == 1
    assert MODEL in term.display()
    assert term.exit() == 0


def test_no_terminal_queries_are_ever_sent(fake_provider: FakeProvider, term: Terminal) -> None:
    fake_provider.script(anthropic.text_turn("Short answer."))
    term.type_line("hello")
    term.wait_for("Short answer.")
    term.wait_for(term.idle, "the turn to end")
    assert term.exit() == 0
    raw = bytes(term.raw)
    for query in (b"\x1b[c", b"\x1b[0c", b"\x1b[>c", b"\x1bP", b"\x1b[6n"):
        assert query not in raw, query


def test_no_color_turns_colours_off(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(anthropic.text_turn("Some **bold** and `code`."))
    env = earshot_env(fake_provider.base_url, NO_COLOR="1")
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("hi")
        term.wait_for("Some bold and code.")
        term.wait_for(term.idle, "the turn to end")
        assert term.exit() == 0
        raw = bytes(term.raw)
    for colour in (b"\x1b[31m", b"\x1b[32m", b"\x1b[33m", b"\x1b[36m", b"38;5;", b"48;5;"):
        assert colour not in raw, colour


def test_ctrl_c_twice_exits(term: Terminal) -> None:
    term.send("\x03")
    term.wait_for("press Ctrl-C again to exit")
    term.send("\x03")
    assert term.proc.wait(15) == 0


def test_first_prompt_on_the_command_line_is_sent_at_once(
    fake_provider: FakeProvider, repo: Path
) -> None:
    fake_provider.script(anthropic.text_turn("Answer to the opening question."))
    env = earshot_env(fake_provider.base_url)
    with Terminal(["--model", MODEL, "what is up"], cwd=repo, env=env) as term:
        term.wait_for("Answer to the opening question.")
        assert "› what is up" in term.text()
        assert term.exit() == 0


def test_ask_user_shows_the_question_and_sends_the_chosen_answer(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    question: dict[str, JSONValue] = {
        "question": "Which database?",
        "choices": ["postgres", "sqlite"],
    }
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("q1", "ask_user", question)]),
        anthropic.text_turn("Going with it."),
    )
    term.type_line("set up storage")
    term.wait_for("Which database?")
    term.wait_for("2. sqlite")
    term.type_line("2")
    term.wait_for("Going with it.")
    assert "sqlite" in str(fake_provider.requests[1].json()["messages"])
    assert term.exit() == 0
    fake_provider.assert_protocol_invariants()


def test_edit_permission_prompt_shows_the_diff(
    fake_provider: FakeProvider, term: Terminal, repo: Path
) -> None:
    read = ToolCallSpec("r1", "read", {"path": "notes.txt"})
    edit = ToolCallSpec(
        "e1", "edit", {"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}
    )
    fake_provider.script(
        anthropic.tool_calls_turn([read]),
        anthropic.tool_calls_turn([edit]),
        anthropic.text_turn("Edited."),
    )
    term.type_line("change beta")
    term.wait_for("allow edit?")
    term.wait_for("+gamma")
    assert "-beta" in term.display()
    term.wait_for(lambda: "[y]" in term.display(), "the prompt to take answers")
    term.send("y")
    term.wait_for("Edited.")
    assert (repo / "notes.txt").read_text() == "alpha\ngamma\n"
    assert term.exit() == 0


def test_a_large_paste_is_collapsed_in_the_box_and_sent_whole(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    fake_provider.script(anthropic.text_turn("Read your log."))
    pasted = "\n".join(f"log line {i}" for i in range(40))
    term.send("\x1b[200~" + pasted + "\x1b[201~")
    term.wait_for(lambda: "[Pasted text #1 +40 lines]" in term.input_line(), "the placeholder")
    term.send(" explain")
    term.send(ENTER)
    term.wait_for("Read your log.")
    sent = str(fake_provider.requests[0].json()["messages"])
    assert "log line 0" in sent and "log line 39" in sent
    assert "log line 39" not in term.text()
    assert term.exit() == 0


def test_at_path_completion_inserts_a_file_reference(
    fake_provider: FakeProvider, term: Terminal
) -> None:
    term.send("look at @no")
    term.wait_for(lambda: "@notes.txt" in term.display(), "the completion menu")
    term.send("\t")
    term.wait_for(lambda: term.input_line() == "› look at @notes.txt", "the completed path")
    term.send("\x15")
    assert term.exit() == 0


def test_image_flag_attaches_the_image_to_the_first_prompt(
    fake_provider: FakeProvider, repo: Path
) -> None:
    (repo / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    fake_provider.script(anthropic.text_turn("A tiny picture."))
    env = earshot_env(fake_provider.base_url)
    args = ["--model", MODEL, "--image", "shot.png", "what is this"]
    with Terminal(args, cwd=repo, env=env) as term:
        term.wait_for("A tiny picture.")
        assert "› what is this [Image #1]" in term.text()
        assert term.exit() == 0
    content = str(fake_provider.requests[0].json()["messages"])
    assert "'type': 'image'" in content


def test_plain_earshot_in_a_terminal_opens_the_ui(fake_provider: FakeProvider, repo: Path) -> None:
    fake_provider.script(anthropic.text_turn("Hello from the UI."))
    env = earshot_env(fake_provider.base_url, EARSHOT_MODEL=MODEL)
    with Terminal([], cwd=repo, env=env) as term:
        term.wait_ready()
        term.type_line("hi")
        term.wait_for("Hello from the UI.")
        assert "Usage: earshot" not in term.text()
        assert term.exit() == 0
