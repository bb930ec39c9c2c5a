"""SandboxFusion's ``POST /run_code`` and ``POST /submit`` (inline CommonOJDataset problems).

Both run through the same service, dispatcher and sandboxes as ``/v1/judge``. A bad request
is HTTP 422 with the reason. An infrastructure failure is ``"status": "SandboxError"`` from
/run_code (SandboxFusion's contract; verl scores it as an error, not as a failed program) and
HTTP 503 from /submit, whose ``accepted: false`` would otherwise read as a zero reward.
"""

from __future__ import annotations

import asyncio
import functools
import math
import time

from fastapi import APIRouter, Response

from judge_service.api.compat._exec import exec_info, fetched_files, run_code_job
from judge_service.api.compat._submit import eval_result, prepare
from judge_service.api.compat.schemas import (
    EvalResult,
    RunCodeRequest,
    RunCodeResponse,
    RunStatus,
    SubmitRequest,
)
from judge_service.api.deps import StateDep
from judge_service.exceptions import InfrastructureError, SandboxError
from judge_service.sandbox.models import Verdict

router = APIRouter(tags=["compat: SandboxFusion"])

# SandboxFusion keeps at most 1 MiB of each stream; verl compares stdout on the client side.
RUN_CODE_REPORT_BYTES = 1 << 20
CLIENT_SLACK_S = 10.0
ANSWER_MARGIN_S = 2.0
# Programs up to this long (and without files) are made into a job on the event loop.
INLINE_CODE_CHARS = 64 << 10


@router.post(
    "/run_code",
    summary="SandboxFusion: run one program on one stdin",
    response_model=RunCodeResponse,
)
async def run_code(state: StateDep, request: RunCodeRequest) -> Response:
    # verl sends one program per call, so this path's own cost is per program: a small
    # request is read on the event loop (a thread hop costs more than reading it), and the
    # answer is written once, by its model (FastAPI would validate it again first).
    build = functools.partial(
        run_code_job,
        request,
        state.settings,
        report_bytes=RUN_CODE_REPORT_BYTES,
        answer_by=_client_gives_up_at(request),
    )
    try:
        small = not request.files and len(request.code) <= INLINE_CODE_CHARS
        job = build() if small else await asyncio.to_thread(build)
        [result] = await state.service.run_jobs([job])
    except InfrastructureError as error:  # SandboxFusion's contract: a status, not an HTTP error
        response = RunCodeResponse(status=RunStatus.SANDBOX_ERROR, message=f"system error: {error}")
    else:
        response = exec_info(job.language, result, result.tests[0] if result.tests else None)
        if response.status is not RunStatus.SANDBOX_ERROR:
            response.files = fetched_files(result)
    return Response(response.model_dump_json(), media_type="application/json")


def _client_gives_up_at(request: RunCodeRequest) -> float | None:
    """verl gives up on a /run_code call after compile_timeout + run_timeout + 10 s and never
    retries: answer a little before that, or say at once that no sandbox is free."""
    patience = request.compile_timeout + request.run_timeout + CLIENT_SLACK_S - ANSWER_MARGIN_S
    return time.time() + patience if math.isfinite(patience) and patience > 0 else None


@router.post("/submit", summary="SandboxFusion: judge a completion on an inline problem")
async def submit(state: StateDep, request: SubmitRequest) -> EvalResult:
    read = await asyncio.to_thread(prepare, request, state.settings)
    if read.job is None:
        return eval_result(request, read.language, None, read.cases, None)
    [result] = await state.service.run_jobs([read.job])
    if result.verdict is Verdict.SE or result.system_error:
        raise SandboxError(result.system_error or "the judge failed")  # HTTP 503, never a 0
    return eval_result(request, read.language, read.code, read.cases, result)
