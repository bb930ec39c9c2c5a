"""OpenRLHF remote reward: ``POST /openrlhf/reward`` (``--remote_rm_url http://HOST/openrlhf/reward``).

``{"query", "prompts", "labels"}`` in, ``{"rewards", "scores", "extra_logs"}`` out, one float
per row in order (label format: ``_openrlhf``). ``rewards`` is the service's gated reward,
``scores`` the pass rate. Every row gets a real score or the request fails as a whole: an
unusable label is HTTP 422 listing the rows (a dataset bug, which no retry fixes); a row the
judge failed on is HTTP 503 (OpenRLHF retries; rows already judged come from the cache).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from judge_service.api.compat._openrlhf import LOG_NAMES, reward_response, submissions
from judge_service.api.compat.schemas import RewardErrorOut, RewardRequest, RewardResponse
from judge_service.api.deps import StateDep
from judge_service.exceptions import TooLarge
from judge_service.schemas import JudgeOptions

router = APIRouter(tags=["compat: OpenRLHF"])


@router.post(
    "/openrlhf/reward",
    summary="OpenRLHF: rewards for a batch of rollouts",
    responses={422: {"model": RewardErrorOut, "description": "Invalid fields or rows"}},
)
async def reward(state: StateDep, request: RewardRequest) -> RewardResponse:
    count = len(request.query)
    if count > state.settings.max_batch:
        raise TooLarge(f"{count} rows; a batch holds at most {state.settings.max_batch}")
    items = await asyncio.to_thread(submissions, request, state.settings.max_completion_chars)
    if not items:
        return RewardResponse(rewards=[], scores=[], extra_logs={n: [] for n in LOG_NAMES})
    results = await state.service.judge(items, JudgeOptions())
    return reward_response(results)
