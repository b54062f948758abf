"""How tool processes behave as the tools see them: started by ``LocalProcessOps``, read,
waited for, killed and closed (real processes)."""

from __future__ import annotations

import signal
from pathlib import Path

import anyio
import pytest
from anyio.abc import ByteReceiveStream, Process

from earshot.core.tools.ops import LocalProcessOps

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def read_all(stream: ByteReceiveStream | None) -> bytes:
    assert stream is not None
    chunks = [chunk async for chunk in stream]
    return b"".join(chunks)


def code(process: Process) -> int | None:
    return process.returncode


async def start(tmp_path: Path, script: str) -> Process:
    return await LocalProcessOps().spawn(["bash", "-c", script], cwd=tmp_path)


async def test_output_of_both_streams_and_the_exit_code(tmp_path: Path) -> None:
    process = await start(tmp_path, "echo out; echo err >&2; pwd; exit 3")
    out, err = await read_all(process.stdout), await read_all(process.stderr)
    assert await process.wait() == 3
    assert process.returncode == 3
    assert out == f"out\n{tmp_path}\n".encode()
    assert err == b"err\n"
    await process.aclose()


async def test_a_process_is_running_until_it_is_reaped(tmp_path: Path) -> None:
    process = await start(tmp_path, "sleep 30")
    assert code(process) is None
    process.kill()
    assert await process.wait() == -signal.SIGKILL
    assert process.returncode == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):  # reaped: its number may be someone else's now
        process.kill()
    await process.aclose()


async def test_more_output_than_a_pipe_holds_is_all_read(tmp_path: Path) -> None:
    process = await start(tmp_path, "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2")
    async with anyio.create_task_group() as tg:
        sizes: list[int] = []

        async def measure(stream: ByteReceiveStream | None) -> None:
            sizes.append(len(await read_all(stream)))

        tg.start_soon(measure, process.stdout)
        tg.start_soon(measure, process.stderr)
    assert sorted(sizes) == [200_000, 300_000]
    assert await process.wait() == 0
    await process.aclose()


async def test_closing_wakes_a_reader_of_a_pipe_a_leftover_process_holds(tmp_path: Path) -> None:
    procs = LocalProcessOps()
    process = await procs.spawn(["bash", "-c", "sleep 30 & exit 0"], cwd=tmp_path)
    assert await process.wait() == 0
    stdout = process.stdout
    assert stdout is not None
    failure: list[BaseException] = []

    async def reader() -> None:
        try:
            await stdout.receive()
        except anyio.ClosedResourceError as exc:
            failure.append(exc)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            await anyio.sleep(0.05)  # the reader is waiting: sleep holds the pipe open
            await process.aclose()
    assert failure, "the reader was not told the pipe closed"
    procs.kill_tree(process)


async def test_a_cancelled_close_kills_the_process(tmp_path: Path) -> None:
    process = await start(tmp_path, "sleep 30")
    with anyio.move_on_after(0.2):
        await process.aclose()
    assert process.returncode == -signal.SIGKILL
