"""The memory a run holds outside its processes' resident sets (shared memory, kernel memory)
and the removal of SysV objects. Standard library only (sent to the agent)."""

from __future__ import annotations

import os
from typing import Any

from judge_service.sandbox.agent import procfs

IPC_RMID = 0
# cgroup v1, then v2: the sandbox's own cgroup (it runs in a private cgroup namespace).
CGROUP_MEMORY_STATS = ("/sys/fs/cgroup/memory/memory.stat", "/sys/fs/cgroup/memory.stat")
CGROUP_MEMORY_USAGE = (
    "/sys/fs/cgroup/memory/memory.usage_in_bytes",
    "/sys/fs/cgroup/memory.current",
)
# The kernel memory the sandbox's cgroup is charged for: v1's kmem counter, then v2's
# memory.stat (its "kernel" total where the kernel has one, else its parts) and socket buffers.
CGROUP_KMEM_USAGE = "/sys/fs/cgroup/memory/memory.kmem.usage_in_bytes"
CGROUP_V2_STATS = "/sys/fs/cgroup/memory.stat"
_V2_KERNEL_PARTS = (b"slab ", b"kernel_stack ", b"pagetables ", b"percpu ", b"vmalloc ")
# tmpfs mounts whose files are the job's files, bounded by their own sizes: not a test's memory.
FILE_MOUNTS = ("/work", "/tmp")


class MemoryBeyondRss:
    """Memory a run holds that none of its processes' resident sets shows.

    - Shared memory none of its processes has mapped. A SysV segment, a /dev/shm file or a
      memfd holds memory that shows in a process's RSS only while mapped, and only the pages
      touched through that mapping: a segment touched a window at a time, a memfd filled with
      write(), a segment kept by an attacher that never touches it all escape the RSS.
    - Kernel memory: inodes and extended attributes of the files it makes, socket and pipe
      buffers, page tables, kernel stacks. A program can hold hundreds of MB there with a tiny
      RSS (64 KB xattrs on a few thousand files, 300,000 empty files, full socket buffers).

    The sandbox's cgroup is charged for every page, whoever holds it (even a process that made
    itself non-dumpable, so its descriptors cannot be listed), so its growth since the run
    started, less what the run's processes map, is what the RSS misses. Kernel memory the run
    frees (a closed socket) leaves the growth; what it leaves behind (files) stays in it.
    """

    def __init__(self, output_fds: list[int]) -> None:
        self.output_fds = output_fds
        stats = memory_stats()  # read once: each read costs the kernel a statistics flush
        self.baseline_kb = self._charged_kb(stats)
        self.baseline_usage_kb = cgroup_usage_kb()
        self.baseline_kernel_kb = kernel_kb()
        self.baseline_anon_kb = anon_kb(stats)

    def beyond_rss_kb(self, pids: list[int], rss_kb: int = 0, limit_kb: int | None = None) -> int:
        """What the RSS misses. With ``limit_kb``, 0 when the cgroup's whole growth since the
        start (a counter read in a microsecond; the shared-memory figure costs a statistics
        flush in the kernel) could not take ``rss_kb`` past the limit: shared and kernel memory
        are part of that growth, so no limit can have been breached through them."""
        if limit_kb is not None:
            usage_kb = cgroup_usage_kb()
            if usage_kb is not None and self.baseline_usage_kb is not None:
                if rss_kb + max(usage_kb - self.baseline_usage_kb, 0) <= limit_kb:
                    return 0
        return self._unmapped_kb(pids) + self._kernel_grown_kb()

    def anon_grown_kb(self) -> int:
        """The sandbox's anonymous memory grown since the run started, each page once however
        many processes map it (what a swarm of forks holds: the agent reads RSS then only for
        the largest process)."""
        now = anon_kb()
        if now is None or self.baseline_anon_kb is None:
            return 0
        return max(0, now - self.baseline_anon_kb)

    def _unmapped_kb(self, pids: list[int]) -> int:
        grown = self._charged_kb() - self.baseline_kb
        if grown <= 0:
            return 0
        return max(0, grown - mapped_kb(pids))

    def _kernel_grown_kb(self) -> int:
        now = kernel_kb()
        if now is None or self.baseline_kernel_kb is None:
            return 0
        return max(0, now - self.baseline_kernel_kb)

    def _charged_kb(self, stats: MemoryStats | None = None) -> int:
        # What the program prints lands in the agent's memfds: output, with its own limit.
        output_kb = sum(os.fstat(fd).st_blocks // 2 for fd in self.output_fds)
        return shared_kb(stats) - output_kb


def cgroup_usage_kb() -> int | None:
    """All the memory the sandbox's cgroup is charged for, or ``None`` without a cgroup."""
    for path in CGROUP_MEMORY_USAGE:
        try:
            return int(procfs.read_file(path)) // 1024
        except (OSError, ValueError):
            continue
    return None


def kernel_kb() -> int | None:
    """Kernel memory the sandbox's cgroup is charged for, or ``None`` without a cgroup."""
    try:
        return int(procfs.read_file(CGROUP_KMEM_USAGE)) // 1024
    except (OSError, ValueError):
        pass
    try:
        stats = procfs.read_file(CGROUP_V2_STATS)
    except OSError:
        return None
    kernel = procfs.field_kb(stats, b"kernel ")  # in bytes here, not kB
    if not kernel:
        kernel = sum(procfs.field_kb(stats, part) for part in _V2_KERNEL_PARTS)
    return (kernel + procfs.field_kb(stats, b"sock ")) // 1024


# The sandbox cgroup's memory.stat, and the name of its anonymous memory there.
MemoryStats = tuple[bytes, bytes]


def memory_stats() -> MemoryStats | None:
    """The sandbox cgroup's memory.stat (v1, v2), or None without a cgroup."""
    for path, anon_name in zip(CGROUP_MEMORY_STATS, (b"rss ", b"anon "), strict=False):
        try:
            return procfs.read_file(path), anon_name
        except OSError:
            continue
    return None


def anon_kb(stats: MemoryStats | None = None) -> int | None:
    """Anonymous memory the sandbox's cgroup is charged for (v1's rss, v2's anon), or None."""
    stats = stats or memory_stats()
    if stats is None:
        return None
    try:
        return procfs.field_kb(stats[0], stats[1]) // 1024  # in bytes here
    except (ValueError, IndexError):
        return None


def shared_kb(stats: MemoryStats | None = None) -> int:
    """Shared memory in the sandbox (SysV segments, /dev/shm files, memfds, shared anonymous
    pages) but for the files in /work and /tmp."""
    stats = stats or memory_stats()
    if stats is not None:
        charged = procfs.field_kb(stats[0], b"shmem ")  # in bytes here, not kB
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
            total += procfs.field_kb(procfs.read_file(f"/proc/{pid}/status"), b"RssShmem:")
        except (OSError, ValueError, IndexError):
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
        text = procfs.read_all(f"/proc/sysvipc/{kind}")
    except OSError:
        return []
    return [row.split() for row in text.decode().splitlines()[1:]]
