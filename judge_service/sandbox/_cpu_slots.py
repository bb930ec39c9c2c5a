"""CPU slots: the engine never runs more jobs at once than the machine has CPUs for.

A job holds one slot while its sandbox works on it: from the frame sent to the agent to its
answer, compile and every test. Its sandbox may be warm long before (sandboxes outnumber
slots, so a free slot never waits for a container to start), but it waits for a slot before it
runs, and the agent starts the job's clocks (each test's wall limit, the job's budget) only
when the frame arrives. So a wall-clock verdict is the program's, not a share of a core the
batch around it left over: with 32 sandboxes per language running at once on 2 cores, a test
got a twentieth of a core and correct Java came back TLE.

Slots are the machine's, not one process's: every judging process on the host (the embedded
service, Celery workers, a benchmark) takes them from the same lock files (``flock``). A slot
held by a process that dies is free again at once; a slot no other process holds is taken
without a system call beyond the lock. Within a process, waiters take slots in arrival order.

What slots cannot see stays the re-judge path's (``_rejudge``): another tenant on the host, a
program whose threads use more than one CPU, the Docker engine starting containers, and a job
that ran without a slot because its caller's deadline came first (``hold``).
"""

from __future__ import annotations

import fcntl
import math
import os
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# How long a waiter at the head sleeps while every slot this process could take is held by
# another process (a release there wakes nobody here), doubling up to the most.
_POLL_FIRST_S = 0.001
_POLL_MOST_S = 0.02


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity, bounded by its cgroup's CPU quota."""
    cpus = len(os.sched_getaffinity(0))
    quota = _cgroup_quota()
    return max(1, min(cpus, math.ceil(quota)) if quota is not None else cpus)


def _cgroup_quota() -> float | None:
    """CPUs' worth of the cgroup's quota (v2 ``cpu.max``, v1 CFS quota); None without one."""
    try:
        limit, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        pass
    for directory in ("/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"):
        try:
            quota_us = int(Path(directory, "cpu.cfs_quota_us").read_text())
            period_us = int(Path(directory, "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        return None if quota_us <= 0 else quota_us / period_us
    return None


class CpuSlots:
    """``count`` slots shared by every process that opens the same ``directory``."""

    def __init__(self, count: int, directory: str) -> None:
        self.count = count
        self.directory = directory
        # Anyone on the host may judge (a worker of another user, or in a container of its own):
        # modes set after the fact, as the umask is the whole process's, not this thread's.
        os.makedirs(directory, exist_ok=True)
        _open_to_all(directory, 0o1777)
        self._files = [self._open(index) for index in range(count)]
        self._free = list(range(count))  # slots no thread of this process holds
        self._lock = threading.Lock()
        self._queue: deque[threading.Condition] = deque()
        # Metrics: the time jobs waited for a slot, and how many ran without one.
        self.waited_s = 0.0
        self.overflowed = 0

    def _open(self, index: int) -> int:
        path = os.path.join(self.directory, f"slot-{index}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
        _open_to_all(fd, 0o666)
        return fd

    @contextmanager
    def hold(self, run_by: float | None = None) -> Iterator[bool]:
        """Hold a slot for the block (True). Past ``run_by`` (monotonic) without one, the block
        runs without a slot (False): a caller who gives up then (verl, with no retry) is better
        served by an answer that may be the load's (a wall-clock verdict says so and is judged
        again or never cached) than by none."""
        index = self._take(run_by)
        try:
            yield index is not None
        finally:
            if index is not None:
                self._give(index)

    @property
    def held(self) -> int:
        """Slots this process holds now."""
        return self.count - len(self._free)

    def _take(self, run_by: float | None) -> int | None:
        started = time.monotonic()
        poll_s = _POLL_FIRST_S
        with self._lock:
            # Each waiter sleeps on a condition of its own: a release wakes the head alone.
            turn = threading.Condition(self._lock)
            self._queue.append(turn)
            try:
                while True:
                    timeout: float | None = None
                    if self._queue[0] is turn and self._free:
                        index = self._lock_one()
                        if index is not None:
                            self.waited_s += time.monotonic() - started
                            return index
                        timeout, poll_s = poll_s, min(2 * poll_s, _POLL_MOST_S)
                    if run_by is not None:
                        left = run_by - time.monotonic()
                        if left <= 0:
                            self.overflowed += 1
                            return None
                        timeout = left if timeout is None else min(timeout, left)
                    turn.wait(timeout)
            finally:
                self._queue.remove(turn)
                self._wake_head()

    def _lock_one(self) -> int | None:
        """One of this process's free slots that no other process holds, locked; or None."""
        for index in self._free:
            try:
                fcntl.flock(self._files[index], fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            self._free.remove(index)
            return index
        return None

    def _give(self, index: int) -> None:
        with self._lock:
            fcntl.flock(self._files[index], fcntl.LOCK_UN)
            self._free.append(index)
            self._wake_head()

    def _wake_head(self) -> None:
        if self._queue and self._free:
            self._queue[0].notify()


def _open_to_all(target: int | str, mode: int) -> None:
    """``chmod`` a file or directory we may not own (another user made it): theirs stands."""
    try:
        os.chmod(target, mode)
    except PermissionError:
        pass


_shared: dict[tuple[int, str], CpuSlots] = {}
_shared_lock = threading.Lock()


def machine_slots(count: int | None, directory: str | None) -> CpuSlots:
    """This process's view of the machine's slots (``count`` default: :func:`usable_cpus`;
    ``directory`` default: ``judge-cpu-slots`` in the temporary directory), one per process
    for every pool that asks for the same: the process's waiters queue in one line."""
    key = (
        count or usable_cpus(),
        directory or os.path.join(tempfile.gettempdir(), "judge-cpu-slots"),
    )
    with _shared_lock:
        if key not in _shared:
            _shared[key] = CpuSlots(*key)
        return _shared[key]
