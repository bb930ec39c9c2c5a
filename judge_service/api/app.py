"""The FastAPI application: ``create_app(settings)``; OpenAPI docs at /docs."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.types import ASGIApp, Receive, Scope, Send

from judge_service.api.compat import router as compat_router
from judge_service.api.deps import StateDep
from judge_service.api.errors import install_handlers
from judge_service.api.jobs import sweep_stale_jobs
from judge_service.api.routes import router
from judge_service.api.state import AppState
from judge_service.dispatch import CeleryDispatcher, Dispatcher
from judge_service.metrics import Metrics
from judge_service.service import JudgeService
from judge_service.settings import (
    DEFAULT_DATA_DIR,
    DEFAULT_DATABASE_URL,
    Settings,
    get_settings,
)
from judge_service.store.db import upgrade
from judge_service.store.repository import Store


def create_app(settings: Settings | None = None, dispatcher: Dispatcher | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.database_url == DEFAULT_DATABASE_URL:
            DEFAULT_DATA_DIR.mkdir(exist_ok=True)
        await asyncio.to_thread(upgrade, settings.database_url)
        store = Store(settings.database_url)
        chosen = dispatcher or _dispatcher_for(settings)
        metrics = Metrics()
        state = AppState(
            settings, store, chosen, metrics, JudgeService(settings, store, chosen, metrics)
        )
        app.state.judge = state
        sweeper = asyncio.create_task(sweep_stale_jobs(state))
        state.background.add(sweeper)
        # What is alive now (modules, schemas, the app) lives as long as the process: kept out of
        # the collector's sight, a full collection takes a few ms instead of 50-80 ms with the
        # GIL held, which /health and every other request waited out. Garbage goes first, or it
        # would be kept for good.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            for task in list(app.state.judge.background):
                task.cancel()
            chosen.close()
            gc.unfreeze()  # the app may be garbage now (tests start many in one process)

    app = FastAPI(
        title="judge-service",
        version="0.1.0",
        lifespan=lifespan,
        description="Code-execution judge and complexity reward for RL on code models.",
    )
    # The compatibility routes first: verl sends /run_code once per program, and a request is
    # matched against the routes in order (the paths do not overlap).
    app.include_router(compat_router)
    app.include_router(router)

    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    install_handlers(app)

    @app.get(
        "/health",
        summary="Broker, database and sandbox pools",
        responses={503: {"description": "Degraded: the same report, with the failing part"}},
    )
    async def health(state: StateDep) -> JSONResponse:
        report: dict[str, Any] = {}
        try:
            await asyncio.to_thread(state.store.ping)
            report["database"] = {"ok": True}
        except Exception as error:
            report["database"] = {"ok": False, "error": str(error).splitlines()[0][:300]}
        report["queue"] = await asyncio.to_thread(state.dispatcher.health)
        report["sandbox_pools"] = state.dispatcher.occupancy()
        healthy = report["database"]["ok"] and report["queue"]["ok"]
        report["status"] = "ok" if healthy else "degraded"
        return JSONResponse(status_code=200 if healthy else 503, content=report)

    @app.get("/metrics", summary="Prometheus metrics", response_class=PlainTextResponse)
    async def metrics(state: StateDep) -> Response:
        depth = await asyncio.to_thread(state.dispatcher.queue_depth)
        state.metrics.queue_depth.set(-1 if depth is None else depth)
        for language, counts in state.dispatcher.occupancy().items():
            for name, value in counts.items():
                state.metrics.pool_occupancy.labels(language=language, state=name).set(value)
        return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app


class BodyLimit:
    """A request whose declared body is over ``max_bytes`` is 413 before it is read.

    Plain ASGI: Starlette's ``BaseHTTPMiddleware`` relays every request through a task and
    memory streams, about as much CPU as a small /run_code call's own handling."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            length = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
            if length.isdigit() and int(length) > self.max_bytes:
                response = JSONResponse(
                    status_code=413,
                    content={"detail": f"request body over {self.max_bytes} bytes"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _dispatcher_for(settings: Settings) -> Dispatcher:
    """Celery when a broker is configured (tasks go by name), else judging in this process."""
    if settings.broker_url:
        return CeleryDispatcher(settings)
    # The in-process mode alone runs the task bodies here, against a sandbox pool of this
    # process: imported at start-up when chosen, so that importing the API (or running it with
    # a broker) loads none of the task bodies, the pool or docker (tests/api/test_api_imports).
    from judge_service.worker.inprocess import InProcessDispatcher

    return InProcessDispatcher(settings)
