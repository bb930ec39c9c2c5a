"""Watching one spawned program: wall, CPU, memory and output limits, enforced while it runs.

The agent spawns a program through a helper and calls :func:`watch` with the helper's channel,
which becomes readable when the program has ended (the helper reports its exit). Everything
else the loop knows it reads from /proc and the job's cgroup. Standard library only: this
module runs inside the sandbox.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable

from judge_service.sandbox.agent import ipc, procfs, wire

KILL_GRACE_S = 2.0
SWARM_PROCESSES = 16


class ProcessWatch:
    """What the watch loop learned about one process."""

    def __init__(self) -> None:
        self.status = 0
        self.cpu_ms = 0.0
        self.wall_ms = 0.0
        self.peak_kb = 0
        self.killed_for = ""
        # How long the host kept the job waiting for a CPU (what its threads waited, at most
        # the time its processes were off a CPU), read at the wall deadline: high means the
        # host was busy, not that the program was slow.
        self.cpu_wait_ms = 0.0
        self.orphan_cpu_ms = 0.0
        # All the CPU the job's processes used, reaped by whoever (see procfs.JobCpuClock).
        self.job_cpu_ms = 0.0
        self.lost = ""
        # No process of the job was left when it ended (none can have started since).
        self.none_left = False
        # The kernel's OOM killer took one of the job's processes: at the sandbox's own cap, or
        # at the cap on every sandbox together (the host's doing), which the kernel does not
        # tell apart; the sandbox's peak does (see procfs.stopped_for_others).
        self.oom_killed = False
        self.stopped_for_others = False


def watch(
    pid: int,
    wait_fd: int,
    started: float,
    limits: wire.Limits,
    cap_fds: list[int],
    beyond_rss: ipc.MemoryBeyondRss,
    clock: procfs.JobCpuClock,
    job_pids: Callable[[], list[int]],
    runner: bool = False,
) -> ProcessWatch:
    """Wait for exit while enforcing wall, CPU and memory limits; kill on a breach.

    The wall clock stops what sleeps or blocks, not what the host starves: the deadline
    moves on by the time the job's threads waited for a CPU, but never by more than the
    time its processes did not spend on a CPU (waiting caused by its own processes is
    their CPU time, which the CPU limit stops)."""
    watch = ProcessWatch()
    cpu_limit_s = limits["cpu_ms"] / 1000.0
    wall_s = limits["wall_ms"] / 1000.0
    wall_deadline = started + wall_s
    wall_cap = started + wall_s * limits.get("starved_wall_factor", 1.0)
    if "starved_until" in limits:  # the caller's deadline: an answer in time, marked "wall"
        wall_cap = max(wall_deadline, min(wall_cap, limits["starved_until"]))
    cpu_check_at = started + cpu_limit_s
    poll_interval = 0.002
    next_poll = started + poll_interval
    memory_limit_kb = limits["memory_kb"]
    while True:
        now = time.monotonic()
        timeout = max(0.0, min(wall_deadline, cpu_check_at, next_poll) - now)
        if select.select([wait_fd], [], [], timeout)[0]:
            break
        now = time.monotonic()
        if now >= wall_deadline:
            pids = job_pids()
            used = job_cpu_s(pids, clock)
            if used >= cpu_limit_s:
                watch.killed_for = "cpu"
            # A swarm waits on its own processes, not on a busy host.
            elif len(pids) <= SWARM_PROCESSES:
                # Threads come and go (a JVM's compiler threads), and their waits with them:
                # the largest estimate so far stands.
                waited_s = min(procfs.run_delay_ms(pids) / 1000.0, now - started - used)
                watch.cpu_wait_ms = max(watch.cpu_wait_ms, waited_s * 1000.0)
                wall_deadline = min(started + wall_s + watch.cpu_wait_ms / 1000.0, wall_cap)
            if now >= wall_deadline and not watch.killed_for:
                watch.killed_for = "wall"
        if now >= cpu_check_at and not watch.killed_for:
            used = job_cpu_s(job_pids(), clock)
            if used >= cpu_limit_s:
                watch.killed_for = watch.killed_for or "cpu"
            cpu_check_at = now + max(cpu_limit_s - used, 0.005)
        if now >= next_poll:
            pids = [other for other in job_pids() if not (runner and other == pid)]
            rss = procfs.memory_kb(pids, memory_limit_kb)
            if len(pids) > procfs.PSS_MAX_PROCESSES:  # a swarm: counted from the cgroup
                rss = max(rss, beyond_rss.anon_grown_kb())
            rss += beyond_rss.beyond_rss_kb(pids, rss, memory_limit_kb)
            watch.peak_kb = max(watch.peak_kb, rss)
            if rss > memory_limit_kb:
                watch.killed_for = watch.killed_for or "memory"
            # A program may lower its oom_score_adj from 1000 back to the agent's 0; then, with
            # its memory in the kernel, the OOM killer at the container's cap could take the
            # agent. Read only under memory pressure: a program at ease never pays for it.
            elif rss * 2 > memory_limit_kb and procfs.oom_score_lowered(pids):
                watch.killed_for = watch.killed_for or "oom_score"
            if any(os.fstat(fd).st_size > limits["output_bytes"] for fd in cap_fds):
                watch.killed_for = watch.killed_for or "output"
            poll_interval = min(poll_interval * 2, 0.02)
            next_poll = now + poll_interval
        if watch.killed_for:
            procfs.kill(pid)
            select.select([wait_fd], [], [], KILL_GRACE_S)
            break
    watch.wall_ms = (time.monotonic() - started) * 1000.0
    # Children the program left running (or unreaped) count too: sampled before they die,
    # with what it left in shared and kernel memory (a /dev/shm file, a file's xattrs outlive
    # their writer).
    left = job_pids()
    watch.none_left = not left
    others = [other for other in left if other != pid]
    left_kb = procfs.memory_kb(others, memory_limit_kb)
    left_kb += beyond_rss.beyond_rss_kb(others, max(left_kb, watch.peak_kb), memory_limit_kb)
    watch.peak_kb = max(watch.peak_kb, left_kb)
    cpu_s = procfs.usage(others)[1]
    watch.orphan_cpu_ms = cpu_s * 1000.0
    watch.job_cpu_ms = (clock.used_s() or 0.0) * 1000.0
    return watch


def below_the_agent(pid: int) -> None:
    """Run the job's process at the lowest priority in its container (its children inherit it):
    a fork bomb of 128 processes must not starve the agent that has to stop it. Limits are CPU
    time, so this changes no verdict. (The zygote's children lower themselves before the
    program starts; a spawned one may have forked before this lands, which only costs speed.)"""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, 19)
    except OSError:
        pass


def job_cpu_s(pids: list[int], clock: procfs.JobCpuClock) -> float:
    """The job's CPU seconds so far: its cgroup's count, or what its live processes say."""
    return max(procfs.usage(pids)[1], clock.used_s() or 0.0)
