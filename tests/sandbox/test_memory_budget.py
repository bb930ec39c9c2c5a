"""The live sandboxes never promise the host more memory than it has: each sandbox holds the
judge's overhead of the budget, each running job its memory limit; past the budget the
longest-idle sandbox of any language is closed, or the newcomer waits
(judge_service/sandbox/_memory_budget.py)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from judge_service.sandbox import _memory_budget
from judge_service.sandbox._memory_budget import MemoryBudget
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxUnavailable
from judge_service.sandbox.models import Job
from judge_service.sandbox.pool import SandboxPool, _job_memory_mb
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB


class _Fake:
    def __init__(self, language: str) -> None:
        self.language = language
        self.closed = False
        self.jobs_run = 0

    def close(self) -> None:
        self.closed = True


def _pool(budget_mb: int) -> tuple[SandboxPool, list[_Fake]]:
    started: list[_Fake] = []

    def start(language: str) -> Any:
        started.append(_Fake(language))
        return started[-1]

    config = SandboxConfig(
        sandboxes_per_language=4, sandbox_memory_budget_mb=budget_mb, sandbox_idle_s=0
    )
    return SandboxPool(config, sandbox_factory=start), started


def test_the_default_budget_is_a_share_of_the_hosts_memory(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24576000 kB\nMemFree:        1000 kB\n")
    assert _memory_budget.host_memory_mb(str(meminfo)) == 24000
    assert int(24000 * _memory_budget.HOST_SHARE) == 19200


def test_a_new_sandbox_past_the_budget_closes_the_longest_idle_one() -> None:
    pool, started = _pool(budget_mb=2 * SANDBOX_OVERHEAD_MB)
    with pool:
        pool.warm(["python"], count=1)
        pool.warm(["cpp"], count=1)
        assert not any(sandbox.closed for sandbox in started)
        pool.warm(["java"], count=1)
        assert [s.language for s in started if s.closed] == ["python"]  # idle the longest
        assert pool.stats.sandboxes_destroyed == 1
        assert pool._budget.reserved_mb == 2 * SANDBOX_OVERHEAD_MB


def test_warm_starts_no_more_than_the_budget_holds() -> None:
    pool, started = _pool(budget_mb=3 * SANDBOX_OVERHEAD_MB)
    with pool:
        pool.warm(["go"], count=4)
        assert len(started) == 3 and pool.occupancy()["go"]["idle"] == 3


def test_a_job_holds_its_limit_and_its_runtimes_allowance() -> None:
    java = Job(language="java", code="class Main {}", tests=[{"input": "", "output": ""}])
    assert _job_memory_mb(java, compiling=False) == 256 + 96
    assert _job_memory_mb(java, compiling=True) == 1536 + 96  # javac's limit is larger
    c = java.model_copy(update={"language": "c"})
    assert _job_memory_mb(c, compiling=False) == 256


def test_with_the_budget_taken_a_job_waits_and_gives_up_at_its_deadline() -> None:
    budget = MemoryBudget(1000)
    assert budget.take(600, lambda: False) == 600
    started = time.monotonic()
    with pytest.raises(SandboxUnavailable, match="memory budget"):
        budget.take(600, lambda: False, wait_until=started + 0.2)
    assert time.monotonic() - started >= 0.2
    assert budget.take(400, lambda: False) == 400  # what fits still goes


def test_a_waiter_takes_what_an_ending_job_gives_back() -> None:
    budget = MemoryBudget(1000)
    budget.take(800, lambda: False)
    threading.Timer(0.1, budget.give, args=(800,)).start()
    assert budget.take(900, lambda: False, wait_until=time.monotonic() + 5) == 900
    assert budget.reserved_mb == 900


def test_a_job_larger_than_the_budget_runs_alone() -> None:
    budget = MemoryBudget(1000)
    assert budget.take(5000, lambda: False) == 1000
    budget.give(1000)
    assert budget.reserved_mb == 0


def test_closing_the_pool_gives_every_share_back() -> None:
    pool, _ = _pool(budget_mb=4096)
    pool.warm(["ruby"], count=2)
    assert pool._budget.reserved_mb == 2 * SANDBOX_OVERHEAD_MB
    pool.close()
    assert pool._budget.reserved_mb == 0
