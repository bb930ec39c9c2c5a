"""Test data that travels once (agent/testdata.py): the bounded LRU both sides keep, and the
pool's half of the protocol against the agent's own code (a miss is resent, never judged)."""

from __future__ import annotations

import fcntl
import mmap
import os
from typing import Any

import pytest

from judge_service.sandbox import _jobs
from judge_service.sandbox.agent import testdata, wire
from judge_service.sandbox.agent.agent import Agent
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxCrashed
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB, validate_job


def _sized(*keys: str, size: int = 10) -> dict[str, tuple[int, str]]:
    return {key: (size, key) for key in keys}


def test_admit_keeps_what_fits_and_drops_the_least_recently_used() -> None:
    lru: testdata.Lru[str] = testdata.Lru()
    assert lru.admit(["a", "b"], _sized("a", "b"), bound=30) == []
    assert lru.admit(["c"], _sized("c"), bound=30) == []
    assert lru.admit(["a"], {}, bound=30) == []  # a is used again: b is now the oldest
    assert lru.admit(["d"], _sized("d"), bound=30) == ["b"]
    assert list(lru.entries) == ["c", "a", "d"] and lru.bytes == 30


def test_a_job_larger_than_the_bound_keeps_only_its_last_data() -> None:
    lru: testdata.Lru[str] = testdata.Lru()
    lru.admit(["a"], _sized("a"), bound=25)
    dropped = lru.admit(["b", "c", "d"], _sized("b", "c", "d"), bound=25)
    assert dropped == ["a", "b"] and list(lru.entries) == ["c", "d"]
    assert lru.admit(["e"], _sized("e"), bound=0) == ["c", "d", "e"]
    assert len(lru) == 0 and lru.bytes == 0


def test_job_keys_name_each_content_once_in_test_order() -> None:
    tests: list[wire.TestSpec] = [
        {"input_key": "i1", "output_key": "o"},
        {"input_key": "o", "output_key": "o"},
        {"input_key": "i1", "output_key": "o2"},
    ]
    assert testdata.job_keys(tests) == ["i1", "o", "o2"]


def test_stdin_tests_travel_as_keys_and_the_same_content_once() -> None:
    job = Job(
        language="python",
        code="print(input())",
        tests=[{"input": "same\n", "output": "same"}, {"input": "same\n", "output": "other"}],
    )
    header, _, data = _jobs.agent_header(
        job, validate_job(job, SandboxConfig()), SandboxConfig(), None
    )
    assert all("input" not in test and "output" not in test for test in header["tests"])
    assert header["tests"][0]["input_key"] == header["tests"][1]["input_key"]
    assert sorted(content.encoded() for content in data.values()) == [b"other", b"same", b"same\n"]
    assert all(testdata.key_of(content.encoded()) == key for key, content in data.items())


class _AgentSandbox:
    """A sandbox whose agent is the real agent's test-data code (no container): it answers a
    job with one AC per test and records the bytes each test got."""

    def __init__(self) -> None:
        self.agent = Agent.__new__(Agent)
        self.agent.test_cache = testdata.Lru()
        self.agent.job_data = {}
        self.agent.dropped = []
        self.frames: list[tuple[dict[str, Any], int]] = []
        self.seen: list[list[tuple[bytes, bytes]]] = []
        self.jobs_run = 0
        self.closed = False

    def request(self, header: Any, blob: bytes = b"", *, timeout: float) -> tuple[Any, bytes]:
        self.frames.append((header, len(blob)))
        missing = self.agent._take_test_data(header, blob)
        if missing:
            return {"op": "missing", "keys": missing}, b""
        self.seen.append(
            [
                (
                    self.agent._test_bytes(test, output=False),
                    self.agent._test_bytes(test, output=True),
                )
                for test in header["tests"]
            ]
        )
        testdata.release(self.agent.dropped)
        self.agent.job_data, self.agent.dropped = {}, []
        report = {"verdict": "AC", "message": "", "time_ms": 1.0, "wall_ms": 1.0, "memory_kb": 1}
        tests = [dict(report) for _ in header["tests"]]
        return {"op": "result", "compile": None, "tests": tests, "reset_error": ""}, b""

    def close(self) -> None:
        self.closed = True


def _pool(**settings: Any) -> tuple[SandboxPool, list[_AgentSandbox]]:
    sandboxes: list[_AgentSandbox] = []

    def start(language: str) -> Any:
        sandboxes.append(_AgentSandbox())
        return sandboxes[-1]

    config = SandboxConfig(sandboxes_per_language=1, sandbox_idle_s=0, **settings)
    return SandboxPool(config, sandbox_factory=start), sandboxes


def _job(*contents: str) -> Job:
    tests = [{"input": content, "output": content.upper()} for content in contents]
    return Job(language="python", code="print(input().upper())", tests=tests)


def _expected(job: Job) -> list[tuple[bytes, bytes]]:
    return [(test.input.encode(), (test.output or "").encode()) for test in job.tests]


def test_a_sandbox_gets_a_problems_tests_once() -> None:
    pool, sandboxes = _pool()
    job = _job("x" * 5000, "y" * 5000)
    for _ in range(3):
        assert pool.judge(job).verdict is Verdict.AC
    (sandbox,) = sandboxes
    first, *later = sandbox.frames
    assert len(first[0]["test_data"]) == 4 and first[1] == 20000
    assert all("test_data" not in header and size == 0 for header, size in later)
    assert sandbox.seen == [_expected(job)] * 3


def test_a_miss_is_resent_and_judged_with_the_right_data() -> None:
    pool, sandboxes = _pool()
    job = _job("first", "second")
    pool.judge(job)
    (sandbox,) = sandboxes
    sandbox.agent.test_cache = testdata.Lru()  # the agent lost what the host thinks it holds
    assert pool.judge(job).verdict is Verdict.AC
    missed, resent = sandbox.frames[1:]
    assert missed[1] == 0 and "test_data" not in missed[0]
    assert {entry["key"] for entry in resent[0]["test_data"]} == set(
        testdata.job_keys(resent[0]["tests"])
    )
    assert sandbox.seen[-1] == _expected(job)
    pool.judge(job)
    assert "test_data" not in sandbox.frames[-1][0] and len(sandbox.frames) == 4


def test_the_host_knows_what_the_agent_evicted_and_sends_it_again() -> None:
    pool, sandboxes = _pool(test_cache_mb=1)
    big_a, big_b = _job("a" * 300_000), _job("b" * 300_000)  # 600 kB each with the output
    for job in (big_a, big_b, big_a):
        assert pool.judge(job).verdict is Verdict.AC
    (sandbox,) = sandboxes
    # 1.2 MB do not fit in 1 MiB: the oldest entry (a's input) went, and only it travels
    # again; no frame was answered with a miss (3 frames for 3 jobs): the host knew.
    assert [size for _, size in sandbox.frames] == [600_000, 600_000, 300_000]
    assert sandbox.seen == [_expected(big_a), _expected(big_b), _expected(big_a)]
    assert set(sandbox.agent.test_cache.entries) == set(pool._held_index(sandbox).entries)


def test_a_job_needing_all_the_memory_runs_with_nothing_kept() -> None:
    # A sandbox whose memory the largest limit takes whole, but for the agent's own overhead.
    largest = 1024
    pool, sandboxes = _pool(
        sandbox_memory_mb=largest + SANDBOX_OVERHEAD_MB + LANGUAGES["python"].rss_allowance_mb
    )
    limits = {"memory_limit_mb": largest, "compile_memory_limit_mb": 512}
    job = Job.model_validate({**_job("x").model_dump(), "limits": limits})
    pool.judge(
        Job.model_validate(
            {**_job("kept").model_dump(), "limits": limits | {"memory_limit_mb": 64}}
        )
    )
    pool.judge(job)
    pool.judge(job)
    (sandbox,) = sandboxes
    assert len(sandbox.agent.test_cache) == 0
    assert [size for _, size in sandbox.frames] == [8, 2, 2]


def test_an_agent_that_misses_twice_is_a_crashed_sandbox() -> None:
    pool, sandboxes = _pool()

    def always_missing(header: Any, blob: bytes = b"", *, timeout: float) -> tuple[Any, bytes]:
        return {"op": "missing", "keys": testdata.job_keys(header["tests"])}, b""

    pool.judge(_job("warm"))
    sandboxes[0].request = always_missing  # type: ignore[method-assign]
    with pytest.raises(SandboxCrashed):
        pool.judge(_job("cold"))
    assert sandboxes[0].closed


def test_a_large_content_is_kept_sealed_and_each_reader_starts_at_its_beginning() -> None:
    data = b"12 34\n" * (testdata.SEAL_FROM // 4)
    kept = testdata.keep(data)
    assert isinstance(kept, int) and kept >= 100
    try:
        first = testdata.reader(kept)
        os.read(first, 10)
        os.fchmod(kept, 0)  # what a program of the same uid could do to the inode
        second = testdata.reader(kept)
        assert os.read(second, 6) == b"12 34\n"
        for fd in (first, second):
            with pytest.raises(OSError):
                os.write(fd, b"x")
            with pytest.raises(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)
        writable = os.open(f"/proc/self/fd/{kept}", os.O_RDWR)
        with pytest.raises(PermissionError):
            os.write(writable, b"99")
        with pytest.raises(PermissionError):
            mmap.mmap(writable, 4096, mmap.MAP_SHARED, mmap.PROT_WRITE)
        with pytest.raises(PermissionError):
            fcntl.fcntl(writable, fcntl.F_ADD_SEALS, 0)  # sealed against new seals too
        os.close(writable)
        assert testdata.content(kept) == data
    finally:
        testdata.release([kept])
    with pytest.raises(OSError):
        os.fstat(kept)
    assert testdata.keep(b"small") == b"small"
