"""The unit of work a worker does: judge a chunk of submissions in its sandbox pool.

The same function runs in-process (the embedded default) and in Celery workers, so both paths
are the same code. A task is idempotent: judging the same chunk again gives the same answer,
which is what makes late acknowledgement and redelivery after a worker's death safe.

Payload, per submission: ``{"job": Job dump, "complexity": {"mode", "problem"} | None}``.
Answer, per submission: ``{"result": JobResult dump, "complexity": ComplexityOut dump | None}``
or ``{"system_error": message}`` when the infrastructure failed for it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from judge_service.complexity import ComplexityJudge, to_output
from judge_service.exceptions import InvalidJobError, SandboxError
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.schemas import ComplexityMode, Problem


def judge_chunk(
    pool: SandboxPool, complexity_judge: ComplexityJudge, payloads: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    jobs: list[Job | None] = []
    answers: list[dict[str, Any] | None] = []
    for payload in payloads:
        try:
            jobs.append(Job.model_validate(payload["job"]))
            answers.append(None)
        except (ValidationError, KeyError) as error:
            jobs.append(None)
            answers.append({"system_error": f"malformed task payload: {error}"})
    runnable = [job for job in jobs if job is not None]
    results = iter(pool.judge_many(runnable))
    for index, job in enumerate(jobs):
        if job is None:
            continue
        result = next(results)
        answers[index] = _answer(result, payloads[index].get("complexity"), complexity_judge, job)
    return [answer for answer in answers if answer is not None]


def _answer(
    result: JobResult,
    complexity: dict[str, Any] | None,
    complexity_judge: ComplexityJudge,
    job: Job,
) -> dict[str, Any]:
    if result.verdict is Verdict.SE and result.system_error:
        return {"system_error": result.system_error}
    answer: dict[str, Any] = {"result": result.model_dump(mode="json"), "complexity": None}
    if complexity and complexity.get("mode") != ComplexityMode.OFF and result.pass_rate == 1.0:
        problem = Problem.model_validate(complexity["problem"])
        try:
            estimate = complexity_judge.estimate(job.code, job.language, problem)
        except (SandboxError, InvalidJobError) as error:
            return {"system_error": f"complexity judge failed: {error}"}
        answer["complexity"] = to_output(estimate, problem.optimal_complexity).model_dump(
            mode="json"
        )
    return answer
