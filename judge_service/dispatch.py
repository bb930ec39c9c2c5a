"""Dispatchers fan a batch out in chunks: in-process (embedded default) or through Celery.

Both return, in order, one answer per payload (see ``worker/tasks.py``); an answer is a result
or a system error, never missing. Waiting never blocks the event loop: jobs run in threads,
and Celery results are polled from a thread with one Redis round trip for all pending chunks
(``_broker.py``, which also rides out a broker that goes away and comes back empty).

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

from judge_service._broker import BrokerIO, BrokerLost, Results
from judge_service.exceptions import BrokerUnavailable
from judge_service.fairness import FairGate
from judge_service.settings import Settings
from judge_service.worker.celery_app import TASK_NAME, make_celery

Payload = dict[str, Any]
ChunkDone = Callable[[int, list[Payload]], Awaitable[None]]
# Celery workers take any chunk: one resource, their slots.
_ONE_SLOT = {"slot": 1}
# Longest a send may block (a publish on a connection to a broker that just restarted can wait
# for a confirm without end); past it, the chunk is sent again.
_SEND_TIMEOUT_S = 30.0
# How often the workers' slots are read again (a worker joined or left), and the longest a
# read may take (a reply that never comes would otherwise stop every later read).
_SLOTS_REREAD_S = 30.0
_SLOTS_READ_TIMEOUT_S = 10.0


class Dispatcher(Protocol):
    async def run(
        self,
        payloads: list[Payload],
        on_chunk: ChunkDone | None = None,
        *,
        outage_s: float = 0.0,
    ) -> list[Payload]:
        """Judge every payload; ``on_chunk(offset, answers)`` is awaited as chunks finish.

        ``outage_s``: how long a broker may stay unreachable before the submissions it holds
        end as system errors; the chunks it may have lost are sent again once it is back.
        0 (a synchronous caller, who can retry) raises ``BrokerUnavailable`` at once."""

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
        # One thread per chunk the gate can admit (it grows with the workers' slots, but a
        # send past these waits for a thread, not for the broker), plus the result poll.
        self._io = BrokerIO(threads=max(8, 4 * settings.worker_concurrency + 1))
        self._results = Results(self.app, settings.queue_name, self._io)
        # Chunks the workers run at once, read from them; until they answer, one worker's.
        self._slots = settings.worker_concurrency
        self._slots_read_at = -_SLOTS_REREAD_S
        self._reading_slots: asyncio.Task[None] | None = None
        # Twice that many chunks sent (one running and one queued per slot): no worker waits
        # for this process to send more, and a newcomer's chunk, sent when one of those
        # finishes, is behind at most one queued chunk per slot, not behind whole batches.
        self._gate = FairGate(lambda _slot: 2 * self._slots)

    async def run(
        self,
        payloads: list[Payload],
        on_chunk: ChunkDone | None = None,
        *,
        outage_s: float = 0.0,
    ) -> list[Payload]:
        self._read_slots_when_due()
        request = object()
        deadline = time.monotonic() + self.settings.batch_timeout_s

        async def one(offset: int, chunk: list[Payload]) -> list[Payload]:
            async with self._gate.turn(request, _ONE_SLOT):
                answers = await self._judge(chunk, deadline, outage_s)
            if on_chunk is not None:
                await on_chunk(offset, answers)
            return answers

        return await gather_chunks(one, chunked(payloads, self.settings.chunk_size))

    async def _judge(self, chunk: list[Payload], deadline: float, outage_s: float) -> list[Payload]:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return _failed(chunk, "timed out waiting for a worker")
            try:
                send = self.task.clone(args=(chunk,)).apply_async
                sent = await self._io.call(send, timeout_s=_SEND_TIMEOUT_S)
            except Exception as error:
                lasted = self._results.outage.down()
                if outage_s <= 0:
                    raise BrokerUnavailable(f"cannot queue the batch: {error}") from error
                if lasted >= outage_s:
                    return _failed(chunk, f"the broker was unreachable for {lasted:.0f} s: {error}")
                await asyncio.sleep(min(1.0, left))
                continue
            try:
                value = await asyncio.wait_for(self._results.wait(sent, outage_s), left)
            except TimeoutError:
                return _failed(chunk, "timed out waiting for a worker")
            except BrokerLost:
                continue  # the broker came back and may have forgotten it: send it again
            except BrokerUnavailable as error:
                if outage_s <= 0:
                    raise
                return _failed(chunk, str(error))
            if isinstance(value, list):
                return value
            return _failed(chunk, f"worker task failed: {value}")

    def _read_slots_when_due(self) -> None:
        reading = self._reading_slots is not None and not self._reading_slots.done()
        if not reading and time.monotonic() - self._slots_read_at >= _SLOTS_REREAD_S:
            self._reading_slots = asyncio.create_task(self._read_slots())

    async def _read_slots(self) -> None:
        try:
            slots = await self._io.call(self._worker_slots, timeout_s=_SLOTS_READ_TIMEOUT_S)
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
        self._results.close()
        self._io.close()
        self.app.close()
