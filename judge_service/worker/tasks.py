"""The unit of work a worker does: judge a chunk of submissions in its sandbox pool.

Celery workers judge a chunk per task (``judge_chunk``); in-process (the embedded default) the
dispatcher schedules each submission itself (``judge_one``). Both answer through ``_answer``,
so both paths are the same code. A task is idempotent: judging the same chunk again gives the
same answer, which is what makes late acknowledgement and redelivery after a worker's death
safe.

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
    """A chunk's answers, in order; its jobs run in parallel (a Celery worker's task)."""
    jobs: list[Job | None] = []
    answers: list[dict[str, Any] | None] = []
    for payload in payloads:
        try:
            jobs.append(Job.model_validate(payload["job"]))
            answers.append(None)
        except (ValidationError, KeyError) as error:
            jobs.append(None)
            answers.append(_malformed(error))
    runnable = [job for job in jobs if job is not None]
    results = iter(pool.judge_many(runnable))
    for index, job in enumerate(jobs):
        if job is None:
            continue
        result = next(results)
        answers[index] = _answer(result, payloads[index].get("complexity"), complexity_judge, job)
    return [answer for answer in answers if answer is not None]


def judge_one(
    pool: SandboxPool, complexity_judge: ComplexityJudge, payload: dict[str, Any]
) -> dict[str, Any]:
    """One submission's answer: for a caller that schedules every job itself (in-process)."""
    try:
        job = Job.model_validate(payload["job"])
    except (ValidationError, KeyError) as error:
        return _malformed(error)
    try:
        result = pool.judge(job)
    except SandboxError as error:  # as judge_many does: the infrastructure failed this job
        result = JobResult.system_failure(len(job.tests), str(error))
    return _answer(result, payload.get("complexity"), complexity_judge, job)


def _malformed(error: Exception) -> dict[str, Any]:
    return {"system_error": f"malformed task payload: {error}"}


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
