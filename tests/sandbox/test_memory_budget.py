"""The live sandboxes never promise the host more memory than it has: each sandbox holds the
judge's overhead of the budget, each running job its memory limit; past the budget the
longest-idle sandbox of any language is closed, or the newcomer waits
(judge_service/sandbox/_memory_budget.py)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from judge_service.sandbox._memory_budget import MemoryBudget
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxUnavailable
from judge_service.sandbox.models import Job
from judge_service.sandbox.pool import SandboxPool, _job_memory_mb
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB
from tests.sandbox._fake_sandboxes import FakeSandbox, fake_pool


def _pool(budget_mb: int) -> tuple[SandboxPool, list[FakeSandbox]]:
    return fake_pool(
        SandboxConfig(
            sandboxes_per_language=4, sandbox_memory_budget_mb=budget_mb, sandbox_idle_s=0
        )
    )


def _nothing_idle() -> bool:
    return False


def _no_idle_mb() -> int:
    return 0


def test_without_a_budget_every_reservation_fits_at_once() -> None:
    budget = MemoryBudget(None)
    assert budget.take(1 << 20, _nothing_idle, _no_idle_mb) == 1 << 20
    assert budget.take(1 << 20, _nothing_idle, _no_idle_mb) == 1 << 20


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
    assert budget.take(600, _nothing_idle, _no_idle_mb) == 600
    started = time.monotonic()
    with pytest.raises(SandboxUnavailable, match="memory budget"):
        budget.take(600, _nothing_idle, _no_idle_mb, wait_until=started + 0.2)
    assert time.monotonic() - started >= 0.2
    assert budget.take(400, _nothing_idle, _no_idle_mb) == 400  # the queue moved on


def test_a_waiter_takes_what_an_ending_job_gives_back() -> None:
    budget = MemoryBudget(1000)
    budget.take(800, _nothing_idle, _no_idle_mb)
    threading.Timer(0.1, budget.give, args=(800,)).start()
    assert budget.take(900, _nothing_idle, _no_idle_mb, wait_until=time.monotonic() + 5) == 900
    assert budget.reserved_mb == 900


def test_waiters_are_served_in_turn_so_a_large_job_is_not_starved() -> None:
    budget = MemoryBudget(1000)
    budget.take(900, _nothing_idle, _no_idle_mb)
    order: list[str] = []

    def wait_for(name: str, megabytes: int) -> None:
        budget.take(megabytes, _nothing_idle, _no_idle_mb, wait_until=time.monotonic() + 5)
        order.append(name)

    large = threading.Thread(target=wait_for, args=("large", 800))
    large.start()
    time.sleep(0.1)  # queued first
    small = threading.Thread(target=wait_for, args=("small", 50))
    small.start()
    time.sleep(0.1)
    assert order == []  # 50 MB would fit now, but the large job is ahead of it
    budget.give(900)
    large.join(5)
    small.join(5)
    assert order == ["large", "small"]


def test_a_job_larger_than_the_budget_runs_alone() -> None:
    budget = MemoryBudget(1000)
    assert budget.take(5000, _nothing_idle, _no_idle_mb) == 1000
    budget.give(1000)
    assert budget.reserved_mb == 0


def test_many_large_jobs_at_once_all_run_and_give_everything_back() -> None:
    """64 compiles at once, each reserving 1.5 GB and a sandbox's share, on a budget that holds
    two: every one runs in turn (a job waiting for memory holds no sandbox), and what remains
    reserved at the end is the idle sandboxes' shares."""
    pool, started = _pool(budget_mb=2 * (1536 + SANDBOX_OVERHEAD_MB))
    running = [0]
    most = [0]
    lock = threading.Lock()

    def request(*_: Any) -> tuple[dict[str, Any], bytes]:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return {"op": "result"}, b""

    pool._request = request  # type: ignore[method-assign]
    jobs = [
        Job(language=language, code="int main() {}", tests=[{"input": "", "output": ""}])
        for language in ("c", "cpp") * 32
    ]
    with pool:
        with ThreadPoolExecutor(max_workers=64) as executor:
            futures = [executor.submit(pool._run, job, {}, b"", {}, True, None) for job in jobs]
            for future in futures:
                future.result(timeout=60)
        assert most[0] <= 2
        idle = sum(counts["idle"] for counts in pool.occupancy().values())
        assert pool._budget.reserved_mb == idle * SANDBOX_OVERHEAD_MB


def test_closing_the_pool_gives_every_share_back() -> None:
    pool, _ = _pool(budget_mb=4096)
    pool.warm(["ruby"], count=2)
    assert pool._budget.reserved_mb == 2 * SANDBOX_OVERHEAD_MB
    pool.close()
    assert pool._budget.reserved_mb == 0
