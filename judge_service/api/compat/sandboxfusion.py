"""SandboxFusion's ``POST /run_code`` and ``POST /submit`` (inline CommonOJDataset problems).

Both run through the same service, dispatcher and sandboxes as ``/v1/judge``. A bad request
is HTTP 422 with the reason. An infrastructure failure is ``"status": "SandboxError"`` from
/run_code (SandboxFusion's contract; verl scores it as an error, not as a failed program) and
HTTP 503 from /submit, whose ``accepted: false`` would otherwise read as a zero reward.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException

from judge_service.api.compat._exec import decode_files, exec_info, fetched_files, limits_for
from judge_service.api.compat._languages import engine_language
from judge_service.api.compat._submit import eval_result, problem_cases, submit_job
from judge_service.api.compat.schemas import (
    EvalResult,
    RunCodeRequest,
    RunCodeResponse,
    RunStatus,
    SubmitRequest,
)
from judge_service.api.deps import StateDep
from judge_service.exceptions import InfrastructureError, InvalidJobError, SandboxError
from judge_service.reward import extract_code
from judge_service.sandbox.models import Job, TestCase, Verdict

router = APIRouter(tags=["compat: SandboxFusion"])

# SandboxFusion keeps at most 1 MiB of each stream; verl compares stdout on the client side.
RUN_CODE_REPORT_BYTES = 1 << 20


@router.post("/run_code", summary="SandboxFusion: run one program on one stdin")
async def run_code(state: StateDep, request: RunCodeRequest) -> RunCodeResponse:
    try:
        language = engine_language(request.language)
        job = Job(
            language=language,
            code=request.code,
            tests=[TestCase(input=request.stdin or "", output="")],  # output unused: no checking
            limits=limits_for(
                language,
                state.settings,
                run_timeout_s=request.run_timeout,
                compile_timeout_s=request.compile_timeout,
                memory_limit_mb=request.memory_limit_MB,
                report_bytes=RUN_CODE_REPORT_BYTES,
            ),
            files=decode_files(request.files),
            fetch_files=request.fetch_files,
        )
        [result] = await state.service.run_jobs([job])
    except InvalidJobError as error:
        raise HTTPException(422, detail=str(error)) from error
    except InfrastructureError as error:
        return RunCodeResponse(status=RunStatus.SANDBOX_ERROR, message=f"system error: {error}")
    response = exec_info(language, result, result.tests[0] if result.tests else None)
    if response.status is not RunStatus.SANDBOX_ERROR:
        response.files = fetched_files(result)
    return response


@router.post("/submit", summary="SandboxFusion: judge a completion on an inline problem")
async def submit(state: StateDep, request: SubmitRequest) -> EvalResult:
    try:
        language, cases = problem_cases(request)
        code = await asyncio.to_thread(
            extract_code, request.completion, language, state.settings.reward
        )
        if code is None:
            return eval_result(request, language, None, cases, None)
        job = submit_job(request, language, code, cases, state.settings)
        [result] = await state.service.run_jobs([job])
    except InvalidJobError as error:
        raise HTTPException(422, detail=str(error)) from error
    if result.verdict is Verdict.SE or result.system_error:
        raise SandboxError(result.system_error or "the judge failed")  # HTTP 503, never a 0
    return eval_result(request, language, code, cases, result)
