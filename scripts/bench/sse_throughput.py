"""SSE decoder throughput on a realistic Anthropic-style stream.

Builds a ~20 MB stream (``message_start``, ``content_block_start``, many
``content_block_delta`` text deltas of varied length with some non-ASCII text, ``ping``
keep-alives, some events with CRLF line ends), cuts it into random 1-16 kB chunks (fixed seed),
decodes it ``--runs`` times and prints the median MB/s and events/s.

It also times a naive baseline in the same run (``bytes.split(b"\\n")`` over the same chunks,
plus a UTF-8 decode) and prints the decoder's speed relative to it, so numbers taken on
different or noisy machines stay comparable: compare the ratio, not the MB/s.

Usage (from the repository root):

    .venv/bin/python scripts/bench/sse_throughput.py [--mb 20] [--runs 7] [--seed 1]
    .venv/bin/python scripts/bench/sse_throughput.py --module /tmp/ssebuild/sse.cpython-311-*.so

``--module`` loads the decoder from a file instead of ``earshot.providers.sse`` (for example a
mypyc-compiled build of the same source), so both can be timed with one script.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, cast

_WORDS = (
    "the",
    "function",
    "returns",
    "a",
    "list",
    "of",
    "events",
    "def",
    "self",
    "buffer",
    "=",
    "()",
    "\n",
    "    ",
    "café",
    "naïve",
    "→",
    "日本語",
    "🙂",
    "`code`",
    '"quoted"',
    "\\path",
)


class _Event(Protocol):
    @property
    def data(self) -> str: ...


class _Decoder(Protocol):
    def feed(self, chunk: bytes) -> Sequence[_Event]: ...
    def close(self) -> Sequence[_Event]: ...


def _event(name: str, payload: object, crlf: bool) -> str:
    end = "\r\n" if crlf else "\n"
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}{end}data: {data}{end}{end}"


def build_stream(target_bytes: int, seed: int) -> tuple[bytes, int]:
    """Return the encoded stream and the number of events a decoder should dispatch."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    events = 0
    message = 0
    while size < target_bytes:
        crlf = rng.random() < 0.15
        block: list[str] = [
            _event(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": f"msg_{message:08d}",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-sonnet-4-5",
                        "content": [],
                        "usage": {"input_tokens": rng.randint(10, 9000), "output_tokens": 1},
                    },
                },
                crlf,
            ),
            _event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                crlf,
            ),
        ]
        for i in range(rng.randint(50, 400)):
            if i % 97 == 0:
                block.append(_event("ping", {"type": "ping"}, crlf))
            words = rng.choices(_WORDS, k=rng.choice((1, 1, 2, 3, 5, 8, 20, 60)))
            delta = {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": " ".join(words)},
            }
            block.append(_event("content_block_delta", delta, crlf or rng.random() < 0.05))
        block.append(_event("content_block_stop", {"type": "content_block_stop", "index": 0}, crlf))
        block.append(_event("message_stop", {"type": "message_stop"}, crlf))
        text = "".join(block)
        parts.append(text)
        size += len(text.encode())
        events += len(block)
        message += 1
    return "".join(parts).encode(), events


def cut(stream: bytes, seed: int, low: int = 1024, high: int = 16 * 1024) -> list[bytes]:
    rng = random.Random(seed)
    chunks: list[bytes] = []
    pos = 0
    while pos < len(stream):
        step = rng.randint(low, high)
        chunks.append(stream[pos : pos + step])
        pos += step
    return chunks


def _load_decoder(module: Path | None) -> tuple[Callable[[], _Decoder], str]:
    if module is None:
        from earshot.providers import sse

        return sse.SSEDecoder, str(sse.__file__)
    spec = importlib.util.spec_from_file_location("sse", module)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load a module from {module}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["sse"] = loaded
    spec.loader.exec_module(loaded)
    factory = cast("Callable[[], _Decoder]", loaded.SSEDecoder)
    return factory, str(loaded.__file__)


def decode_all(factory: Callable[[], _Decoder], chunks: list[bytes]) -> int:
    decoder = factory()
    count = 0
    for chunk in chunks:
        count += len(decoder.feed(chunk))
    count += len(decoder.close())
    return count


def naive_baseline(chunks: list[bytes]) -> int:
    """The least a line decoder must do: decode the bytes and split them into lines."""
    count = 0
    for chunk in chunks:
        count += len(chunk.decode("utf-8", "replace").split("\n"))
    return count


def _median_seconds(work: Callable[[], int], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mb", type=float, default=20.0, help="stream size in MB (default 20)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs (default 7)")
    parser.add_argument("--seed", type=int, default=1, help="seed for stream and chunking")
    parser.add_argument("--module", type=Path, default=None, help="decoder module file to load")
    args = parser.parse_args(argv)

    factory, origin = _load_decoder(args.module)
    stream, expected = build_stream(int(args.mb * 1_000_000), args.seed)
    chunks = cut(stream, args.seed)
    got = decode_all(factory, chunks)
    if got != expected:
        print(f"error: decoded {got} events, the stream holds {expected}", file=sys.stderr)
        return 1

    runs: int = args.runs
    mb = len(stream) / 1_000_000
    decoder_s = _median_seconds(lambda: decode_all(factory, chunks), runs)
    baseline_s = _median_seconds(lambda: naive_baseline(chunks), runs)

    print(f"decoder   {origin}")
    print(f"python    {sys.version.split()[0]}")
    print(f"stream    {mb:.1f} MB, {expected} events, {len(chunks)} chunks, {runs} runs")
    print(f"decoder   {mb / decoder_s:8.1f} MB/s  {expected / decoder_s:12,.0f} events/s")
    print(f"baseline  {mb / baseline_s:8.1f} MB/s  (decode + split on LF)")
    print(f"ratio     {baseline_s / decoder_s:8.3f} (decoder speed / baseline speed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
