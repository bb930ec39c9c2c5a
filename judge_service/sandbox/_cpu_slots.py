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
from dataclasses import dataclass, field

from judge_service.sandbox._cgroup_cpu import CpuReader, host_idle_s, usable_cpus
from judge_service.sandbox.errors import SandboxUnavailable

# How long a waiter at the head sleeps while every slot this process could take is held by
# another process (a release there wakes nobody here), doubling up to the most.
_POLL_FIRST_S = 0.001
_POLL_MOST_S = 0.02
# A job whose sandbox used under this share of a CPU over this many windows in a row, while the
# host's CPUs were idle for at least as much, sleeps: its slot is lent to the next job while it
# does. (On a host with no idle CPU, a job that used little may be starved, not asleep, and a
# slot lent would run a program more on CPUs already short: two workers on two cores ran three.)
_IDLE_WINDOW_S = 0.1
_IDLE_WINDOWS = 2
_IDLE_SHARE = 0.25


@dataclass(eq=False)
class _Holder:
    """A job in its slot: the slot's file (None: a slot lent by a sleeping holder) and how
    much CPU its sandbox has used, sampled to see whether it sleeps."""

    index: int | None
    cpu_s: CpuReader | None
    sampled_at: float = field(default_factory=time.monotonic)
    sampled_cpu_s: float | None = None
    sampled_idle_s: float | None = None  # the host's idle CPU time then
    idle_windows: int = 0  # windows in a row it used under a quarter of a CPU

    def __post_init__(self) -> None:
        self.sampled_cpu_s = _cpu_or_none(self.cpu_s)
        self.sampled_idle_s = host_idle_s()

    @property
    def sleeping(self) -> bool:
        return self.idle_windows >= _IDLE_WINDOWS

    def sample(self, now: float) -> None:
        """Count a window of at least ``_IDLE_WINDOW_S``; one much longer (nobody looked) only
        starts a new one, as it says nothing of what the job does now."""
        elapsed = now - self.sampled_at
        if self.cpu_s is None or elapsed < _IDLE_WINDOW_S:
            return
        cpu_s, idle_s = _cpu_or_none(self.cpu_s), host_idle_s()
        if (
            elapsed > 2 * _IDLE_WINDOW_S
            or cpu_s is None
            or self.sampled_cpu_s is None
            or idle_s is None
            or self.sampled_idle_s is None
        ):
            self.idle_windows = 0
        elif (
            cpu_s - self.sampled_cpu_s < _IDLE_SHARE * elapsed
            and idle_s - self.sampled_idle_s >= _IDLE_SHARE * elapsed
        ):
            self.idle_windows += 1
        else:
            self.idle_windows = 0
        self.sampled_at, self.sampled_cpu_s, self.sampled_idle_s = now, cpu_s, idle_s


def _cpu_or_none(cpu_s: CpuReader | None) -> float | None:
    try:
        return cpu_s() if cpu_s is not None else None
    except Exception:  # a reader that fails says nothing: the job does not lend
        return None


class CpuSlots:
    """``count`` slots shared by every process that opens the same ``directory``.

    A job that sleeps (its sandbox's CPU, ``cpu_s``, stands still while the host has idle CPU)
    lends its slot: one more
    job may start while it sleeps, and the next slot freed goes to that job rather than to a
    newcomer. A sleeper holds a sandbox, never another caller's answer."""

    def __init__(self, count: int, directory: str) -> None:
        self.count = count
        self.directory = directory
        # Anyone on the host may judge (a worker of another user, or in a container of its own):
        # modes set after the fact, as the umask is the whole process's, not this thread's.
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as error:
            raise SandboxUnavailable(
                f"cannot make the CPU slots' directory {directory}: {error}; set "
                "JUDGE_CPU_SLOTS_DIR to a directory every judging process may write"
            ) from error
        _open_to_all(directory, 0o1777)
        self._files = [self._open(index) for index in range(count)]
        self._free = list(range(count))  # slots no thread of this process holds
        self._holders: list[_Holder] = []
        self._lock = threading.Lock()
        self._queue: deque[threading.Condition] = deque()
        # Metrics: the time jobs waited for a slot, how many ran without one, how many ran in
        # a slot an idle job lent.
        self.waited_s = 0.0
        self.overflowed = 0
        self.lent = 0

    def _open(self, index: int) -> int:
        path = os.path.join(self.directory, f"slot-{index}")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
        except PermissionError:
            # Another user's directory: its files lock as well read-only.
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            except OSError as error:
                raise SandboxUnavailable(
                    f"cannot use the CPU slots in {self.directory}: {error}; set "
                    "JUDGE_CPU_SLOTS_DIR to a directory every judging process may write"
                ) from error
        _open_to_all(fd, 0o666)
        return fd

    @contextmanager
    def hold(
        self,
        run_by: float | None = None,
        cpu_s: CpuReader | None = None,
        longest_s: float = 0.0,
    ) -> Iterator[bool]:
        """Hold a slot for the block (True). ``cpu_s``: the CPU seconds the job's sandbox has
        used so far (None when unknown), to lend the slot while the job sleeps.

        A job with a deadline (``run_by``, monotonic) runs without a slot (False) once it
        cannot have one by then: past it, or at once when the jobs ahead of it, each taking as
        long as it may (``longest_s``), would hold the slots past it. Its caller (verl, with no
        retry) is better served by an answer that may be the load's (a wall-clock verdict says
        so and is judged again or never cached) than by none; and the jobs queued behind it
        for a sandbox need the one it holds before their own deadlines."""
        holder = self._take(run_by, cpu_s, longest_s)
        try:
            yield holder is not None
        finally:
            if holder is not None:
                self._give(holder)

    @property
    def held(self) -> int:
        """Jobs of this process in a slot now (lent slots included)."""
        return len(self._holders)

    def _take(
        self, run_by: float | None, cpu_s: CpuReader | None, longest_s: float
    ) -> _Holder | None:
        started = time.monotonic()
        poll_s = _POLL_FIRST_S
        with self._lock:
            # Each waiter sleeps on a condition of its own: a release wakes the head alone.
            turn = threading.Condition(self._lock)
            self._queue.append(turn)
            try:
                while True:
                    first = self._queue[0] is turn
                    holder = self._slot_for(cpu_s) if first else None
                    left = None if run_by is None else run_by - time.monotonic()
                    late = left is not None and (left <= 0 or self._wait_s(turn, longest_s) > left)
                    if holder is None and late:  # out of turn, a free slot; else without one
                        holder = self._free_slot(cpu_s)
                        if holder is None:
                            self.overflowed += 1
                            return None
                    if holder is not None:
                        self.waited_s += time.monotonic() - started
                        self._holders.append(holder)
                        return holder
                    timeout: float | None = None
                    if first and self._free:  # held by other processes: they wake nobody here
                        timeout, poll_s = poll_s, min(2 * poll_s, _POLL_MOST_S)
                    elif first and any(other.cpu_s for other in self._holders):
                        timeout = _IDLE_WINDOW_S  # look again for a sleeper
                    if left is not None:
                        timeout = left if timeout is None else min(timeout, left)
                    turn.wait(timeout)
            finally:
                self._queue.remove(turn)
                self._wake_head()

    def _wait_s(self, turn: threading.Condition, longest_s: float) -> float:
        """The longest this waiter may wait: the jobs in slots and the waiters ahead, in
        rounds of ``count``, each as long as it may take."""
        ahead = len(self._holders) + self._queue.index(turn)
        return math.ceil(max(0, ahead + 1 - self.count) / self.count) * longest_s

    def _slot_for(self, cpu_s: CpuReader | None) -> _Holder | None:
        """A free slot's holder, or a lent one while more jobs in a slot of their own sleep
        than slots are lent: at most one lent per slot, so never more than twice as many
        jobs as slots run, however the sleepers wake."""
        holder = self._free_slot(cpu_s)
        if holder is not None:
            return holder
        now = time.monotonic()
        for other in self._holders:
            other.sample(now)
        sleeping = sum(other.sleeping for other in self._holders if other.index is not None)
        lent = sum(other.index is None for other in self._holders)
        if sleeping > lent:
            self.lent += 1
            return _Holder(None, cpu_s)
        return None

    def _free_slot(self, cpu_s: CpuReader | None) -> _Holder | None:
        for index in self._free:
            try:
                fcntl.flock(self._files[index], fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            self._free.remove(index)
            return _Holder(index, cpu_s)
        return None

    def _give(self, holder: _Holder) -> None:
        with self._lock:
            self._holders.remove(holder)
            if holder.index is not None:
                borrower = next((h for h in self._holders if h.index is None), None)
                if borrower is not None:  # a job in a lent slot takes it: one fewer lent
                    borrower.index = holder.index
                else:
                    fcntl.flock(self._files[holder.index], fcntl.LOCK_UN)
                    self._free.append(holder.index)
            self._wake_head()

    def _wake_head(self) -> None:
        if self._queue:
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
