"""Shared memory and IPC objects: the memory a run holds outside its processes' resident sets,
and the removal of SysV objects. Standard library only (sent to the agent)."""

from __future__ import annotations

import os
from typing import Any

IPC_RMID = 0
# cgroup v2, then v1: the sandbox's own cgroup (it runs in a private cgroup namespace).
CGROUP_MEMORY_STATS = ("/sys/fs/cgroup/memory.stat", "/sys/fs/cgroup/memory/memory.stat")
# tmpfs mounts whose files are the job's files, bounded by their own sizes: not a test's memory.
FILE_MOUNTS = ("/work", "/tmp")


class SharedMemory:
    """Shared memory a run created that none of its processes has mapped.

    A SysV segment, a /dev/shm file or a memfd holds memory that shows in a process's RSS only
    while mapped, and only the pages touched through that mapping: a segment touched a window
    at a time, a memfd filled with write(), a segment kept by an attacher that never touches it
    all escape the RSS. The sandbox's cgroup is charged for every page, whoever holds it (even
    a process that made itself non-dumpable, so its descriptors cannot be listed), so its
    growth since the run started, less what the run's processes map, is what the RSS misses.
    """

    def __init__(self, output_fds: list[int]) -> None:
        self.output_fds = output_fds
        self.baseline_kb = self._charged_kb()

    def unmapped_kb(self, pids: list[int]) -> int:
        grown = self._charged_kb() - self.baseline_kb
        if grown <= 0:
            return 0
        return max(0, grown - mapped_kb(pids))

    def _charged_kb(self) -> int:
        # What the program prints lands in the agent's memfds: output, with its own limit.
        output_kb = sum(os.fstat(fd).st_blocks // 2 for fd in self.output_fds)
        return shared_kb() - output_kb


def shared_kb() -> int:
    """Shared memory in the sandbox (SysV segments, /dev/shm files, memfds, shared anonymous
    pages) but for the files in /work and /tmp."""
    for path in CGROUP_MEMORY_STATS:
        try:
            with open(path) as stats:
                charged = next(int(line.split()[1]) for line in stats if line.startswith("shmem "))
        except (OSError, StopIteration, ValueError, IndexError):
            continue
        return charged // 1024 - sum(tmpfs_used_kb(mount) for mount in FILE_MOUNTS)
    # No cgroup to ask: segments and /dev/shm are what /proc and statvfs show (memfds are not).
    return sysv_shm_kb() + tmpfs_used_kb("/dev/shm")


def tmpfs_used_kb(mount: str) -> int:
    try:
        info = os.statvfs(mount)
    except OSError:
        return 0
    return (info.f_blocks - info.f_bfree) * info.f_frsize // 1024


def sysv_shm_kb() -> int:
    """Resident pages of every SysV segment, attached or not (its size on kernels that do not
    report them)."""
    total = 0
    for fields in _table("shm"):
        total += int(fields[14] if len(fields) > 14 else fields[3])
    return total // 1024


def mapped_kb(pids: list[int]) -> int:
    """Shared memory the processes map (RssShmem): already in their RSS."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as status:
                rows = (line.split() for line in status)
                total += next(int(row[1]) for row in rows if row and row[0] == "RssShmem:")
        except (OSError, StopIteration, ValueError, IndexError):
            continue
    return total


def remove_sysv_objects(libc: Any) -> None:
    """Remove every SysV segment, message queue and semaphore set in the sandbox."""
    for kind, remove in (("shm", libc.shmctl), ("msg", libc.msgctl), ("sem", libc.semctl)):
        for fields in _table(kind):
            ipc_id = int(fields[1])
            if kind == "sem":
                remove(ipc_id, 0, IPC_RMID)
            else:
                remove(ipc_id, IPC_RMID, None)


def _table(kind: str) -> list[list[str]]:
    try:
        with open(f"/proc/sysvipc/{kind}") as table:
            return [row.split() for row in table.read().splitlines()[1:]]
    except OSError:
        return []
