"""What the timing driver undoes between two timed runs, so that no run leaves state for the next.

A solution can keep state between calls in its process (a memo dict, ``functools.lru_cache``, a
function attribute, ``sys.modules``, builtins) or beside it (a file in /tmp or /dev/shm, SysV
shared memory, a process left running that answers over a socket). Every timed run is a process
of its own, forked by the spawner (:mod:`._spawner`) from a process that never ran the
solution, which loads the solution afresh: the first kind dies with it. After each run the
spawner kills every process the run left behind (:func:`sweep`: it is their subreaper) and the
driver calls :func:`reset`, which empties the scratch directories and removes SysV IPC objects.
The CPU clocks the driver reads from outside the candidate are here too.

Standard library only: the driver is sent to the sandbox as source, with this module's source
ahead of its own.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import time

_PR_SET_CHILD_SUBREAPER = 36
_IPC_RMID = 0


def become_subreaper() -> None:
    """Orphans of the timed runs are re-parented to this process, not to the sandbox's init, so
    that :func:`sweep` finds every process a run left behind (a double fork escapes nothing)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children() -> list[int]:
    me = str(os.getpid())
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            found.append(int(name))
    return found


def sweep() -> None:
    """Kill and reap this process's children; theirs are re-parented here and go next."""
    for _ in range(100):
        pids = _children()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def wipe(directories: list[str]) -> str:
    """Empty the directories; what could not be removed, '' when they are empty."""
    left = []
    for directory in directories:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
            except (OSError, RecursionError):
                left.append(path)
    return ", ".join(left)[:200]


def remove_sysv_ipc() -> None:
    """Remove every SysV shared memory segment, message queue and semaphore set (the sandbox
    has its own IPC namespace: they are the program's)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                rows = table.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ipc_id = int(row.split()[1])
            if kind == "sem":
                libc.semctl(ipc_id, 0, _IPC_RMID)
            elif kind == "shm":
                libc.shmctl(ipc_id, _IPC_RMID, None)
            else:
                libc.msgctl(ipc_id, _IPC_RMID, None)


def reset(scratch: list[str], clear_ipc: bool) -> str:
    """Undo what a timed run left outside its processes (the spawner killed those); what could
    not be, '' when all was."""
    if clear_ipc:
        remove_sysv_ipc()
    left = wipe(scratch)
    return f"files it left could not be removed: {left}" if left else ""


# cgroup v2, then v1: the sandbox's own cgroup (it runs in a private cgroup namespace).
_CGROUP_CPU = ("/sys/fs/cgroup/cpu.stat", "/sys/fs/cgroup/cpuacct/cpuacct.usage")


def cgroup_cpu_s() -> float | None:
    """CPU seconds every process of the sandbox's cgroup ever used (whoever reaped them, or
    nobody), or ``None`` where there is no cgroup to read."""
    for path in _CGROUP_CPU:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if path.endswith("cpu.stat"):
            for line in data.splitlines():
                if line.startswith(b"usage_usec "):
                    return int(line.split()[1]) / 1e6
            continue
        return int(data) / 1e9
    return None


# Waiting past this is for a process that never blocks, or one the host keeps from a CPU (its
# clock is current then: it left the CPU).
_SETTLE_S = 0.005
_SETTLE_POLL_S = 20e-6


def settled_cpu_s(pid: int, within_s: float = _SETTLE_S) -> float | None:
    """:func:`process_cpu_s` once the process's main thread is off a CPU (at most
    ``within_s`` later). The kernel brings a process clock up to date with a thread's
    running time when the thread leaves its CPU; read while it still runs on another, the
    clock can miss the whole of its latest slice (2.7 ms of timed work read as 0.00 us), and a
    candidate's reply wakes the driver a few microseconds before the candidate blocks on its
    next request."""
    deadline = time.monotonic() + within_s
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(_SETTLE_POLL_S)
    return process_cpu_s(pid)


def _running(pid: int) -> bool:
    """Whether ``pid``'s main thread is running or runnable (``R`` in its stat file)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    state = data.rindex(b")") + 2  # the command name in parentheses may hold anything
    return data[state : state + 1] == b"R"


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds process ``pid`` has used, all its threads (those gone too); read from
    outside it (its CPU clock, which any process may read), ``None`` once it has ended."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        return None
