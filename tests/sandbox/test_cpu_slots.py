"""CPU slots: never more jobs at once than slots, across threads and processes (no Docker)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from judge_service.sandbox import _cgroup_cpu, _cpu_slots, _jobs
from judge_service.sandbox._cgroup_cpu import usable_cpus
from judge_service.sandbox._cpu_slots import CpuSlots, machine_slots
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job
from tests.sandbox._fake_sandboxes import fake_pool

# Holds every slot of a directory until its stdin closes (or it is killed).
_HOLDER = """
import sys
from judge_service.sandbox._cpu_slots import CpuSlots
slots = CpuSlots(int(sys.argv[1]), sys.argv[2])
held = [slots.hold() for _ in range(slots.count)]
for hold in held:
    hold.__enter__()
print("holding", flush=True)
sys.stdin.read()
"""


@pytest.fixture(autouse=True)
def _an_idle_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's CPUs idle (two of them, whatever else runs while the suite does): a job whose
    sandbox's CPU stands still sleeps, rather than waits for a CPU."""
    monkeypatch.setattr(_cpu_slots, "host_idle_s", lambda: 2 * time.monotonic())


def _most_at_once(slots: CpuSlots, threads: int, hold_s: float = 0.02) -> int:
    running, most = 0, 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal running, most
        with slots.hold():
            with lock:
                running += 1
                most = max(most, running)
            time.sleep(hold_s)
            with lock:
                running -= 1

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return most


def _holder(count: int, directory: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(count), str(directory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


def test_threads_never_hold_more_slots_than_there_are(tmp_path: Path) -> None:
    slots = CpuSlots(2, str(tmp_path))
    assert _most_at_once(slots, threads=12) == 2
    assert slots.held == 0


def test_waiters_take_slots_in_the_order_they_came(tmp_path: Path) -> None:
    slots = CpuSlots(1, str(tmp_path))
    order: list[int] = []
    first = slots.hold()
    first.__enter__()

    def wait(number: int) -> None:
        with slots.hold():
            order.append(number)

    waiters = []
    for number in range(5):
        waiters.append(threading.Thread(target=wait, args=(number,)))
        waiters[-1].start()
        while len(slots._queue) < number + 1:  # each is queued before the next comes
            time.sleep(0.001)
    first.__exit__(None, None, None)
    for waiter in waiters:
        waiter.join()
    assert order == [0, 1, 2, 3, 4]


def test_another_process_holding_every_slot_makes_this_one_wait(tmp_path: Path) -> None:
    slots = CpuSlots(2, str(tmp_path))
    holder = _holder(2, tmp_path)
    try:
        with slots.hold(run_by=time.monotonic() + 0.3) as held:
            assert not held and slots.held == 0  # its deadline came first: it runs without
        assert slots.overflowed == 1
        assert holder.stdin is not None
        holder.stdin.close()  # it exits, and its locks go with it
        with slots.hold(run_by=time.monotonic() + 30) as held:
            assert held and slots.held == 1
    finally:
        holder.kill()
        holder.wait()


def test_a_slot_held_by_a_killed_process_is_free_at_once(tmp_path: Path) -> None:
    holder = _holder(1, tmp_path)
    holder.kill()
    holder.wait()
    slots = CpuSlots(1, str(tmp_path))
    with slots.hold(run_by=time.monotonic() + 5) as held:
        assert held and slots.held == 1


def test_processes_together_hold_no_more_than_the_slots(tmp_path: Path) -> None:
    # Two processes of 4 threads each on 2 slots: a file records who holds one, at most 2.
    script = """
import os, sys, threading, time
from judge_service.sandbox._cpu_slots import CpuSlots
slots = CpuSlots(2, sys.argv[1])
seen = []
def work():
    for _ in range(10):
        with slots.hold():
            mark = os.path.join(sys.argv[2], f"{os.getpid()}-{threading.get_ident()}")
            open(mark, "w").close()
            seen.append(len(os.listdir(sys.argv[2])))
            time.sleep(0.005)
            os.unlink(mark)
threads = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print(*seen)
"""
    marks = tmp_path / "marks"
    marks.mkdir()
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / "slots"), str(marks)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    counts = [int(line) for run in runs for line in run.communicate(timeout=120)[0].split()]
    assert len(counts) == 80 and max(counts) <= 2


def test_the_slot_count_follows_the_cpus_this_process_may_use() -> None:
    pinned = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os; os.sched_setaffinity(0, {0});"
            "from judge_service.sandbox._cgroup_cpu import usable_cpus; print(usable_cpus())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert pinned.stdout.strip() == "1"
    assert 1 <= usable_cpus() <= len(os.sched_getaffinity(0))


def test_a_cgroup_quota_bounds_the_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cgroup_cpu, "_cgroup_quota", lambda: 1.5)
    monkeypatch.setattr(_cgroup_cpu.os, "sched_getaffinity", lambda _pid: set(range(8)))
    assert usable_cpus() == 2
    monkeypatch.setattr(_cgroup_cpu, "_cgroup_quota", lambda: None)
    assert usable_cpus() == 8


def test_pools_of_one_process_share_its_view_of_the_slots(tmp_path: Path) -> None:
    config = SandboxConfig(cpu_slots=3, cpu_slots_dir=str(tmp_path))
    first, _ = fake_pool(config)
    second, _ = fake_pool(config)
    assert first.cpu_slots is second.cpu_slots
    assert first.cpu_slots.count == 3
    assert machine_slots(None, str(tmp_path)).count == usable_cpus()


def test_a_pool_runs_one_job_per_slot_however_many_sandboxes_it_has(tmp_path: Path) -> None:
    config = SandboxConfig(cpu_slots=1, cpu_slots_dir=str(tmp_path), sandboxes_per_language=4)
    pool, started = fake_pool(config)
    running, most = 0, 0
    lock = threading.Lock()

    def request(*_: Any) -> tuple[dict[str, Any], bytes]:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.02)
        with lock:
            running -= 1
        return {"op": "result"}, b""

    pool._request = request  # type: ignore[method-assign]
    job = Job(language="python", code="print(1)", tests=[{"input": "", "output": "1"}])
    jobs = [
        threading.Thread(target=pool._run, args=(job, {}, b"", {}, False, None)) for _ in range(8)
    ]
    for thread in jobs:
        thread.start()
    for thread in jobs:
        thread.join()
    assert most == 1
    assert len(started) == 4  # the sandboxes were there; they waited for the slot


def test_a_job_whose_caller_gives_up_first_runs_without_a_slot(tmp_path: Path) -> None:
    """verl sends no retry: an answer in time, which a wall clock may decide (and then says
    so), beats a slot too late."""
    config = SandboxConfig(cpu_slots=1, cpu_slots_dir=str(tmp_path))
    pool, _ = fake_pool(config)
    pool._request = lambda *_: ({"op": "result"}, b"")  # type: ignore[method-assign]
    job = Job(language="python", code="print(1)", tests=[{"input": "", "output": "1"}])
    with pool.cpu_slots.hold():
        answer_by = time.monotonic() + 0.2 + _jobs.longest_run_s(job, False)
        reply, _ = pool._run(job, {}, b"", {}, False, answer_by)
        assert reply["op"] == "result"
        assert pool.cpu_slots.overflowed == 1
        # Without a deadline it waits for the slot.
        waiting = threading.Thread(target=pool._run, args=(job, {}, b"", {}, False, None))
        waiting.start()
        waiting.join(0.3)
        assert waiting.is_alive()
    waiting.join(10)
    assert not waiting.is_alive() and pool.cpu_slots.overflowed == 1


def test_the_slots_are_open_to_every_judging_process_whatever_its_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        slots = CpuSlots(2, str(tmp_path / "slots"))
    finally:
        os.umask(old)
    assert (tmp_path / "slots").stat().st_mode & 0o7777 == 0o1777
    assert all((tmp_path / "slots" / f"slot-{i}").stat().st_mode & 0o777 == 0o666 for i in range(2))
    assert slots.count == 2


def _busy_reader() -> Any:
    """A sandbox that uses a whole CPU: its CPU seconds grow with the clock."""
    started = time.monotonic()
    return lambda: time.monotonic() - started


def test_a_sleeping_job_lends_its_slot_and_a_busy_one_does_not(tmp_path: Path) -> None:
    slots = CpuSlots(1, str(tmp_path))
    with slots.hold(cpu_s=lambda: 1.5):  # its sandbox's CPU stands still: it sleeps
        with slots.hold(run_by=time.monotonic() + 5) as held:
            assert held and slots.held == 2 and slots.lent == 1
    with slots.hold(cpu_s=_busy_reader()):
        with slots.hold(run_by=time.monotonic() + 0.5) as held:
            assert not held  # it ran past its deadline without one: nothing was lent
    with slots.hold(cpu_s=None):  # unknown: never lent
        with slots.hold(run_by=time.monotonic() + 0.5) as held:
            assert not held
    assert slots.lent == 1 and slots.overflowed == 2


def test_a_job_on_a_host_with_no_idle_cpu_is_starved_not_asleep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its sandbox's CPU stands still because the host's CPUs are all busy: lending its slot
    # would run one program more on CPUs already short (two workers on two cores ran three).
    monkeypatch.setattr(_cpu_slots, "host_idle_s", lambda: 1000.0)
    slots = CpuSlots(1, str(tmp_path))
    with slots.hold(cpu_s=lambda: 1.5):
        with slots.hold(run_by=time.monotonic() + 0.5) as held:
            assert not held
    assert slots.lent == 0 and slots.overflowed == 1
    monkeypatch.setattr(_cpu_slots, "host_idle_s", lambda: None)  # unreadable: never lent
    with slots.hold(cpu_s=lambda: 1.5):
        with slots.hold(run_by=time.monotonic() + 0.5) as held:
            assert not held
    assert slots.lent == 0


def test_the_slot_a_sleeper_frees_goes_to_the_job_it_lent_to(tmp_path: Path) -> None:
    slots = CpuSlots(1, str(tmp_path))
    sleeper = slots.hold(cpu_s=lambda: 0.0)
    sleeper.__enter__()
    borrower = slots.hold(cpu_s=_busy_reader())
    assert borrower.__enter__() is True
    sleeper.__exit__(None, None, None)
    # The borrower holds the slot now: a newcomer waits (nobody sleeps), nothing more is lent.
    with slots.hold(run_by=time.monotonic() + 0.4) as held:
        assert not held
    assert slots.held == 1 and slots.lent == 1
    borrower.__exit__(None, None, None)
    with slots.hold(run_by=time.monotonic() + 1) as held:
        assert held and slots._free == []


def test_a_containers_cpu_reader_reads_its_cgroup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    patterns = (("v1/{id}/cpuacct.usage", 1e-9), ("v2/{id}/cpu.stat", 1e-6))
    monkeypatch.setattr(_cgroup_cpu, "_CONTAINER_CPU", patterns)
    (tmp_path / "v1" / "abc").mkdir(parents=True)
    (tmp_path / "v1" / "abc" / "cpuacct.usage").write_text("2500000000\n")
    (tmp_path / "v2" / "def").mkdir(parents=True)
    (tmp_path / "v2" / "def" / "cpu.stat").write_text("usage_usec 750000\nuser_usec 1\n")
    root = str(tmp_path)
    reader_v1 = _cgroup_cpu.container_cpu("abc", root)
    reader_v2 = _cgroup_cpu.container_cpu("def", root)
    assert reader_v1 is not None and reader_v1() == pytest.approx(2.5)
    assert reader_v2 is not None and reader_v2() == pytest.approx(0.75)
    assert _cgroup_cpu.container_cpu("gone", root) is None
    assert _cgroup_cpu.container_cpu("", root) is None
    (tmp_path / "v1" / "abc" / "cpuacct.usage").unlink()
    assert reader_v1() is None


# Imported as root (the interpreter lives in root's home), then run as nobody.
_AS_NOBODY = """
import os, sys
from judge_service.sandbox._cpu_slots import CpuSlots
from judge_service.sandbox.errors import SandboxUnavailable
os.setgid(65534); os.setuid(65534)
try:
    slots = CpuSlots(int(sys.argv[2]), sys.argv[1])
except SandboxUnavailable as error:
    print("refused:", error)
else:
    with slots.hold() as held:
        print("held" if held else "not held")
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="makes another user's directory")
def test_another_users_slots_are_shared_read_only_or_refused_with_how_to_fix() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as parent:  # pytest's tmp_path is root's own
        os.chmod(parent, 0o755)
        _another_users_slots(Path(parent) / "slots")


def _another_users_slots(directory: Path) -> None:
    CpuSlots(2, str(directory))
    directory.chmod(0o755)  # as Docker makes a bind mount's missing host directory
    for path in directory.iterdir():
        path.chmod(0o644)

    def as_nobody(count: int) -> str:
        run = [sys.executable, "-c", _AS_NOBODY, str(directory), str(count)]
        return subprocess.run(run, capture_output=True, text=True, check=True).stdout

    assert as_nobody(2).strip() == "held"
    refused = as_nobody(3)
    assert refused.startswith("refused:") and "JUDGE_CPU_SLOTS_DIR" in refused


def test_only_a_job_in_a_slot_of_its_own_lends_so_sleepers_cannot_multiply(
    tmp_path: Path,
) -> None:
    """Borrowers that sleep in turn lend nothing: at most twice as many jobs as slots run,
    however the sleepers then wake (a policy's sleeping rollouts must not crowd the CPUs)."""
    slots = CpuSlots(1, str(tmp_path))
    with slots.hold(cpu_s=lambda: 0.0):
        with slots.hold(run_by=time.monotonic() + 5, cpu_s=lambda: 0.0) as borrowed:
            assert borrowed
            with slots.hold(run_by=time.monotonic() + 0.6) as third:
                assert not third
    assert slots.lent == 1


def test_a_failing_cpu_reader_lends_nothing_and_loses_no_slot(tmp_path: Path) -> None:
    def broken() -> float:
        raise ValueError("a torn read")

    slots = CpuSlots(1, str(tmp_path))
    with slots.hold(cpu_s=broken):
        with slots.hold(run_by=time.monotonic() + 0.4) as held:
            assert not held
    with slots.hold(run_by=time.monotonic() + 1) as held:
        assert held and slots.held == 1


def test_a_window_nobody_looked_at_says_nothing_of_now(tmp_path: Path) -> None:
    """A job that slept while nobody waited and computes now is not taken for a sleeper."""
    slots = CpuSlots(1, str(tmp_path))
    busy = _busy_reader()
    with slots.hold(cpu_s=lambda: min(busy(), 0.05)):  # slept, then (below) computes
        holder = slots._holders[0]
        holder.sampled_at -= 5  # its last sample is long past
        holder.cpu_s = busy
        with slots.hold(run_by=time.monotonic() + 0.5) as held:
            assert not held


def test_a_job_that_cannot_have_a_slot_in_time_runs_at_once_not_at_its_deadline(
    tmp_path: Path,
) -> None:
    """verl's wave behind a full pool needs the sandboxes the first wave holds: a job whose
    turn cannot come before its deadline (the jobs ahead, each as long as it may take) runs
    at once rather than hold its sandbox until then."""
    slots = CpuSlots(1, str(tmp_path))
    results: list[bool] = []
    with slots.hold():
        run_by = time.monotonic() + 1.0
        first = threading.Thread(target=lambda: results.append(_held(slots, run_by, longest_s=0.6)))
        first.start()
        while not slots._queue:
            time.sleep(0.001)
        started = time.monotonic()
        assert _held(slots, run_by, longest_s=0.6) is False  # two rounds of 0.6 s: too late
        assert time.monotonic() - started < 0.5
    first.join()
    assert results == [True]  # one round of 0.6 s fits: it waited for the slot
    assert slots.overflowed == 1


def _held(slots: CpuSlots, run_by: float, longest_s: float) -> bool:
    with slots.hold(run_by=run_by, longest_s=longest_s) as held:
        return held
