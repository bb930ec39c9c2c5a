"""What /proc and wait statuses say about the job's processes: memory, CPU, limits,
scheduling, exit codes. Standard library only (sent to the agent)."""

from __future__ import annotations

import os
import resource
import signal
import time

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PSS_MAX_PROCESSES = 16


def exit_code(status: int) -> int | None:
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else None


def signal_of(status: int) -> int | None:
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else None


# The limits whose lowering would break the agent or a helper mid-job.
WATCHED_LIMITS = [
    resource.RLIMIT_CPU,
    resource.RLIMIT_FSIZE,
    resource.RLIMIT_NOFILE,
    resource.RLIMIT_AS,
    resource.RLIMIT_DATA,
    resource.RLIMIT_STACK,
    resource.RLIMIT_NPROC,
    resource.RLIMIT_MEMLOCK,
]


def limits_of(pid: int) -> list[tuple[int, int]]:
    try:
        return [resource.prlimit(pid, limit) for limit in WATCHED_LIMITS]
    except OSError:
        return []


def scheduling_of(pid: int) -> tuple[int, frozenset[int], int] | None:
    """Nice value, CPU affinity and scheduling policy (SCHED_IDLE slows every later program of
    the sandbox as much as a raised nice value does)."""
    try:
        return (
            os.getpriority(os.PRIO_PROCESS, pid),
            frozenset(os.sched_getaffinity(pid)),
            os.sched_getscheduler(pid),
        )
    except OSError:
        return None


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_and_reap(pid: int) -> None:
    """SIGKILL a child of this process and wait for it (gone already: nothing to do)."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def read_file(path: str, size: int = 1 << 16) -> bytes:
    """The first ``size`` bytes of a /proc or cgroup file. Raw: ``open()`` builds a buffered
    text stream per call, ten times the cost of the read itself, and the watch loop reads
    several files per poll."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def read_all(path: str) -> bytes:
    """The whole of a /proc file of any length (a table with a row per IPC object), raw like
    :func:`read_file`: reads until end of file, since one read returns what the kernel's buffer
    held."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def field_kb(data: bytes, name: bytes) -> int:
    """The number after ``name`` in a ``Name: value kB`` table (0 when absent)."""
    if data.startswith(name):
        start = 0
    else:
        start = data.find(b"\n" + name) + 1
        if not start:
            return 0
    end = data.find(b"\n", start)
    return int(data[start + len(name) : end if end >= 0 else None].split()[0])


def all_pids() -> list[int]:
    # Filtered and converted in C: /proc lists some 50 names besides the pids, and the watch
    # loop and every reset list it several times per test.
    return list(map(int, filter(str.isdigit, os.listdir("/proc"))))


def memory_kb(pids: list[int], limit_kb: int) -> int:
    """Memory of the processes: RSS, or when that exceeds the limit, PSS (forked processes
    share pages, which RSS counts once per process)."""
    rss_kb = usage(pids)[0]
    if rss_kb <= limit_kb or len(pids) < 2:
        return rss_kb
    if len(pids) > PSS_MAX_PROCESSES:
        # A swarm (fork bomb): reading every smaps stalls on their forks; take the largest
        # process and leave the rest to the pids limit and the container's memory cap.
        return max(usage([pid])[0] for pid in pids)
    pss_kb = 0
    for pid in pids:
        try:
            pss_kb += field_kb(read_file(f"/proc/{pid}/smaps_rollup"), b"Pss:")
        except (OSError, ValueError, IndexError):
            continue
    return pss_kb


# Every judged process runs at the OOM killer's first choice (spawner.c, zygote.py).
PROGRAM_OOM_SCORE_ADJ = 1000


def oom_score_lowered(pids: list[int]) -> bool:
    """Whether any of the processes has lowered its oom_score_adj below the programs' 1000."""
    for pid in pids:
        try:
            if int(read_file(f"/proc/{pid}/oom_score_adj")) < PROGRAM_OOM_SCORE_ADJ:
                return True
        except (OSError, ValueError):
            continue
    return False


def usage(pids: list[int]) -> tuple[int, float]:
    """Resident KB and CPU seconds (user + system, threads included) summed over ``pids``."""
    rss_kb, cpu_s = 0, 0.0
    for pid in pids:
        try:
            fields = read_file(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        cpu_s += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        rss_kb += int(fields[21]) * PAGE_KB
    return rss_kb, cpu_s


def run_delay_ms(pids: list[int]) -> float:
    """Milliseconds the threads of ``pids`` spent runnable but waiting for a CPU (schedstat's
    second field), summed. SCHED_IDLE threads are left out: they wait whenever anything else
    wants the CPU, the program's own processes included, so their wait says nothing of the
    host."""
    total_ns = 0
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")  # a JVM or V8 waits on its threads too
        except OSError:
            continue
        for thread in threads:
            try:
                waited = int(read_file(f"/proc/{pid}/task/{thread}/schedstat").split()[1])
                if os.sched_getscheduler(int(thread)) != os.SCHED_IDLE:
                    total_ns += waited
            except (OSError, IndexError, ValueError):
                continue
    return total_ns / 1e6


# cgroup v1, then v2: the sandbox's own cgroup (it runs in a private cgroup namespace).
CGROUP_MEMORY_MAX = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
CGROUP_CPU = ("/sys/fs/cgroup/cpuacct/cpuacct.usage", "/sys/fs/cgroup/cpu.stat")


def cgroup_cpu_s() -> float | None:
    """CPU seconds every process the sandbox's cgroup ever held has used, or ``None``."""
    for path in CGROUP_CPU:
        try:
            data = read_file(path)
        except OSError:
            continue
        if path.endswith("cpu.stat"):
            return field_kb(data, b"usage_usec") / 1e6  # a plain integer field, like the KBs
        return int(data) / 1e9
    return None


def cgroup_memory_max_kb() -> int | None:
    """The sandbox cgroup's memory cap (cgroup v2, then v1), or ``None`` when there is none."""
    for path in CGROUP_MEMORY_MAX:
        try:
            data = read_file(path).strip()
        except OSError:
            continue
        if data == b"max" or not data.isdigit():
            return None
        return int(data) // 1024
    return None


# The sandbox cgroup's OOM kills: v2's memory.events, v1's memory.oom_control.
CGROUP_OOM_KILLS = (
    ("/sys/fs/cgroup/memory.events", b"oom_kill "),
    ("/sys/fs/cgroup/memory/memory.oom_control", b"oom_kill "),
)


def cgroup_oom_kills() -> int | None:
    """How many of the sandbox's processes the kernel's OOM killer has taken (ever; compared
    before and after a test), or ``None`` where unreadable. Which cap it acted for (the
    sandbox's own, or the one on every sandbox together, see ``_cgroup_memory``) the kernel
    does not say: with memory and swap capped alike, v1 counts neither as a failure."""
    for path, name in CGROUP_OOM_KILLS:
        try:
            return field_kb(read_file(path), name)
        except (OSError, ValueError, IndexError):
            continue
    return None


# The sandbox cgroup's memory: v1 with swap accounting (Docker caps memory and swap together),
# v1's memory alone, v2. Each: what it holds now, its highest since the host last reset it (after
# every job), its cap.
CGROUP_MEMORY = (
    tuple(
        f"/sys/fs/cgroup/memory/memory.memsw.{name}"
        for name in ("usage_in_bytes", "max_usage_in_bytes", "limit_in_bytes")
    ),
    tuple(
        f"/sys/fs/cgroup/memory/memory.{name}"
        for name in ("usage_in_bytes", "max_usage_in_bytes", "limit_in_bytes")
    ),
    ("/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.peak", "/sys/fs/cgroup/memory.max"),
)
# Slack in telling who an OOM kill was for: the kernel charges pages in batches of up to 64 and
# a transparent huge page at once (256 KB, 2 MB), and a run holds page tables and kernel stacks
# besides what the agent counts.
OOM_MARGIN = 16 << 20


def cgroup_memory_held() -> int | None:
    """What the sandbox's memory cgroup holds now (bytes), or None where unreadable."""
    for usage, _, _ in CGROUP_MEMORY:
        try:
            return int(read_file(usage))
        except (OSError, ValueError):
            continue
    return None


def stopped_for_others(held_at_start: int | None, entitled: int) -> bool:
    """Whether a run the OOM killer stopped was stopped for the other sandboxes' memory: since
    the host last reset the peak (before the job), its sandbox stayed below its own cap and
    within ``entitled`` bytes above ``held_at_start`` (what it held when the job began). False
    where it cannot be told: a run that may have met its own cap, or taken more than its due,
    keeps its own verdict. (On v2 the host cannot reset the peak for this reader: it is the
    sandbox's highest ever, which only makes a stop look more like its own.)"""
    if held_at_start is None:
        return False
    for _, peak_path, cap_path in CGROUP_MEMORY:
        try:
            peak, cap = int(read_file(peak_path)), read_file(cap_path).strip()
        except (OSError, ValueError):
            continue
        below_cap = not cap.isdigit() or peak < int(cap) - OOM_MARGIN
        return below_cap and peak - held_at_start <= entitled + OOM_MARGIN
    return False


def process_clock(pid: int) -> int:
    """The clock id of ``pid``'s CPU time, all its threads, those that ended included (what
    clock_getcpuclockid(3) returns: CPUCLOCK_SCHED of the process)."""
    return ((~pid) << 3) | 2


def own_cpu_s(pids: list[int]) -> float:
    """CPU seconds ``pids`` have used themselves, every thread (ended ones too), children they
    reaped not. One clock_gettime(2) per process, where listing its threads in /proc and
    reading each one's schedstat took a directory listing and a file per thread."""
    total_ns = 0
    for pid in pids:
        try:
            total_ns += time.clock_gettime_ns(process_clock(pid))
        except OSError:  # gone
            continue
    return total_ns / 1e9


class JobCpuClock:
    """CPU the job's processes have used since the clock started, whoever ran or reaped them:
    the sandbox cgroup's usage minus what the judge's own processes (the agent and its
    helpers) used meanwhile. Counting per process misses a process that reaps its workers and
    is never waited for itself: its children's CPU ends up in no live process's counters."""

    def __init__(self, judge_pids: list[int]) -> None:
        self.judge_pids = judge_pids
        # The judge's clocks first: reading its own clock brings the kernel's accounting of
        # the reading thread (the agent) up to date, its cgroup's too; the helpers, asleep, are
        # up to date already. The other way round, what the agent ran since it last slept
        # (preparing this test) would count as the job's.
        self.judge_start = own_cpu_s(judge_pids)
        self.cgroup_start = cgroup_cpu_s()

    def used_s(self) -> float | None:
        """``None`` without a cgroup to read (then the per-process counts are all there is)."""
        judge = own_cpu_s(self.judge_pids) - self.judge_start
        now = cgroup_cpu_s()
        if now is None or self.cgroup_start is None:
            return None
        return max(0.0, now - self.cgroup_start - judge)


def process_state(pid: int) -> str:
    """The kernel's one-letter state of ``pid`` (R, S, T, Z...), or "gone"."""
    try:
        return read_file(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return "gone"
