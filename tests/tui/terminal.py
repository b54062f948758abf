"""A real ``earshot`` in a pseudo-terminal, read through a pyte screen with scrollback.

``Terminal`` starts the process on the slave side of a pty (stdin and stdout are a
terminal, so ``earshot`` opens the interactive UI), reads everything it writes on a
thread, keeps the raw bytes (``raw``) and feeds them to a ``pyte.HistoryScreen``: ``text()``
is the scrollback plus the screen, as a person would read it after scrolling up.

Waits are bounded hang guards (they fail with the screen in the message), never timing
assertions.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import pyte

from tests.fake_provider import FakeProvider, anthropic

MODEL = "anthropic/claude-sonnet-4-6"
KEY = "sk-ant-test-key-0123456789"
WAIT = 30.0

ESC = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"
ENTER = "\r"
SHIFT_TAB = "\x1b[Z"
HIDE_CURSOR = b"\x1b[?25l"


def _winsize(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Terminal:
    rows: int
    cols: int
    screen: pyte.HistoryScreen
    stream: pyte.ByteStream
    raw: bytearray
    proc: subprocess.Popen[bytes]
    _lock: threading.Lock
    _master: int
    _stderr: BinaryIO
    _reader: threading.Thread
    reader_error: str = ""

    def __init__(
        self,
        args: list[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        rows: int = 24,
        cols: int = 100,
    ) -> None:
        self.rows, self.cols = rows, cols
        self.screen = pyte.HistoryScreen(cols, rows, history=100_000)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self._lock = threading.Lock()
        master, slave = os.openpty()
        _winsize(slave, rows, cols)
        self._master = master
        self._stderr = open(cwd.parent / f"earshot-stderr-{os.getpid()}.txt", "w+b")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "earshot", *args],
            stdin=slave,
            stdout=slave,
            stderr=self._stderr,
            cwd=cwd,
            env={**env, "TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self._master], [], [], 0.05)
                if not ready:
                    if self.proc.poll() is not None:
                        return
                    continue
                data = os.read(self._master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.raw += data
                try:
                    self.stream.feed(data)
                except Exception:  # the screen model failed: say so instead of going quiet
                    self.reader_error = traceback.format_exc()
                    return

    # --- input ---------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        os.write(self._master, text.encode())

    def type_line(self, text: str) -> None:
        """Type ``text`` and press Enter (as two writes, as a person would)."""
        self.send(text)
        time.sleep(0.05)
        self.send(ENTER)

    def resize(self, rows: int, cols: int) -> None:
        with self._lock:
            self.rows, self.cols = rows, cols
            self.screen.resize(rows, cols)
        _winsize(self._master, rows, cols)
        self.proc.send_signal(signal.SIGWINCH)

    # --- output --------------------------------------------------------------------------------

    def _row(self, line: Mapping[int, pyte.screens.Char]) -> str:
        return "".join(line[x].data for x in range(self.cols)).rstrip()

    def text(self) -> str:
        """Scrollback then the visible screen, trailing spaces cut."""
        with self._lock:
            rows = [self._row(line) for line in self.screen.history.top]
            rows += [line.rstrip() for line in self.screen.display]
        return "\n".join(rows)

    def display(self) -> str:
        with self._lock:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_ready(self) -> None:
        """Until the session is open: the banner is printed and the status line is full."""
        self.wait_for(
            lambda: "/help for commands" in self.text() and "$" in self.display(), "the session"
        )

    def input_line(self) -> str:
        """The line above the status line: the input box's first line."""
        rows = [row for row in self.display().splitlines() if row.strip()]
        return rows[-2] if len(rows) >= 2 else ""

    def box(self) -> str:
        """The input box's first line (the last row starting with the prompt), wherever the
        completion menu below it leaves it."""
        rows = [row for row in self.display().splitlines() if row.startswith("›")]
        return rows[-1] if rows else ""

    def byte_count(self) -> int:
        with self._lock:
            return len(self.raw)

    def wait_for(
        self, check: Callable[[], bool] | str, what: str = "", timeout: float = WAIT
    ) -> None:
        def test() -> bool:
            return check in self.text() if isinstance(check, str) else check()

        deadline = time.monotonic() + timeout
        while not test():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"gave up waiting for {what or check!r}\n--- screen ---\n{self.text()}"
                    f"\n--- stderr ---\n{self.stderr()}{self.reader_error}"
                )
            time.sleep(0.02)

    def wait_quiet(self, quiet: float = 0.3, timeout: float = WAIT) -> None:
        """Until nothing has been written for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        last, since = self.byte_count(), time.monotonic()
        while time.monotonic() - since < quiet:
            if time.monotonic() > deadline:
                raise AssertionError("the terminal never went quiet")
            time.sleep(0.02)
            now = self.byte_count()
            if now != last:
                last, since = now, time.monotonic()

    def idle(self) -> bool:
        """No turn running: the spinner line is gone."""
        return "esc to interrupt" not in self.display()

    def stderr(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    # --- lifetime ------------------------------------------------------------------------------

    def exit(self, timeout: float = 15.0) -> int:
        if self.proc.poll() is None:
            self.send(CTRL_D)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"earshot did not exit\n{self.text()}") from None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)
        os.close(self._master)
        self._stderr.close()

    def __enter__(self) -> Terminal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True)
class TurnCost:
    """What one turn cost the terminal: bytes written, frames drawn (each frame hides the
    cursor once), and the text deltas streamed."""

    bytes: int
    frames: int
    tokens: int

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens

    @property
    def frames_per_token(self) -> float:
        return self.frames / self.tokens


def answer_words(index: int, tokens: int) -> tuple[str, str]:
    """``(text, marker)``: an answer of ``tokens`` words ending in a unique marker."""
    marker = f"MARK{index:04d}"
    words = [f"word{i % 10}" for i in range(tokens - 1)]
    return " ".join([*words, marker]), marker


def scripted_turn(
    term: Terminal,
    fake: FakeProvider,
    index: int,
    *,
    tokens: int = 3,
    delay: float = 0.0,
    quiet: float = 0.0,
) -> TurnCost:
    """Ask question ``index``, stream an answer of ``tokens`` deltas, wait for the turn to
    end (and for ``quiet`` seconds of silence), and return what it cost."""
    text, marker = answer_words(index, tokens)
    reply = anthropic.text_turn(text, chunks=tokens)
    reply.delay = delay
    fake.script(reply)
    start = term.byte_count()
    term.type_line(f"question {index}")
    term.wait_for(lambda: marker in term.display() and term.idle(), f"answer {index}")
    if quiet:
        term.wait_quiet(quiet)
    with term._lock:
        written = bytes(term.raw[start:])
    return TurnCost(bytes=len(written), frames=written.count(HIDE_CURSOR), tokens=tokens)


def earshot_env(base_url: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": base_url,
        **extra,
    }


__all__ = [
    "CTRL_C",
    "CTRL_D",
    "ENTER",
    "ESC",
    "HIDE_CURSOR",
    "MODEL",
    "SHIFT_TAB",
    "Terminal",
    "TurnCost",
    "answer_words",
    "earshot_env",
    "scripted_turn",
]
