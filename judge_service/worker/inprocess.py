"""The in-process dispatcher: the worker's task code run in the API's own process.

The embedded default (no broker configured): the API process owns a sandbox pool and judges
each submission itself. The API loads this module, and with it the task bodies, the pool and
docker, only when it starts in that mode (``judge_service.api.app``).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from judge_service.complexity import ComplexityJudge, make_complexity_judge
from judge_service.dispatch import ChunkDone, Payload, chunked, gather_chunks
from judge_service.fairness import FairGate
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings
from judge_service.worker.tasks import judge_one

__all__ = ["InProcessDispatcher"]


class InProcessDispatcher:
    """Runs the worker's task code in this process, against a local sandbox pool.

    Turns are per submission, not per chunk: the pool hands a freed sandbox to whichever
    thread asks first, and a thread that just finished a job asks again at once, so a chunk
    running its jobs one after another would keep its sandbox against every turn order.
    """

    def __init__(
        self,
        settings: Settings,
        pool: SandboxPool | None = None,
        complexity_judge: ComplexityJudge | None = None,
    ) -> None:
        self.settings = settings
        self.pool = pool or SandboxPool(settings)
        self.complexity_judge = complexity_judge or make_complexity_judge(settings, self.pool)
        # Two jobs per sandbox: one running, one ready to take it the moment it is free
        # (admitting the next job is a hop through the event loop). More would only queue
        # in the pool, where no turn order holds.
        per_language = 2 * settings.sandboxes_per_language
        self._gate = FairGate(lambda _language: per_language)
        # Jobs run in threads of their own: in the event loop's default executor they would
        # hold up the store reads and writes of every other request. The gate, not this
        # number, bounds how many run; it only has to exceed what the gate admits.
        self._executor = ThreadPoolExecutor(
            max_workers=per_language * len(LANGUAGES), thread_name_prefix="judge-job"
        )

    async def run(
        self,
        payloads: list[Payload],
        on_chunk: ChunkDone | None = None,
        *,
        outage_s: float = 0.0,  # no broker here to wait for
    ) -> list[Payload]:
        loop = asyncio.get_running_loop()
        request = object()

        async def judge(payload: Payload) -> Payload:
            async with self._gate.turn(request, {_language(payload): 1}):
                try:
                    return await loop.run_in_executor(
                        self._executor, judge_one, self.pool, self.complexity_judge, payload
                    )
                except Exception as error:  # a bug in the judge must not lose the batch
                    return {"system_error": f"worker failed: {error!r}"}

        async def one(offset: int, chunk: list[Payload]) -> list[Payload]:
            answers = list(await asyncio.gather(*(judge(payload) for payload in chunk)))
            if on_chunk is not None:
                await on_chunk(offset, answers)
            return answers

        return await gather_chunks(one, chunked(payloads, self.settings.chunk_size))

    def health(self) -> dict[str, Any]:
        slots = self.pool.cpu_slots
        return {
            "ok": not self.pool.closed,
            "kind": "in-process",
            "cpu_slots": {
                "count": slots.count,
                "held": slots.held,
                "waited_s": round(slots.waited_s, 3),
                "ran_without_slot": slots.overflowed,
            },
            **(
                {"sandbox_memory": self.pool.sandboxes_cgroup.status()}
                if self.pool.sandboxes_cgroup is not None
                else {}
            ),
        }

    def queue_depth(self) -> int | None:
        return None

    def occupancy(self) -> dict[str, dict[str, int]]:
        return self.pool.occupancy()

    def close(self) -> None:
        self.pool.close()
        self._executor.shutdown(wait=False, cancel_futures=True)


def _language(payload: Payload) -> str:
    """In-process, sandboxes are per language, so turns are too."""
    job = payload.get("job")
    return str(job.get("language", "")) if isinstance(job, dict) else ""
