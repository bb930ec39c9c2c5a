"""A Celery worker process (``judge worker``): the ``judge.chunk`` task's body on the shared
configuration, and the one sandbox pool its concurrent chunks share.

Workers run with the threads pool so that one process owns one SandboxPool shared by its
concurrent chunks.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

from judge_service.complexity import ComplexityJudge, make_complexity_judge
from judge_service.sandbox.errors import SandboxError
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings, get_settings
from judge_service.worker.celery_app import TASK_NAME, make_celery
from judge_service.worker.tasks import judge_chunk

_log = logging.getLogger(__name__)
_worker_lock = threading.Lock()
_worker_pool: SandboxPool | None = None
_worker_complexity_judge: ComplexityJudge | None = None


def make_worker_app(settings: Settings) -> Celery:
    """The Celery app with the task's body registered: what a worker runs."""
    app = make_celery(settings)

    @app.task(name=TASK_NAME)  # type: ignore[untyped-decorator]
    def chunk(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return judge_chunk(_pool(), _complexity_judge(), payloads)

    return app


@worker_ready.connect  # type: ignore[untyped-decorator]
def _connect_pool(**_: Any) -> None:
    """A worker that starts on a host whose last worker was lost removes that worker's
    sandboxes now, not at its first task (which may never come to this host)."""
    try:
        _pool().connect()
    except SandboxError as error:  # its tasks will say so; the worker still serves
        _log.warning("sandboxes unavailable at start: %s", error)


@worker_shutdown.connect  # type: ignore[untyped-decorator]
def _close_pool(**_: Any) -> None:
    """A stopping worker removes its sandboxes rather than leave them running on the host."""
    global _worker_pool, _worker_complexity_judge
    with _worker_lock:
        if _worker_pool is not None:
            _worker_pool.close()
        _worker_pool = None
        _worker_complexity_judge = None


def _pool() -> SandboxPool:
    global _worker_pool
    with _worker_lock:
        if _worker_pool is None:
            _worker_pool = SandboxPool(get_settings())
        return _worker_pool


def _complexity_judge() -> ComplexityJudge:
    global _worker_complexity_judge
    pool = _pool()
    with _worker_lock:
        if _worker_complexity_judge is None:
            _worker_complexity_judge = make_complexity_judge(get_settings(), pool)
        return _worker_complexity_judge


def run_worker(settings: Settings, name: str | None, concurrency: int | None) -> None:
    """Start a worker in this process (blocks)."""
    if not settings.broker_url:
        raise SystemExit("judge worker needs a broker: set JUDGE_BROKER_URL (redis:// or amqp://)")
    app = make_worker_app(settings)
    argv = [
        "worker",
        "--pool",
        "threads",
        "--loglevel",
        "INFO",
        "-Q",
        settings.queue_name,
        "--concurrency",
        str(concurrency or settings.worker_concurrency),
    ]
    if name:
        argv += ["-n", name]
    app.worker_main(argv)
