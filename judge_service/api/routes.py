"""Problems, synchronous batch judging and asynchronous submissions."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, status

from judge_service.api.deps import AuthDep, StateDep
from judge_service.api.errors import ERRORS, NOT_FOUND, UNAUTHORIZED
from judge_service.api.jobs import resume_stale_jobs, start_job
from judge_service.api.state import AppState
from judge_service.exceptions import InvalidJobError, TooLarge
from judge_service.schemas import (
    JobStatus,
    JudgeRequest,
    JudgeResponse,
    Problem,
    SubmissionResult,
    SubmitResponse,
)
from judge_service.service import bounded_output

router = APIRouter(prefix="/v1", dependencies=[AuthDep], responses={**ERRORS, **UNAUTHORIZED})

# Only jobs stored without their request (by a version before 0002) cannot be resumed.
_ABANDONED = (
    "abandoned: the API process running this job stopped before it finished; submit it again "
    "(items it had judged are served from the cache)"
)


@router.post("/problems", summary="Create or update one or many problems")
async def upsert_problems(state: StateDep, body: Problem | list[Problem]) -> list[dict[str, Any]]:
    problems = body if isinstance(body, list) else [body]
    stored = await asyncio.to_thread(state.store.upsert_problems, problems)
    return [{"id": pid, "version": version, "new_version": new} for pid, version, new in stored]


@router.get(
    "/problems/{problem_id}", summary="The latest version of a problem", responses=NOT_FOUND
)
async def get_problem(state: StateDep, problem_id: str) -> dict[str, Any]:
    found = await asyncio.to_thread(state.store.get_problem, problem_id)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown problem {problem_id!r}")
    problem, version = found
    return {"version": version, **problem.model_dump(mode="json")}


@router.post("/judge", summary="Judge a batch and wait for every result")
async def judge(state: StateDep, request: JudgeRequest) -> JudgeResponse:
    _check_batch(state, request)
    results = await state.service.judge(request.submissions, request.options)
    return JudgeResponse(results=results)


@router.post(
    "/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Queue a batch; poll GET /v1/submissions/{job_id}",
)
async def submit(state: StateDep, request: JudgeRequest) -> SubmitResponse:
    _check_batch(state, request)
    total = len(request.submissions)
    # The stored copy names no problem by hash: resuming the job after a restart must not
    # depend on this process's memory.
    expanded = await asyncio.to_thread(state.service.inline_problems.expand, request.submissions)
    stored = await asyncio.to_thread(request.for_store, expanded)
    job_id = await asyncio.to_thread(
        state.store.create_job, total, request.options.model_dump(mode="json"), stored
    )
    start_job(state, job_id, request)
    return SubmitResponse(job_id=job_id, status="queued", total=total)


@router.get(
    "/submissions/{job_id}", summary="Progress and results of a queued batch", responses=NOT_FOUND
)
async def submission_status(state: StateDep, job_id: str) -> JobStatus:
    await resume_stale_jobs(state, job_id)
    await asyncio.to_thread(
        state.store.fail_stale_job, job_id, state.settings.job_stale_after_s, _ABANDONED
    )
    job = await asyncio.to_thread(state.store.get_job, job_id)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown job {job_id!r}")
    results = job.get("results")
    return JobStatus(
        job_id=job_id,
        status=job["status"],
        total=job["total"],
        completed=job["completed"],
        results=(
            bounded_output(
                [SubmissionResult.model_validate(r) for r in results],
                state.settings.max_reply_output_bytes,
            )
            if results
            else None
        ),
        error=job.get("error"),
    )


def _check_batch(state: AppState, request: JudgeRequest) -> None:
    count = len(request.submissions)
    if count == 0:
        raise InvalidJobError("no submissions")
    if count > state.settings.max_batch:
        raise TooLarge(f"{count} submissions; a batch holds at most {state.settings.max_batch}")
