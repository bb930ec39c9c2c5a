"""Request dependencies, as ``Annotated`` aliases the routes declare."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from judge_service.api.state import AppState

_bearer = HTTPBearer(auto_error=False)


# Both are coroutines: FastAPI runs a plain function dependency in a worker thread, two thread
# hops per request that cost a /run_code call (one program each) more than its parsing.
async def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.judge
    return state


StateDep = Annotated[AppState, Depends(get_state)]


async def require_api_key(
    state: StateDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    keys = state.settings.api_keys
    if not keys:
        return
    given = credentials.credentials if credentials else ""
    if not any(hmac.compare_digest(given.encode(), key.encode()) for key in keys):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="a valid 'Authorization: Bearer <key>' header is required",
            headers={"WWW-Authenticate": "Bearer"},
        )


AuthDep = Depends(require_api_key)
