"""Fair turns for the work of concurrent requests.

A dispatcher admits a unit of a request's work (in-process one submission, with Celery one
chunk) only when the gate grants it a turn, and holds the turn until the answers are back. The
gate keeps little admitted (``limit`` per resource), so what waits, waits here, where the
order is ours: not in a FIFO executor or broker queue, nor in the sandbox pool, where whoever
asks first wins.

Whose unit goes next: among requests whose next unit fits under the limits, the one with the
fewest units admitted; on a tie, the one that has waited longest since its last turn (a new
request joins at the back). A request's units go in order. So a single submission that
arrives behind a 2,000-item batch is admitted as soon as one of the batch's units finishes,
and two batches share the capacity half and half, whatever their sizes.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass


@dataclass(eq=False)
class _Waiter:
    needs: Mapping[str, int]
    granted: asyncio.Future[None]


class FairGate:
    """Event-loop only (no locks): every method runs on the loop that awaits the turns.

    ``limit(resource)`` is how much of a resource admitted units may hold; a unit is admitted
    while each resource it needs is below its limit, so a unit larger than the limit still runs
    (alone) rather than never.
    """

    def __init__(self, limit: Callable[[str], int]) -> None:
        self._limit = limit
        self._held: Counter[str] = Counter()
        self._admitted: Counter[object] = Counter()
        # Insertion order is the rotation: a request moves to the back when it gets a turn.
        self._waiting: dict[object, deque[_Waiter]] = {}

    @asynccontextmanager
    async def turn(self, request: object, needs: Mapping[str, int]) -> AsyncIterator[None]:
        """Wait for ``request``'s turn to use ``needs``; they are given back on exit."""
        waiter = _Waiter(dict(needs), asyncio.get_running_loop().create_future())
        self._waiting.setdefault(request, deque()).append(waiter)
        self.wake()
        try:
            await waiter.granted
        except asyncio.CancelledError:
            if waiter.granted.cancelled():
                self._forget(request, waiter)
            else:  # granted just as it was cancelled
                self._give_back(request, waiter.needs)
            raise
        try:
            yield
        finally:
            self._give_back(request, waiter.needs)

    def wake(self) -> None:
        """Grant every turn that fits now; call it after raising a limit."""
        while (request := self._next()) is not None:
            waiters = self._waiting.pop(request)
            waiter = waiters.popleft()
            if waiters:
                self._waiting[request] = waiters
            if waiter.granted.cancelled():  # its task has not run its cleanup yet
                continue
            self._held.update(waiter.needs)
            self._admitted[request] += 1
            waiter.granted.set_result(None)

    def _next(self) -> object | None:
        best: object | None = None
        for request, waiters in self._waiting.items():
            if not all(self._held[key] < self._limit(key) for key in waiters[0].needs):
                continue
            if best is None or self._admitted[request] < self._admitted[best]:
                best = request
        return best

    def _forget(self, request: object, waiter: _Waiter) -> None:
        waiters = self._waiting.get(request)
        if waiters is not None and waiter in waiters:
            waiters.remove(waiter)
            if not waiters:
                del self._waiting[request]

    def _give_back(self, request: object, needs: Mapping[str, int]) -> None:
        self._held.subtract(needs)
        self._admitted[request] -= 1
        if self._admitted[request] <= 0:
            del self._admitted[request]
        self.wake()
