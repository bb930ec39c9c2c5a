"""Endpoints that speak other judges' wire formats, so that their clients switch by URL.

SandboxFusion (``/run_code``, ``/submit``) and OpenRLHF's remote reward
(``/openrlhf/reward``), with the same API-key auth and batch caps as ``/v1``.
"""

from fastapi import APIRouter

from judge_service.api.compat import openrlhf, sandboxfusion
from judge_service.api.deps import AuthDep
from judge_service.api.errors import ERRORS, UNAUTHORIZED

router = APIRouter(dependencies=[AuthDep], responses={**ERRORS, **UNAUTHORIZED})
router.include_router(sandboxfusion.router)
router.include_router(openrlhf.router)

__all__ = ["router"]
