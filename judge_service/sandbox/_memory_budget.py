"""The memory the live sandboxes may take together: never more than the host has.

A job reserves its memory limit (with its runtime's allowance) and its sandbox's share
(``SANDBOX_OVERHEAD_MB``: the agent, helpers, warm compiler and test cache) before it takes a
sandbox, in one reservation, first come first served; an idle sandbox keeps its share until it
is closed. That is what the agent lets a job use before MLE, kernel and shared memory
included. The container's cap (``sandbox_memory_mb``) stays one sandbox's hard backstop:
promising every sandbox its whole cap at once would hold a 24 GB host to 9 sandboxes of 2 GB,
too few for verl's 64 concurrent requests, while the accounting already stops each job at its
limit.

A reservation that does not fit waits its turn; at the head of the queue it closes idle
sandboxes of any language when that makes it fit, else it waits for a job to end. A waiter
holds nothing, so waiters cannot block each other.

Off by default (``sandbox_memory_budget_mb`` unset): SandboxFusion's clients send no memory
limit, which is the largest the service allows (1 GB), and verl sends 64 such requests at once;
a budget of 80 % of a 24 GB host runs 15 of them at a time, and with a third of them looping
to their time-out the rest missed verl's deadline (SE). Set it on a host whose memory, not its
callers' deadlines, is the tighter bound.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable

from judge_service.sandbox.errors import SandboxUnavailable

UNBOUNDED_MB = 1 << 62
# How often the head of the queue looks again for idle sandboxes to close (one may come back to
# another language's pool, whose release does not wake this budget's waiters).
RETRY_S = 0.05


class MemoryBudget:
    """Megabytes reserved by running jobs and idle sandboxes, at most ``budget_mb`` (``None``:
    no bound, every reservation fits at once)."""

    def __init__(self, budget_mb: int | None) -> None:
        self.budget_mb = budget_mb if budget_mb is not None else UNBOUNDED_MB
        self.reserved_mb = 0
        self._condition = threading.Condition()
        self._tickets = itertools.count()
        self._queue: deque[int] = deque()

    def take(
        self,
        megabytes: int,
        evict_idle: Callable[[], bool],
        idle_mb: Callable[[], int],
        wait_until: float | None = None,
    ) -> int:
        """Reserve ``megabytes`` (at most the whole budget: a job larger than the budget runs
        alone) in turn and return what was reserved, to :meth:`give` back. At the head of the
        queue, ``evict_idle`` closes one idle sandbox (giving its share back; whether it found
        one) while the idle sandboxes' shares (``idle_mb``) could make the reservation fit.
        Past ``wait_until``: SandboxUnavailable."""
        wanted = min(megabytes, self.budget_mb)
        with self._condition:
            ticket = next(self._tickets)
            self._queue.append(ticket)
        try:
            while True:
                with self._condition:
                    first = self._queue[0] == ticket
                    short = self.reserved_mb + wanted - self.budget_mb
                    if first and short <= 0:
                        self._queue.popleft()
                        self.reserved_mb += wanted
                        self._condition.notify_all()
                        return wanted
                if first and short <= idle_mb() and evict_idle():
                    continue
                with self._condition:
                    timeout = RETRY_S
                    if wait_until is not None:
                        left = wait_until - time.monotonic()
                        if left <= 0:
                            raise SandboxUnavailable(
                                f"the sandboxes' memory budget ({self.budget_mb} MB) is held by "
                                "running jobs: no answer could come in time"
                            )
                        timeout = min(timeout, left)
                    self._condition.wait(timeout)
        except BaseException:
            with self._condition:
                if ticket in self._queue:
                    self._queue.remove(ticket)
                self._condition.notify_all()
            raise

    def give(self, megabytes: int) -> None:
        with self._condition:
            self.reserved_mb = max(0, self.reserved_mb - megabytes)
            self._condition.notify_all()
