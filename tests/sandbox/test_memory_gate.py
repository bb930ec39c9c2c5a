"""Judged alone on the host: no job starts while one is, and it waits for those running, in
this process and in any other that shares the host's lock files."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from judge_service.sandbox._memory_gate import MemoryGate

HOLD_SHARED = """
import sys, time
from judge_service.sandbox._memory_gate import MemoryGate
with MemoryGate(sys.argv[1]).shared():
    print("running", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_job_judged_alone_waits_for_the_running_ones_and_holds_off_new_ones(
    tmp_path: Path,
) -> None:
    gate = MemoryGate(str(tmp_path))
    events: list[str] = []
    running = threading.Event()

    def job(name: str, hold_s: float) -> None:
        with gate.shared():
            events.append(f"{name} start")
            running.set()
            time.sleep(hold_s)
            events.append(f"{name} end")

    first = threading.Thread(target=job, args=("first", 0.3))
    first.start()
    running.wait()
    late = threading.Thread(target=job, args=("late", 0))
    with gate.alone() as alone:
        assert alone
        late.start()  # arrives while the job is judged alone: waits for it
        time.sleep(0.1)
        events.append("alone")
        # The job judged alone runs its own runs through the same gate.
        with gate.shared():
            events.append("alone's run")
    first.join()
    late.join()
    assert events == ["first start", "first end", "alone", "alone's run", "late start", "late end"]


def test_another_process_on_the_host_counts_too(tmp_path: Path) -> None:
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD_SHARED, str(tmp_path), "0.5"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "running"
        started = time.monotonic()
        with MemoryGate(str(tmp_path)).alone() as alone:
            assert alone
            waited = time.monotonic() - started
    finally:
        other.wait(timeout=10)
    assert waited >= 0.3, waited


def test_judging_alone_gives_up_at_its_deadline(tmp_path: Path) -> None:
    gate = MemoryGate(str(tmp_path))
    holding = threading.Event()
    release = threading.Event()

    def job() -> None:
        with gate.shared():
            holding.set()
            release.wait()

    thread = threading.Thread(target=job)
    thread.start()
    holding.wait()
    try:
        with gate.alone(deadline=time.monotonic() + 0.1) as alone:
            assert not alone
        # Given up: the gate is open again for other jobs.
        with gate.shared():
            pass
    finally:
        release.set()
        thread.join()
