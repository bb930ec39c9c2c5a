"""Continuous batching: requests join the batch being decoded between two decode steps.

A worker thread owns one :class:`~complexity_model.served._greedy.DecodeBatch`. Before each
decode step it admits the requests that have arrived (up to ``max_batch`` rows in all): each
is read and joins the batch with its own cache rows and positions, and each row leaves at its
own stop, so a request never waits for a batch to end and a batch never waits for its
slowest row. Clients that send their next request when an answer comes back keep the batch
full without any regrouping. When the batch is empty the worker waits for a request and then
up to ``wait_s`` (or until ``max_batch`` are in hand) for more, so a burst's first requests are
read together; with ``max_batch`` 1 there is no window and requests run one at a time through
the same code.

When reading a group of prompts fails, each is read again alone, so that one malformed
request cannot fail the others; when a decode step fails (a GPU out of memory), the batch is
dropped and each of its requests is decoded again alone; a request that fails alone gets its
error.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

from complexity_model.served._generate import GenerationRequest
from complexity_model.served._greedy import Decoded, Prompt

__all__ = ["BatchScheduler", "BatchStats", "Decoder"]


class Decoder(Protocol):
    """A batch that rows join and leave between steps (see DecodeBatch)."""

    def __len__(self) -> int: ...

    def admit(self, prompts: Sequence[Prompt[Any]]) -> list[tuple[Any, Decoded]]: ...

    def step(self) -> list[tuple[Any, Decoded]]: ...

    def clear(self) -> list[Prompt[Any]]: ...


@dataclass
class BatchStats:
    """What the scheduler has run so far (read for the bench and the tests): requests
    admitted, and the decode steps by how many rows each one decoded."""

    batches: int = 0  # decode steps
    requests: int = 0
    largest: int = 0
    sizes: dict[int, int] = field(default_factory=dict)  # rows in a step -> how many steps

    @property
    def mean(self) -> float:
        """Rows per decode step."""
        steps = sum(self.sizes.values())
        return sum(size * n for size, n in self.sizes.items()) / steps if steps else 0.0


_Item = tuple[GenerationRequest, "Future[Decoded]"]


class BatchScheduler:
    """Decodes submitted jobs on a worker thread, as one continuously refilled batch."""

    def __init__(
        self, make_batch: Callable[[], Decoder], *, max_batch: int = 16, wait_s: float = 0.0
    ) -> None:
        if max_batch < 1 or wait_s < 0:
            raise ValueError(f"max_batch must be >= 1, wait_s >= 0; got {max_batch}, {wait_s}")
        self.max_batch = max_batch
        self.wait_s = wait_s if max_batch > 1 else 0.0
        self.stats = BatchStats()
        self._make_batch = make_batch
        self._batch = make_batch()
        # None tells the worker to stop taking requests.
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._closed = False
        self._closing = False
        self._thread = threading.Thread(target=self._loop, name="batcher", daemon=True)
        self._thread.start()

    def submit(self, job: GenerationRequest) -> Future[Decoded]:
        """A future for ``job``'s decoded tokens; RuntimeError once the scheduler is closed."""
        if self._closed:
            raise RuntimeError("the batch scheduler is closed")
        future: Future[Decoded] = Future()
        self._queue.put((job, future))
        return future

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop taking requests; those already queued or decoding are still answered."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
        self._thread.join(timeout_s)

    def _loop(self) -> None:
        while True:
            arrived = self._take()
            if arrived:
                self._admit(arrived)
            if len(self._batch):
                self._step()
            elif self._closing:
                break
        # A submit that raced close() is refused, not left waiting forever.
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None and item[1].set_running_or_notify_cancel():
                item[1].set_exception(RuntimeError("the batch scheduler is closed"))

    def _take(self) -> list[_Item]:
        """The requests to admit now: those waiting, up to the free rows; when nothing is
        decoding, the first to come and those that follow within the window."""
        room = self.max_batch - len(self._batch)
        if room <= 0 or self._closing:
            return []
        arrived: list[_Item] = []
        idle = not len(self._batch)
        window_end = 0.0
        while len(arrived) < room:
            try:
                if idle and not arrived:
                    item = self._queue.get()
                    window_end = time.monotonic() + self.wait_s
                elif idle:
                    item = self._queue.get(timeout=max(0.0, window_end - time.monotonic()))
                else:
                    item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._closing = True
                break
            arrived.append(item)
        return arrived

    def _admit(self, items: list[_Item]) -> None:
        prompts = [
            Prompt(job.prompt, job.max_tokens, job.logprobs, future)
            for job, future in items
            if future.set_running_or_notify_cancel()
        ]
        if not prompts:
            return
        self.stats.requests += len(prompts)
        try:
            self._resolve(self._batch.admit(prompts))
        except Exception as error:
            if len(prompts) == 1:
                prompts[0].key.set_exception(error)
                return
            for prompt in prompts:
                try:
                    self._resolve(self._batch.admit([prompt]))
                except Exception as alone:
                    prompt.key.set_exception(alone)

    def _step(self) -> None:
        self._count(len(self._batch))
        try:
            self._resolve(self._batch.step())
        except Exception:
            prompts = self._batch.clear()
            self._batch = self._make_batch()
            for prompt in prompts:
                self._run_alone(prompt)

    def _run_alone(self, prompt: Prompt[Any]) -> None:
        batch = self._make_batch()
        try:
            finished = batch.admit([prompt])
            while len(batch):
                finished += batch.step()
            self._resolve(finished)
        except Exception as error:
            prompt.key.set_exception(error)

    @staticmethod
    def _resolve(finished: list[tuple[Any, Decoded]]) -> None:
        for future, decoded in finished:
            future.set_result(decoded)

    def _count(self, size: int) -> None:
        stats = self.stats
        stats.batches += 1
        stats.largest = max(stats.largest, size)
        stats.sizes[size] = stats.sizes.get(size, 0) + 1
