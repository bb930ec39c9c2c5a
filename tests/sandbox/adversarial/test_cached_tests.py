"""Test data the agent keeps between jobs (agent/testdata.py): a program can neither read the
expected outputs kept for later jobs nor change the tests a later job runs, and a test sent
again after eviction or a miss is judged as the first time.

See tests/sandbox/adversarial/_attack.py for what every test checks."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator

import pytest

from judge_service.sandbox import _jobs
from judge_service.sandbox.agent import testdata, wire
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job
from judge_service.sandbox.pool import SandboxPool
from judge_service.sandbox.sandbox import Sandbox
from judge_service.sandbox.validation import validate_job
from tests.sandbox.adversarial._attack import AC, WA, dedent, describe, expect, judge

pytestmark = pytest.mark.integration

SUM = "print(sum(map(int, input().split())))\n"
SUM_TESTS = [{"input": "1 2\n", "output": "3"}, {"input": "40 2\n", "output": "42"}]
# Kept as bytes (copied into each test's stdin) and, past testdata.SEAL_FROM, as a sealed
# memfd each test gets a read-only descriptor of.
PADDING = {"small": "", "large": " " * (testdata.SEAL_FROM + 1) + "\n"}


@pytest.fixture
def frames(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """(op, test data entries, blob bytes) of every frame a sandbox is sent."""
    sent: list[tuple[str, int, int]] = []
    request = Sandbox.request

    def recording(
        self: Sandbox, header: wire.HostFrame, blob: bytes = b"", *, timeout: float
    ) -> tuple[wire.AgentFrame, bytes]:
        entries = header.get("test_data", []) if header["op"] == "job" else []
        sent.append((header["op"], len(entries), len(blob)))
        return request(self, header, blob, timeout=timeout)

    monkeypatch.setattr(Sandbox, "request", recording)
    return sent


@pytest.fixture
def small_cache_pool() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1, test_cache_mb=1)) as pool:
        yield pool


# ==== reading ===============================================================================
SEARCH = dedent(
    """
    import os, subprocess
    marker = "CACHED" + "-SECRET-"
    found = []
    roots = [root for root in ("/", "/work", "/tmp", "/dev/shm") if os.path.exists(root)]
    argv = ["grep", "-rlsaF", "--exclude-dir=proc", "--exclude-dir=sys", "-e", marker] + roots
    found += subprocess.run(argv, capture_output=True, text=True).stdout.split()
    mine = str(os.getpid())  # its own memory holds the marker
    for pid in [name for name in os.listdir("/proc") if name.isdigit() and name != mine]:
        places = ["environ", "cmdline"]
        try:
            places += ["fd/" + fd for fd in os.listdir("/proc/%s/fd" % pid)]
        except OSError:
            pass
        for place in places:
            try:
                with open("/proc/%s/%s" % (pid, place), "rb") as handle:
                    if marker.encode() in handle.read(1 << 26):
                        found.append("/proc/%s/%s" % (pid, place))
            except OSError:
                continue
        try:
            with open("/proc/%s/maps" % pid) as maps, open("/proc/%s/mem" % pid, "rb") as mem:
                for line in maps:
                    start, end = (int(part, 16) for part in line.split()[0].split("-"))
                    try:
                        mem.seek(start)
                        if marker.encode() in mem.read(end - start):
                            found.append("/proc/%s/mem" % pid)
                    except (OSError, ValueError, OverflowError):
                        continue
        except OSError:
            continue
    found = [path for path in found if path not in ("/work/main.py",)]
    print(" ".join(sorted(set(found))) or "none")
    """
)


def test_a_program_cannot_find_the_expected_outputs_kept_for_later_jobs(
    spool: SandboxPool,
) -> None:
    kept = "CACHED-SECRET-" + uuid.uuid4().hex  # kept from an earlier job
    pending = "CACHED-SECRET-" + uuid.uuid4().hex  # this job's next test's
    honest = judge(spool, "python", f"print({kept!r})", [{"input": "", "output": kept}])
    expect(honest, AC)
    tests = [{"input": "", "output": "none"}, {"input": "", "output": pending}]
    result = judge(spool, "python", SEARCH, tests, limits={"time_limit_ms": 10000})
    assert result.tests[0].verdict is AC, describe(result)
    assert kept not in result.tests[0].stdout and pending not in result.tests[0].stdout


# ==== changing =============================================================================
TAMPER = {
    # Write over its own stdin: the descriptor the judge gave it, then a fresh open of it.
    "stdin": """
        import os
        data = os.read(0, 1 << 20)
        fds = [0]
        try:
            os.fchmod(0, 0o666)  # its uid owns the memfd
            fds.append(os.open("/proc/self/fd/0", os.O_RDWR))
        except OSError:
            pass
        for fd in fds:
            try:
                os.lseek(fd, 0, 0); os.write(fd, b"999 999\\n" * 64); os.ftruncate(fd, 3)
            except OSError:
                pass
        print(sum(map(int, data.split())))
        """,
    # Map its stdin shared and writable, and scribble over the pages.
    "mmap": """
        import mmap, os
        data = os.read(0, 1 << 20)
        try:
            os.ftruncate(0, 4096)
            view = mmap.mmap(0, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            view[:8] = b"7777777\\n"
        except (OSError, ValueError):
            pass
        print(sum(map(int, data.split())))
        """,
    # Plant files named by the tests' content keys wherever a cache could be, and try to
    # signal the judge.
    "plant": """
        import hashlib, os, signal, sys
        data = sys.stdin.buffer.read()
        names = [hashlib.sha256(data).hexdigest(), hashlib.sha256(b"3").hexdigest()]
        for directory in ("/work", "/tmp", "/dev/shm", "/work/.cache", "/tmp/tests"):
            try:
                os.makedirs(directory, exist_ok=True)
                for name in names:
                    with open(os.path.join(directory, name), "wb") as handle:
                        handle.write(b"0 0\\n")
            except OSError:
                pass
        for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGUSR1):
            try:
                os.kill(1, sig)
            except OSError:
                pass
        print(sum(map(int, data.split())))
        """,
}


@pytest.mark.parametrize("size", sorted(PADDING))
@pytest.mark.parametrize("attack", sorted(TAMPER))
def test_a_program_cannot_change_the_tests_a_later_job_runs(
    spool: SandboxPool, frames: list[tuple[str, int, int]], attack: str, size: str
) -> None:
    tests = [{**test, "input": test["input"] + PADDING[size]} for test in SUM_TESTS]
    expect(judge(spool, "python", SUM, tests), AC)  # the tests are now kept
    expect(judge(spool, "python", dedent(TAMPER[attack]), tests), AC)
    honest = judge(spool, "python", SUM, tests)
    wrong = judge(spool, "python", "input()\nprint(3)\n", tests)
    expect(honest, AC)
    assert [test.verdict for test in wrong.tests] == [AC, WA], describe(wrong)
    # The later jobs ran on the kept tests (the frames carried no test data).
    assert [entries for op, entries, _ in frames[-2:]] == [0, 0]


# ==== sent again ============================================================================
def _sum_job(seed: int) -> Job:
    """A job of about 750 kB of test data: two tests, the second one's expected output wrong
    for the sum (so the job's verdict depends on each test's data)."""
    rng = random.Random(seed)
    values = [rng.randrange(10_000) for _ in range(75_000)]
    text = " ".join(map(str, values)) + "\n"
    tests = [
        {"input": text, "output": str(sum(values))},
        {"input": text + "1\n", "output": str(sum(values) + 2)},
    ]
    code = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"
    return Job(language="python", code=code, tests=tests, limits={"time_limit_ms": 5000})


def test_tests_evicted_and_sent_again_get_the_same_verdicts(
    small_cache_pool: SandboxPool, frames: list[tuple[str, int, int]]
) -> None:
    first, second = _sum_job(1), _sum_job(2)
    results = [small_cache_pool.judge(job) for job in (first, second, first, first)]
    verdicts = [[test.verdict for test in result.tests] for result in results]
    assert verdicts == [[AC, WA]] * 4, [describe(result) for result in results]
    jobs = [entries for op, entries, _ in frames if op == "job"]
    # 1 MiB holds one job's data: the second evicts some of the first's, which is sent
    # again (only what went), and the last job finds all of it kept.
    assert jobs[0] == 4 and jobs[1] == 4 and 0 < jobs[2] < 4 and jobs[3] == 0, frames


def test_a_miss_is_sent_again_and_judged_the_same(
    spool: SandboxPool, frames: list[tuple[str, int, int]]
) -> None:
    spool.judge(Job(language="python", code="print(1)", tests=[{"input": "", "output": "1"}]))
    (sandbox,) = spool._pools["python"].idle
    job = _sum_job(3)
    settings = spool.settings
    header, _, data = _jobs.agent_header(job, validate_job(job, settings), settings, None)
    keys = testdata.job_keys(header["tests"])
    # The host believes the agent holds data it was never sent (as after an agent restart).
    spool._held_index(sandbox).admit(keys, {key: (data[key].size, None) for key in keys}, 1 << 30)
    before = len(frames)
    result = spool.judge(job)
    assert [t.verdict for t in result.tests] == [AC, WA], describe(result)
    # A miss (nothing ran), then the job again with the data it lacked.
    assert [(op, entries) for op, entries, _ in frames[before:]] == [("job", 0), ("job", 4)]
    assert [t.verdict for t in spool.judge(job).tests] == [AC, WA]
    assert frames[-1][1] == 0
