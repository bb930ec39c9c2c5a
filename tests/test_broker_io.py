"""BrokerIO: blocking broker calls on threads that never keep the process from exiting."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import pytest

from judge_service._broker import BrokerIO

# A broker call that never returns (a reply that never comes), then the process ends.
_STUCK_CALL_THEN_EXIT = """
import asyncio, threading
from judge_service._broker import BrokerIO

async def main():
    io = BrokerIO(threads=2)
    try:
        await io.call(threading.Event().wait, timeout_s=0.2)
    except TimeoutError:
        print("timed out")
    io.close()

asyncio.run(main())
"""


def test_a_call_stuck_without_end_does_not_keep_the_process_from_exiting() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _STUCK_CALL_THEN_EXIT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "timed out"
    assert time.monotonic() - started < 30


def test_calls_return_values_and_raise_errors_on_at_most_the_threads_given() -> None:
    io = BrokerIO(threads=2)
    names: set[str] = set()
    gate = threading.Barrier(2, timeout=5)

    def meet(value: int) -> int:
        names.add(threading.current_thread().name)
        if value < 2:
            gate.wait()  # the first two run at once, so two threads exist
        return value * 10

    def fail() -> None:
        raise ValueError("no broker")

    async def main() -> list[int]:
        values = await asyncio.gather(*(io.call(meet, value) for value in range(6)))
        with pytest.raises(ValueError, match="no broker"):
            await io.call(fail)
        return list(values)

    try:
        assert asyncio.run(main()) == [0, 10, 20, 30, 40, 50]
    finally:
        io.close()
    assert names <= {"broker_0", "broker_1"} and len(names) == 2


def test_a_closed_broker_io_refuses_calls_and_cancels_those_not_started() -> None:
    io = BrokerIO(threads=1)
    release = threading.Event()

    async def main() -> None:
        running = asyncio.ensure_future(io.call(release.wait))
        queued = asyncio.ensure_future(io.call(lambda: "never"))
        await asyncio.sleep(0.1)
        io.close()
        with pytest.raises(asyncio.CancelledError):
            await queued
        release.set()
        assert await running is True
        with pytest.raises(RuntimeError, match="closed"):
            await io.call(lambda: None)

    asyncio.run(main())
