"""Dispatchers fan a batch out in chunks: in-process (embedded default) or through Celery.

Both return, in order, one answer per payload (see ``worker/tasks.py``); an answer is a result
or a system error, never missing. Waiting never blocks the event loop: jobs run in threads,
and Celery results are polled from a thread with one Redis round trip for all pending chunks.

Concurrent requests take turns (``fairness.FairGate``): each dispatcher admits only a little
more work than its sandboxes or workers can run at once (in-process submissions, with Celery
chunks), and takes the next from the request with the least admitted, so a batch never
starves a newcomer.

This module is what the API holds: the protocol and :class:`CeleryDispatcher`, which sends
chunks to the workers by task name and loads none of their code. The in-process dispatcher,
which runs the task bodies against a sandbox pool in this process, is
:class:`judge_service.worker.inprocess.InProcessDispatcher`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from celery import Celery

from judge_service.exceptions import BrokerUnavailable
from judge_service.fairness import FairGate
from judge_service.settings import Settings
from judge_service.worker.celery_app import TASK_NAME, make_celery

Payload = dict[str, Any]
ChunkDone = Callable[[int, list[Payload]], Awaitable[None]]
# Celery workers take any chunk: one resource, their slots.
_ONE_SLOT = {"slot": 1}
# How often the workers' slots are read again (a worker joined or left).
_SLOTS_REREAD_S = 30.0


class Dispatcher(Protocol):
    async def run(
        self, payloads: list[Payload], on_chunk: ChunkDone | None = None
    ) -> list[Payload]:
        """Judge every payload; ``on_chunk(offset, answers)`` is awaited as chunks finish."""

    def health(self) -> dict[str, Any]: ...

    def queue_depth(self) -> int | None: ...

    def occupancy(self) -> dict[str, dict[str, int]]: ...

    def close(self) -> None: ...


def chunked(payloads: list[Payload], size: int) -> list[tuple[int, list[Payload]]]:
    """``(offset, chunk)`` pairs of at most ``size`` payloads, in order."""
    return [(start, payloads[start : start + size]) for start in range(0, len(payloads), size)]


def _failed(chunk: list[Payload], message: str) -> list[Payload]:
    return [{"system_error": message} for _ in chunk]


async def gather_chunks(
    one: Callable[[int, list[Payload]], Awaitable[list[Payload]]],
    chunks: Iterable[tuple[int, list[Payload]]],
) -> list[Payload]:
    """Every chunk's answers, in order; when one chunk raises, the others stop waiting."""
    tasks = [asyncio.ensure_future(one(offset, chunk)) for offset, chunk in chunks]
    try:
        parts = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()  # they give their turns back before the error reaches the caller
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return [answer for part in parts for answer in part]


class CeleryDispatcher:
    """Sends chunks to Celery workers on any number of machines and awaits their results."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = make_celery(settings)
        self.task = self.app.signature(TASK_NAME)
        self._results = _Results(self.app)
        # Chunks the workers run at once, read from them; until they answer, one worker's.
        self._slots = settings.worker_concurrency
        self._slots_read_at = -_SLOTS_REREAD_S
        self._reading_slots: asyncio.Task[None] | None = None
        # Twice that many chunks sent (one running and one queued per slot): no worker waits
        # for this process to send more, and a newcomer's chunk, sent when one of those
        # finishes, is behind at most one queued chunk per slot, not behind whole batches.
        self._gate = FairGate(lambda _slot: 2 * self._slots)

    async def run(
        self, payloads: list[Payload], on_chunk: ChunkDone | None = None
    ) -> list[Payload]:
        self._read_slots_when_due()
        request = object()
        deadline = time.monotonic() + self.settings.batch_timeout_s

        async def one(offset: int, chunk: list[Payload]) -> list[Payload]:
            async with self._gate.turn(request, _ONE_SLOT):
                answers = await self._judge(chunk, deadline)
            if on_chunk is not None:
                await on_chunk(offset, answers)
            return answers

        return await gather_chunks(one, chunked(payloads, self.settings.chunk_size))

    async def _judge(self, chunk: list[Payload], deadline: float) -> list[Payload]:
        left = deadline - time.monotonic()
        if left <= 0:
            return _failed(chunk, "timed out waiting for a worker")
        try:
            sent = await asyncio.to_thread(self.task.clone(args=(chunk,)).apply_async)
        except Exception as error:
            raise BrokerUnavailable(f"cannot queue the batch: {error}") from error
        try:
            value = await asyncio.wait_for(self._results.wait(sent), left)
        except TimeoutError:
            return _failed(chunk, "timed out waiting for a worker")
        return value if isinstance(value, list) else _failed(chunk, f"worker task failed: {value}")

    def _read_slots_when_due(self) -> None:
        reading = self._reading_slots is not None and not self._reading_slots.done()
        if not reading and time.monotonic() - self._slots_read_at >= _SLOTS_REREAD_S:
            self._reading_slots = asyncio.create_task(self._read_slots())

    async def _read_slots(self) -> None:
        try:
            slots = await asyncio.to_thread(self._worker_slots)
        except Exception:  # the broker is down: the count stands, the next batch asks again
            return
        if slots > 0:  # none answered yet: ask again on the next batch
            self._slots, self._slots_read_at = slots, time.monotonic()
            self._gate.wake()

    def _worker_slots(self) -> int:
        with self.app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=2)
            stats = self.app.control.inspect(timeout=1.0, connection=connection).stats() or {}
        return sum(
            int(worker.get("pool", {}).get("max-concurrency", 0)) for worker in stats.values()
        )

    def health(self) -> dict[str, Any]:
        try:
            with self.app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1, timeout=2)
            replies = self.app.control.inspect(timeout=1.0).ping() or {}
        except Exception as error:
            return {"ok": False, "kind": "celery", "error": str(error)}
        return {"ok": bool(replies), "kind": "celery", "workers": sorted(replies)}

    def queue_depth(self) -> int | None:
        try:
            with self.app.connection_for_read() as connection:
                channel = connection.default_channel
                _, depth, _ = channel.queue_declare(self.settings.queue_name, passive=True)
                return int(depth)
        except Exception:
            return None

    def occupancy(self) -> dict[str, dict[str, int]]:
        return {}

    def close(self) -> None:
        if self._reading_slots is not None:
            self._reading_slots.cancel()
        self.app.close()


class _Results:
    """Awaits the results of every request's chunks with one poll: one Redis MGET for all."""

    def __init__(self, app: Celery) -> None:
        self.app = app
        self._waiting: dict[str, tuple[Any, asyncio.Future[Any]]] = {}
        self._poller: asyncio.Task[None] | None = None

    async def wait(self, sent: Any) -> Any:
        """The chunk's answers, or the text of its failure."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[sent.id] = (sent, future)
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll())
        try:
            return await future
        finally:
            self._waiting.pop(sent.id, None)

    async def _poll(self) -> None:
        delay = 0.002
        while self._waiting:
            pending = {task_id: sent for task_id, (sent, _) in self._waiting.items()}
            try:
                finished = await asyncio.to_thread(self._collect, pending)
            except Exception as error:  # every waiter must hear it, or it waits forever
                for _, future in self._waiting.values():
                    if not future.done():
                        future.set_exception(BrokerUnavailable(f"cannot read results: {error}"))
                return
            for task_id, value in finished.items():
                if task_id in self._waiting and not self._waiting[task_id][1].done():
                    self._waiting[task_id][1].set_result(value)
            delay = 0.002 if finished else min(delay * 2, 0.05)
            await asyncio.sleep(delay)

    def _collect(self, pending: dict[str, Any]) -> dict[str, Any]:
        """Finished chunks by task id: their answers, or the failure's text."""
        backend = self.app.backend
        done: dict[str, Any] = {}
        client = getattr(backend, "client", None)
        if client is not None and hasattr(backend, "get_key_for_task"):
            keys = [backend.get_key_for_task(task_id) for task_id in pending]
            for task_id, raw in zip(pending, client.mget(keys), strict=True):
                if raw is None:
                    continue
                meta = backend.decode_result(raw)
                if meta["status"] in ("SUCCESS", "FAILURE", "REVOKED"):
                    done[task_id] = (
                        meta["result"] if meta["status"] == "SUCCESS" else str(meta["result"])
                    )
            return done
        for task_id, result in pending.items():
            if result.ready():
                done[task_id] = result.result if result.successful() else str(result.result)
        return done
