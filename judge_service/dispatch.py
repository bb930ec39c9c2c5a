"""Dispatchers fan a batch out in chunks: in-process (embedded default) or through Celery.

Both return, in order, one answer per payload (see ``worker/tasks.py``); an answer is a result
or a system error, never missing. Waiting never blocks the event loop: chunks run in threads,
and Celery results are polled from a thread with one Redis round trip for all pending chunks.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from judge_service.complexity import ComplexityJudge, make_complexity_judge
from judge_service.exceptions import BrokerUnavailable
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings
from judge_service.worker.celery_app import TASK_NAME, make_celery
from judge_service.worker.tasks import judge_chunk

Payload = dict[str, Any]
# Chunks judged at once in-process; idle threads cost nothing, and the sandbox pool, not
# this number, bounds how many programs run.
_CHUNK_THREADS = 32
ChunkDone = Callable[[int, list[Payload]], Awaitable[None]]


class Dispatcher(Protocol):
    async def run(
        self, payloads: list[Payload], on_chunk: ChunkDone | None = None
    ) -> list[Payload]:
        """Judge every payload; ``on_chunk(offset, answers)`` is awaited as chunks finish."""

    def health(self) -> dict[str, Any]: ...

    def queue_depth(self) -> int | None: ...

    def occupancy(self) -> dict[str, dict[str, int]]: ...

    def close(self) -> None: ...


def _chunks(payloads: list[Payload], size: int) -> list[tuple[int, list[Payload]]]:
    return [(start, payloads[start : start + size]) for start in range(0, len(payloads), size)]


def _failed(chunk: list[Payload], message: str) -> list[Payload]:
    return [{"system_error": message} for _ in chunk]


class InProcessDispatcher:
    """Runs the worker's task code in this process, against a local sandbox pool."""

    def __init__(
        self,
        settings: Settings,
        pool: SandboxPool | None = None,
        complexity_judge: ComplexityJudge | None = None,
    ) -> None:
        self.settings = settings
        self.pool = pool or SandboxPool(settings)
        self.complexity_judge = complexity_judge or make_complexity_judge(settings, self.pool)
        # Chunks wait for sandboxes in threads of their own: in the event loop's default
        # executor they would hold up the store reads and writes of every other request.
        self._executor = ThreadPoolExecutor(
            max_workers=_CHUNK_THREADS, thread_name_prefix="judge-chunk"
        )

    async def run(
        self, payloads: list[Payload], on_chunk: ChunkDone | None = None
    ) -> list[Payload]:
        loop = asyncio.get_running_loop()

        async def one(offset: int, chunk: list[Payload]) -> list[Payload]:
            try:
                answers = await loop.run_in_executor(
                    self._executor, judge_chunk, self.pool, self.complexity_judge, chunk
                )
            except Exception as error:  # a bug in the judge must not lose the batch
                answers = _failed(chunk, f"worker failed: {error!r}")
            if on_chunk is not None:
                await on_chunk(offset, answers)
            return answers

        parts = await asyncio.gather(
            *(one(offset, chunk) for offset, chunk in _chunks(payloads, self.settings.chunk_size))
        )
        return [answer for part in parts for answer in part]

    def health(self) -> dict[str, Any]:
        return {"ok": not self.pool.closed, "kind": "in-process"}

    def queue_depth(self) -> int | None:
        return None

    def occupancy(self) -> dict[str, dict[str, int]]:
        return self.pool.occupancy()

    def close(self) -> None:
        self.pool.close()
        self._executor.shutdown(wait=False, cancel_futures=True)


class CeleryDispatcher:
    """Sends chunks to Celery workers on any number of machines and awaits their results."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = make_celery(settings)
        self.task = self.app.signature(TASK_NAME)

    async def run(
        self, payloads: list[Payload], on_chunk: ChunkDone | None = None
    ) -> list[Payload]:
        chunks = _chunks(payloads, self.settings.chunk_size)
        try:
            sent = await asyncio.to_thread(
                lambda: [self.task.clone(args=(chunk,)).apply_async() for _, chunk in chunks]
            )
        except Exception as error:
            raise BrokerUnavailable(f"cannot queue the batch: {error}") from error
        answers: list[list[Payload] | None] = [None] * len(chunks)
        pending = dict(enumerate(sent))
        deadline = time.monotonic() + self.settings.batch_timeout_s
        delay = 0.002
        while pending:
            if time.monotonic() > deadline:
                for index in pending:
                    answers[index] = _failed(chunks[index][1], "timed out waiting for a worker")
                break
            finished = await asyncio.to_thread(self._collect, pending)
            for index, value in finished.items():
                del pending[index]
                answers[index] = (
                    value
                    if isinstance(value, list)
                    else _failed(chunks[index][1], f"worker task failed: {value}")
                )
                if on_chunk is not None:
                    await on_chunk(chunks[index][0], answers[index] or [])
            delay = 0.002 if finished else min(delay * 2, 0.05)
            await asyncio.sleep(delay)
        return [answer for part in answers for answer in (part or [])]

    def _collect(self, pending: dict[int, Any]) -> dict[int, Any]:
        """Finished chunks: their answers, or the failure's text."""
        backend = self.app.backend
        done: dict[int, Any] = {}
        client = getattr(backend, "client", None)
        if client is not None and hasattr(backend, "get_key_for_task"):
            keys = [backend.get_key_for_task(result.id) for result in pending.values()]
            for index, raw in zip(pending, client.mget(keys), strict=True):
                if raw is None:
                    continue
                meta = backend.decode_result(raw)
                if meta["status"] in ("SUCCESS", "FAILURE", "REVOKED"):
                    done[index] = (
                        meta["result"] if meta["status"] == "SUCCESS" else str(meta["result"])
                    )
            return done
        for index, result in pending.items():
            if result.ready():
                done[index] = result.result if result.successful() else str(result.result)
        return done

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
        self.app.close()


def make_dispatcher(settings: Settings) -> Dispatcher:
    if settings.broker_url:
        return CeleryDispatcher(settings)
    return InProcessDispatcher(settings)
