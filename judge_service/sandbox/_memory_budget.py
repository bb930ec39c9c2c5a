"""The memory the live sandboxes may take together: never more than the host has.

Each sandbox holds ``SANDBOX_OVERHEAD_MB`` of the budget while it lives (its agent, helpers,
warm compiler and test cache), and each job its memory limit (with its runtime's allowance)
while it runs: what the agent lets it use before MLE, kernel and shared memory included. The
container's cap (``sandbox_memory_mb``) stays one sandbox's hard backstop; promising every
sandbox its whole cap at once would hold a 24 GB host to 9 sandboxes of 2 GB, too few for
verl's 64 concurrent requests, while the accounting already stops each job at its limit.

A sandbox or a job that does not fit waits: first the longest-idle sandbox of any language is
closed to make room, then it waits for a running job to end. The budget defaults to 80 % of
the host's memory (``sandbox_memory_budget_mb``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from judge_service.sandbox.errors import SandboxUnavailable

HOST_SHARE = 0.8
# How often a waiter looks again for an idle sandbox to close (one may come back to another
# language's pool, whose release does not wake this budget's waiters).
RETRY_S = 0.05


def host_memory_mb(meminfo: str = "/proc/meminfo") -> int:
    """The host's memory (MemTotal), in MB."""
    with open(meminfo) as lines:
        for line in lines:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise OSError(f"no MemTotal in {meminfo}")


def default_budget_mb() -> int:
    return int(host_memory_mb() * HOST_SHARE)


class MemoryBudget:
    """Megabytes reserved by live sandboxes and running jobs, at most ``budget_mb``."""

    def __init__(self, budget_mb: int) -> None:
        self.budget_mb = budget_mb
        self.reserved_mb = 0
        self._condition = threading.Condition()

    def take(
        self, megabytes: int, evict_idle: Callable[[], bool], wait_until: float | None = None
    ) -> int:
        """Reserve ``megabytes`` (at most the whole budget: a job larger than the budget runs
        alone) and return what was reserved, to :meth:`give` back. Room is free, made by
        ``evict_idle`` (which closes an idle sandbox, giving its share back, and says whether
        it found one), or given back while this waits. Past ``wait_until``: SandboxUnavailable."""
        wanted = min(megabytes, self.budget_mb)
        while True:
            with self._condition:
                if self.reserved_mb + wanted <= self.budget_mb:
                    self.reserved_mb += wanted
                    return wanted
            if evict_idle():
                continue
            with self._condition:
                if self.reserved_mb + wanted <= self.budget_mb:
                    continue
                timeout = RETRY_S
                if wait_until is not None:
                    left = wait_until - time.monotonic()
                    if left <= 0:
                        raise SandboxUnavailable(
                            f"the sandboxes' memory budget ({self.budget_mb} MB) is taken by "
                            "running jobs: no answer could come in time"
                        )
                    timeout = min(timeout, left)
                self._condition.wait(timeout)

    def give(self, megabytes: int) -> None:
        with self._condition:
            self.reserved_mb = max(0, self.reserved_mb - megabytes)
            self._condition.notify_all()
