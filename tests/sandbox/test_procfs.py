"""What the agent reads of /proc (judge_service/sandbox/agent/procfs.py), on the host."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge_service.sandbox.agent import procfs

# A process that spends about 0.3 s of CPU in a thread, or in a child it reaps, says so, then
# sleeps until its stdin closes.
SPIN = """
import os, sys, threading, time
def spin():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
how = sys.argv[1]
if how == "thread":
    worker = threading.Thread(target=spin)
    worker.start()
    worker.join()
elif how == "child":
    pid = os.fork()
    if pid == 0:
        end = time.perf_counter() + 5
        while time.perf_counter() < end and os.times().user + os.times().system < 0.3:
            pass
        os._exit(0)
    os.waitpid(pid, 0)
print("spun", flush=True)
sys.stdin.read()
"""


def _spinner(how: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SPIN), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "spun\n"
    return process


def test_own_cpu_counts_the_threads_that_have_ended() -> None:
    """A judge process whose thread did work and ended (a JVM's compiler threads) used that
    CPU itself: it must not count as the job's. Its thread is gone from /proc/PID/task."""
    process = _spinner("thread")
    try:
        assert os.listdir(f"/proc/{process.pid}/task") == [str(process.pid)]
        assert procfs.own_cpu_s([process.pid]) >= 0.25
    finally:
        process.communicate("")


def test_own_cpu_leaves_out_the_children_it_reaped() -> None:
    process = _spinner("child")
    try:
        assert procfs.own_cpu_s([process.pid]) < 0.2  # its own start-up only
        assert procfs.usage([process.pid])[1] < 0.2
    finally:
        process.communicate("")


def test_own_cpu_sums_processes_and_skips_the_gone() -> None:
    first, second = _spinner("thread"), _spinner("thread")
    gone = subprocess.Popen(["true"])
    gone.wait()
    try:
        both = procfs.own_cpu_s([first.pid, second.pid])
        assert both >= 0.5
        assert procfs.own_cpu_s([first.pid, second.pid, gone.pid]) >= both
        assert procfs.own_cpu_s([gone.pid]) == 0.0
    finally:
        first.communicate("")
        second.communicate("")


def test_all_pids_lists_processes_only() -> None:
    child = subprocess.Popen(["sleep", "5"])
    try:
        pids = procfs.all_pids()
        assert os.getpid() in pids and child.pid in pids
        assert all(isinstance(pid, int) and pid > 0 for pid in pids)
    finally:
        child.kill()
        child.wait()
    assert child.pid not in procfs.all_pids()


def test_read_all_reads_past_one_buffer(tmp_path: Path) -> None:
    """An IPC table of thousands of objects is longer than one read returns: every row must
    be read, or the objects past the first buffer outlive the test."""
    table = tmp_path / "table"
    table.write_bytes(b"".join(b"row %06d\n" % n for n in range(20000)))  # 220 kB
    assert procfs.read_all(str(table)) == table.read_bytes()
    assert len(procfs.read_file(str(table))) == 1 << 16
    maps = procfs.read_all(f"/proc/{os.getpid()}/maps")
    assert maps.endswith(b"\n") and maps.count(b"\n") > 10


# What each clock script starts with: it joins the cgroup the test made, whose CPU the clock
# reads (the sandboxes' cgroup v1 cpuacct).
_IN_THE_GROUP = """
import os, statistics, sys, time
from judge_service.sandbox.agent import procfs
group = sys.argv[1]
with open(group + "/cgroup.procs", "w") as procs:
    procs.write(str(os.getpid()))
procfs.CGROUP_CPU = (group + "/cpuacct.usage",)
"""
# Busy for about a millisecond without sleeping, as the agent is while it prepares a test, then
# a job that uses no CPU at all: what the clock charges it is the clock's error.
_JUDGE_BUSY_THEN_IDLE_JOB = """
charged = []
for _ in range(300):
    end = time.perf_counter() + 0.001
    while time.perf_counter() < end:
        pass
    clock = procfs.JobCpuClock([os.getpid()])
    time.sleep(0.002)
    charged.append(clock.used_s())
print(statistics.mean(charged) * 1000)
"""
# A job that spends about 2 ms of CPU in a child and exits, then the judge busy for about a
# millisecond without sleeping before it reads the clock (as the agent is, sampling what the job
# left): the clock's reading less the child's own CPU (its rusage) is the clock's error.
_JOB_THEN_JUDGE_BUSY = """
errors = []
for _ in range(200):
    time.sleep(0.002)
    clock = procfs.JobCpuClock([os.getpid()])
    pid = os.fork()
    if pid == 0:
        end = time.process_time() + 0.002
        while time.process_time() < end:
            pass
        os._exit(0)
    _, _, usage = os.wait4(pid, 0)
    end = time.perf_counter() + 0.001
    while time.perf_counter() < end:
        pass
    errors.append(clock.used_s() - (usage.ru_utime + usage.ru_stime))
print(statistics.mean(errors) * 1000)
"""
_CPUACCT = Path("/sys/fs/cgroup/cpuacct")
_needs_cpuacct = pytest.mark.skipif(
    os.geteuid() != 0 or not (_CPUACCT / "cpuacct.usage").exists(),
    reason="needs root and the cgroup v1 cpuacct controller the sandboxes use",
)


def _clock_error_ms(script: str) -> float:
    """What ``script`` prints, run in a cpuacct cgroup of its own (made, then removed)."""
    group = _CPUACCT / f"judge-test-clock-{os.getpid()}"
    group.mkdir()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _IN_THE_GROUP + script, str(group)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    finally:
        group.rmdir()
    return float(done.stdout)


@_needs_cpuacct
def test_the_job_clock_charges_no_cpu_the_judge_used_before_it_started() -> None:
    charged = _clock_error_ms(_JUDGE_BUSY_THEN_IDLE_JOB)
    # Read the wrong way round (cgroup first), the judge's busy millisecond since its last tick
    # counted as the job's: 0.85 ms a test here (now: under 0.001 ms).
    assert charged < 0.02, charged


@_needs_cpuacct
def test_the_job_clock_keeps_the_job_cpu_the_judge_used_after_it() -> None:
    error = _clock_error_ms(_JOB_THEN_JUDGE_BUSY)
    # Read the wrong way round at the end (cgroup, then the judge's clock), the judge's busy
    # millisecond since its last tick is taken off the job's CPU: about -0.8 ms a test.
    assert abs(error) < 0.1, error
