"""Error replies: their handlers and their OpenAPI declarations.

Every error is JSON ``{"detail": ...}``: a message, or the list of invalid fields FastAPI
reports (422). Clients retry on any of them (OpenRLHF five times), so each must say what to
change, and none may be a 500: a field the client got wrong is never the server's error.

The errors of ``judge_service.exceptions`` become replies here and nowhere else: a route
raises them and maps none. ``InvalidJobError`` is 422 (``BadRows`` with its list of rows),
``TooLarge`` 413 and ``InfrastructureError`` (the store, the queue, the sandboxes, the
complexity model) 503. Starlette picks the handler of the nearest class in an error's MRO.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from judge_service.client_json import is_text, printable
from judge_service.exceptions import BadRows, InfrastructureError, InvalidJobError, TooLarge

# Echoed inputs are capped: the invalid value may be the whole of a large body.
_ECHO_CHARS = 200


class FieldError(BaseModel):
    """One invalid field: its location (``["body", "run_timeout"]``), what is wrong, and the
    value sent when it is a short plain one."""

    type: str
    loc: list[str | int]
    msg: str
    input: str | int | float | bool | None = None


class ErrorOut(BaseModel):
    detail: str | list[FieldError]


def _error(description: str, model: type[BaseModel] = ErrorOut) -> dict[str, Any]:
    return {"model": model, "description": description}


# What any route may answer besides its own result. 400: a body that is not JSON at all
# (nested past the parser's limit, an integer too long to read); 413: the body, a batch or a
# field over its cap; 503: the database, the queue or the sandboxes failed.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: _error("The body could not be read as JSON"),
    413: _error("The body, the batch or a field is over its size cap"),
    422: _error("A field is invalid: the detail names it"),
    503: _error("Infrastructure failure (database, queue or sandboxes): retry later"),
}
UNAUTHORIZED: dict[int | str, dict[str, Any]] = {
    401: _error("An API key is required: 'Authorization: Bearer <key>'")
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: _error("No such problem or job")}


def install_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's own handler echoes each invalid input whole, and fails (a 500) on one
        # that JSON cannot carry: NaN, a lone surrogate.
        detail = [field_error(entry) for entry in error.errors()]
        return JSONResponse(status_code=422, content={"detail": detail})

    @app.exception_handler(InvalidJobError)
    async def invalid_job(request: Request, error: InvalidJobError) -> JSONResponse:
        # The message may quote what the client sent: a lone surrogate must not make it a 500.
        return JSONResponse(status_code=422, content={"detail": printable(str(error))})

    @app.exception_handler(BadRows)
    async def bad_rows(request: Request, error: BadRows) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": error.detail()})

    @app.exception_handler(TooLarge)
    async def too_large(request: Request, error: TooLarge) -> JSONResponse:
        return JSONResponse(status_code=413, content={"detail": printable(str(error))})

    @app.exception_handler(InfrastructureError)
    async def infrastructure_failed(request: Request, error: InfrastructureError) -> JSONResponse:
        detail = f"system error: {printable(str(error))}"
        return JSONResponse(status_code=503, content={"detail": detail})


def field_error(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A pydantic error entry as JSON that always encodes (see :class:`FieldError`)."""
    loc = [
        part if isinstance(part, int) else printable(str(part))[:_ECHO_CHARS]
        for part in entry["loc"]
    ]
    out: dict[str, Any] = {"type": entry["type"], "loc": loc, "msg": printable(entry["msg"])}
    if _plain(entry.get("input")):
        out["input"] = entry["input"]
    return out


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return abs(value) < 1 << 63
    if isinstance(value, float):
        return math.isfinite(value)
    return is_text(value) and len(value) <= _ECHO_CHARS
