"""The in-process dispatcher's turns with a fake one-sandbox pool (no Docker): a single
submission overtakes a batch, the batch's answers stay in order with every chunk reported, and
a job the judge crashed on is that job's system error alone."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, cast

from judge_service.complexity import ComplexityJudge
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings
from judge_service.worker.inprocess import InProcessDispatcher


class OneSandbox:
    """Judges one job at a time, 5 ms each, and remembers the order; job ``bN`` passes N of
    1000 tests, so answers show whose they are."""

    closed = False

    def __init__(self) -> None:
        self.sandbox = threading.Lock()
        self.order: list[str] = []

    def judge(self, job: Job) -> JobResult:
        with self.sandbox:
            self.order.append(job.code)
            time.sleep(0.005)
        if job.code == "crash":
            raise RuntimeError("a bug in the judge")
        return JobResult(verdict=Verdict.WA, passed=int(job.code[1:] or 0), total=1000)

    def close(self) -> None:
        self.closed = True


def _payload(code: str) -> dict[str, Any]:
    job = Job(language="python", code=code, tests=[{"input": "", "output": "x"}])
    return {"job": job.model_dump(mode="json"), "complexity": None}


def _dispatcher(pool: OneSandbox) -> InProcessDispatcher:
    settings = Settings(sandboxes_per_language=1, chunk_size=4)
    return InProcessDispatcher(settings, cast(SandboxPool, pool), cast(ComplexityJudge, object()))


def test_a_single_submission_overtakes_a_batch_whose_answers_stay_in_order() -> None:
    pool = OneSandbox()
    dispatcher = _dispatcher(pool)
    reported: list[int] = []

    async def on_chunk(offset: int, answers: list[dict[str, Any]]) -> None:
        reported.append(offset)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        payloads = [_payload(f"b{i}") for i in range(40)]
        batch = asyncio.create_task(dispatcher.run(payloads, on_chunk))
        while len(pool.order) < 4:
            await asyncio.sleep(0.001)
        judged_before = len(pool.order)
        single = await dispatcher.run([_payload("s")])
        return await batch, single, pool.order.index("s") - judged_before

    try:
        batch, single, waited_for = asyncio.run(scenario())
    finally:
        dispatcher.close()
    # Admitted when the batch's running job ends, then behind the one admitted before it (and
    # one more if a thread races it to the sandbox).
    assert waited_for <= 4, pool.order
    assert [a["result"]["passed"] for a in single] == [0]
    assert [a["result"]["passed"] for a in batch] == list(range(40))
    assert sorted(reported) == list(range(0, 40, 4))


def test_a_crash_in_the_judge_is_that_jobs_system_error_alone() -> None:
    pool = OneSandbox()
    dispatcher = _dispatcher(pool)
    try:
        answers = asyncio.run(dispatcher.run([_payload("a1"), _payload("crash"), _payload("b2")]))
    finally:
        dispatcher.close()
    assert "result" in answers[0] and "result" in answers[2]
    assert "a bug in the judge" in answers[1]["system_error"]
