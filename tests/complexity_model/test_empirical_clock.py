"""The driver reads a candidate's CPU clock only once the candidate is off a CPU.

A process clock read from another CPU can miss the running thread's latest slice, and a
candidate's reply wakes the driver a few microseconds before the candidate blocks: one timed
call of 2.7 ms once read as 0.00 us, and the honest solution was ``unknown`` ("keeps state").
These children reply and then work on before they block, which widens that window to
milliseconds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from complexity_model.empirical._isolation import settled_cpu_s

_BEFORE_S = 0.003
_AFTER_S = 0.004


def _spin(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


@contextmanager
def _replies_then_works(after_s: float) -> Iterator[tuple[int, int, int]]:
    """A child that, per byte it reads, works ``_BEFORE_S``, replies, and works ``after_s``
    more before it reads again: (pid, the descriptor to wake it, the one it replies on)."""
    wake_read, wake_write = os.pipe()
    reply_read, reply_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            while os.read(wake_read, 1) == b"g":
                _spin(_BEFORE_S)
                os.write(reply_write, b"r")
                _spin(after_s)
        finally:
            os._exit(0)
    os.close(wake_read)
    os.close(reply_write)
    try:
        yield pid, wake_write, reply_read
    finally:
        os.write(wake_write, b"e")
        os.waitpid(pid, 0)
        os.close(wake_write)
        os.close(reply_read)


def _step(pid: int, wake: int, reply: int, read: Callable[[int], float | None]) -> float:
    start = settled_cpu_s(pid, within_s=2.0)
    assert start is not None
    os.write(wake, b"g")
    assert os.read(reply, 1) == b"r"
    end = read(pid)
    assert end is not None
    return end - start


def test_a_reading_once_the_process_blocks_holds_all_the_work_of_the_step() -> None:
    with _replies_then_works(_AFTER_S) as (pid, wake, reply):
        steps = [
            _step(pid, wake, reply, lambda p: settled_cpu_s(p, within_s=2.0)) for _ in range(5)
        ]
    assert min(steps) >= 0.95 * (_BEFORE_S + _AFTER_S), steps


def test_a_process_that_never_blocks_is_read_after_the_wait_and_one_that_ended_is_none() -> None:
    pid = os.fork()
    if pid == 0:
        try:
            _spin(30.0)
        finally:
            os._exit(0)
    try:
        started = time.monotonic()
        value = settled_cpu_s(pid, within_s=0.05)
        waited = time.monotonic() - started
        assert value is not None
        assert 0.05 <= waited < 1.0
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert settled_cpu_s(pid) is None
