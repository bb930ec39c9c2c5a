"""Dynamic batching: requests that arrive close together are decoded as one batch.

A worker thread takes the first waiting request, then gathers more for up to ``wait_s``
(or until ``max_batch`` are in hand) and runs them together; requests that arrive while a
batch runs wait for the next one, so under load batches fill without waiting at all. Alone,
a request pays at most the window (a few milliseconds against tens of milliseconds of
decoding). With ``max_batch`` 1 there is no window: requests run one at a time, as before.

Clients that send their next request when an answer comes back (``estimate_many`` with
``concurrency`` N) would otherwise settle into two half batches that take turns: while one
runs, the other queues. So after a batch the worker expects its requests' senders back, as
many as that batch plus those already waiting (at most ``max_batch``), and waits for them up to
``regroup`` times that batch's duration; a lone client is expected alone and never waits for
others.

When a batch fails (a GPU out of memory, one malformed row), its requests are run again one
by one, so one request cannot fail the others; a request that fails alone gets its error.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["BatchScheduler", "BatchStats"]

Request = TypeVar("Request")
Result = TypeVar("Result")


@dataclass
class BatchStats:
    """What the scheduler has run so far (read for the bench and the tests)."""

    batches: int = 0
    requests: int = 0
    largest: int = 0
    sizes: dict[int, int] = field(default_factory=dict)  # batch size -> how many batches

    @property
    def mean(self) -> float:
        return self.requests / self.batches if self.batches else 0.0


class BatchScheduler(Generic[Request, Result]):
    """Runs ``run_batch`` (requests -> results in the same order) on gathered batches."""

    def __init__(
        self,
        run_batch: Callable[[Sequence[Request]], list[Result]],
        *,
        max_batch: int = 16,
        wait_s: float = 0.005,
        regroup: float = 0.25,
    ) -> None:
        if max_batch < 1 or wait_s < 0 or regroup < 0:
            raise ValueError(
                f"max_batch must be >= 1, wait_s and regroup >= 0; got {max_batch}, {wait_s}, "
                f"{regroup}"
            )
        self.max_batch = max_batch
        self.wait_s = wait_s if max_batch > 1 else 0.0
        self.regroup = regroup
        # After a batch: how many requests to expect, and until when to wait for them.
        self._expected = 1
        self._regroup_until = 0.0
        self.stats = BatchStats()
        self._run_batch = run_batch
        # None tells the worker to stop.
        self._queue: queue.SimpleQueue[tuple[Request, Future[Result]] | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="batcher", daemon=True)
        self._thread.start()

    def submit(self, request: Request) -> Future[Result]:
        """A future for ``request``'s result; RuntimeError once the scheduler is closed."""
        if self._closed:
            raise RuntimeError("the batch scheduler is closed")
        future: Future[Result] = Future()
        self._queue.put((request, future))
        return future

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop taking requests; those already queued are still answered."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
        self._thread.join(timeout_s)

    def _loop(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            batch = [first]
            window_end = time.monotonic() + self.wait_s
            while len(batch) < self.max_batch:
                deadline = window_end
                if len(batch) < self._expected:
                    deadline = max(deadline, self._regroup_until)
                try:
                    item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            started = time.monotonic()
            self._run(batch)
            ended = time.monotonic()
            waiting = self._queue.qsize()
            self._expected = min(self.max_batch, len(batch) + waiting)
            self._regroup_until = ended + self.regroup * (ended - started)
        # A submit that raced close() is refused, not left waiting forever.
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None and item[1].set_running_or_notify_cancel():
                item[1].set_exception(RuntimeError("the batch scheduler is closed"))

    def _run(self, batch: list[tuple[Request, Future[Result]]]) -> None:
        live = [
            (request, future) for request, future in batch if future.set_running_or_notify_cancel()
        ]
        if not live:
            return
        self._count(len(live))
        try:
            results = self._run_batch([request for request, _ in live])
            if len(results) != len(live):
                raise RuntimeError(f"{len(live)} requests gave {len(results)} results")
        except Exception as error:
            if len(live) == 1:
                live[0][1].set_exception(error)
                return
            for request, future in live:
                self._run_alone(request, future)
            return
        for (_, future), result in zip(live, results, strict=True):
            future.set_result(result)

    def _run_alone(self, request: Request, future: Future[Result]) -> None:
        try:
            future.set_result(self._run_batch([request])[0])
        except Exception as error:
            future.set_exception(error)

    def _count(self, size: int) -> None:
        stats = self.stats
        stats.batches += 1
        stats.requests += size
        stats.largest = max(stats.largest, size)
        stats.sizes[size] = stats.sizes.get(size, 0) + 1
