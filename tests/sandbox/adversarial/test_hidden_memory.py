"""Memory a program holds outside its processes' RSS: SysV segments, /dev/shm files, memfds.

Each is charged to the sandbox's memory cgroup but shows in no process's resident set when it
is not mapped (or mapped a window at a time), so it used to pass a 256 MB limit with 1 GB, stay
behind for the next test and push the judge itself into the container's cap (SE). Here it is
the test's memory (MLE), and nothing of it reaches the next test or the next job.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import JobResult
from judge_service.sandbox.pool import SandboxPool
from judge_service.sandbox.sandbox import ipc_sysctls
from tests.sandbox.adversarial._attack import (
    AC,
    MLE,
    assert_next_job_clean,
    dedent,
    describe,
    expect,
    judge,
)

pytestmark = pytest.mark.integration

LIBC = dedent(
    """
    import ctypes, os, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    IPC_CREAT, MADV_DONTNEED, PR_SET_DUMPABLE = 0o1000, 4, 4

    def segments():
        with open("/proc/sysvipc/shm") as table:
            return len(table.read().splitlines()) - 1
    """
)


@pytest.fixture(scope="module")
def spool() -> Iterator[SandboxPool]:
    # One sandbox: consecutive jobs land in the container the previous one used.
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool


def verdicts(result: JobResult) -> list[str]:
    return [test.verdict.value for test in result.tests]


def test_sysv_segment_touched_a_window_at_a_time_is_memory(spool: SandboxPool) -> None:
    """1 GB segment attached, touched 16 MB at a time (each window dropped from the process's
    RSS with MADV_DONTNEED, so its RSS stays small) and detached, under a 256 MB limit."""
    code = LIBC + dedent(
        """
        if input() == "hog":
            size, window = 1 << 30, 16 << 20
            shmid = libc.shmget(0, size, IPC_CREAT | 0o600)
            if shmid < 0:
                raise SystemExit("shmget failed: errno %d" % ctypes.get_errno())
            base = libc.shmat(shmid, None, 0)
            for offset in range(0, size, window):
                ctypes.memset(base + offset, 1, window)
                libc.madvise(base + offset, window, MADV_DONTNEED)
            libc.shmdt(base)
            print("done")
        else:
            print("segments", segments())
        """
    )
    tests = [{"input": "hog\n", "output": "done"}, {"input": "probe\n", "output": "segments 0"}]
    result = judge(spool, "python", code, tests, limits={"time_limit_ms": 5000})
    assert verdicts(result) == ["MLE", "AC"], describe(result)
    assert result.tests[0].memory_kb > 256 * 1024, describe(result)
    assert_next_job_clean(spool, "python")


def test_ipc_objects_left_by_a_test_are_gone_in_the_next(spool: SandboxPool) -> None:
    """Test 1 creates a keyed segment (touched, never removed), a message queue and semaphores
    and exits; test 2 of the same job looks them up by key."""
    code = LIBC + dedent(
        """
        KEYS = (0x4A551, 0x4A552, 0x4A553)
        if input() == "plant":
            shmid = libc.shmget(KEYS[0], 8 << 20, IPC_CREAT | 0o600)
            ctypes.memset(libc.shmat(shmid, None, 0), 7, 8 << 20)
            libc.msgget(KEYS[1], IPC_CREAT | 0o600)
            libc.semget(KEYS[2], 4, IPC_CREAT | 0o600)
            with open("/dev/shm/left", "w") as handle:
                handle.write("x")
            print("planted")
        else:
            found = [
                libc.shmget(KEYS[0], 0, 0) >= 0,
                libc.msgget(KEYS[1], 0) >= 0,
                libc.semget(KEYS[2], 0, 0) >= 0,
                bool(os.listdir("/dev/shm")),
            ]
            print("found", sum(found))
        """
    )
    tests = [{"input": "plant\n", "output": "planted"}, {"input": "reuse\n", "output": "found 0"}]
    result = judge(spool, "python", code, tests)
    assert verdicts(result) == ["AC", "AC"], describe(result)
    assert_next_job_clean(spool, "python")


def test_dev_shm_files_are_memory(spool: SandboxPool) -> None:
    """48 MB written into /dev/shm a megabyte at a time (never mapped) under a 32 MB limit."""
    code = LIBC + dedent(
        """
        if input() == "hog":
            with open("/dev/shm/hoard", "wb") as handle:
                for _ in range(48):
                    handle.write(b"s" * (1 << 20))
            time.sleep(0.3)
            print("done")
        else:
            print("files", len(os.listdir("/dev/shm")))
        """
    )
    tests = [{"input": "hog\n", "output": "done"}, {"input": "probe\n", "output": "files 0"}]
    result = judge(spool, "python", code, tests, limits={"memory_limit_mb": 32})
    assert verdicts(result) == ["MLE", "AC"], describe(result)
    assert_next_job_clean(spool, "python")


def test_memfd_memory_is_counted_even_when_the_program_hides_its_descriptors(
    spool: SandboxPool,
) -> None:
    """256 MB written into memfds (never mapped; 32 MB each, below the file size limit) under a
    64 MB limit, by a process that made itself non-dumpable, so the judge cannot list its file
    descriptors."""
    code = LIBC + dedent(
        """
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        hoard = [os.memfd_create("hoard") for _ in range(8)]
        for fd in hoard:
            for _ in range(32):
                os.write(fd, b"m" * (1 << 20))
        time.sleep(0.3)
        print("done")
        """
    )
    result = judge(
        spool, "python", code, [{"input": "", "output": "done"}], limits={"memory_limit_mb": 64}
    )
    expect(result, MLE)
    assert_next_job_clean(spool, "python")


def test_mapped_shared_memory_is_counted_once(spool: SandboxPool) -> None:
    """160 MB of shared anonymous memory, touched: in the RSS and in the cgroup's shared
    memory both, so counting it twice would exceed the 256 MB limit."""
    code = LIBC + dedent(
        """
        import mmap
        size = 160 << 20
        area = mmap.mmap(-1, size, flags=mmap.MAP_SHARED)
        for offset in range(0, size, 1 << 20):
            area[offset : offset + (1 << 20)] = b"a" * (1 << 20)
        time.sleep(0.3)
        print("done")
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "done"}])
    expect(result, AC)
    assert 160 * 1024 < result.tests[0].memory_kb < 256 * 1024, describe(result)


def test_ipc_beyond_the_sandbox_limits_is_refused(spool: SandboxPool) -> None:
    """A segment larger than the largest memory limit, and message queues and semaphore sets
    (kernel memory no process's RSS shows) past the sandbox's small allowance."""
    limits = ipc_sysctls(SandboxConfig())
    code = LIBC + dedent(
        """
        big = libc.shmget(0, 1 << 31, IPC_CREAT | 0o600)
        queues = 0
        while queues < 5000 and libc.msgget(0, IPC_CREAT | 0o600) >= 0:
            queues += 1
        sets = 0
        while sets < 5000 and libc.semget(0, 1, IPC_CREAT | 0o600) >= 0:
            sets += 1
        print("segment" if big >= 0 else "refused", queues, sets)
        """
    )
    expected = f"refused {limits['kernel.msgmni']} {limits['kernel.sem'].split()[3]}"
    result = judge(spool, "python", code, [{"input": "", "output": expected}])
    expect(result, AC)
    assert_next_job_clean(spool, "python")
