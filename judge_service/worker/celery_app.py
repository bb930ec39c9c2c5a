"""The Celery application: one task, ``judge.chunk``, acknowledged late and redelivered.

Workers run with the threads pool so that one process owns one SandboxPool shared by its
concurrent chunks. With the Redis broker, a task held by a worker that died (``kill -9``)
becomes visible again after ``task_visibility_timeout_s``; RabbitMQ redelivers at once.
"""

from __future__ import annotations

import threading
from typing import Any

from celery import Celery
from celery.signals import worker_shutdown

from judge_service.complexity import ComplexityJudge, make_complexity_judge
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings, get_settings
from judge_service.worker.tasks import judge_chunk

TASK_NAME = "judge.chunk"
_worker_lock = threading.Lock()
_worker_pool: SandboxPool | None = None
_worker_complexity_judge: ComplexityJudge | None = None


def result_backend_for(settings: Settings) -> str:
    if settings.result_backend:
        return settings.result_backend
    broker = settings.broker_url or ""
    return broker if broker.startswith(("redis://", "rediss://")) else "rpc://"


def make_celery(settings: Settings) -> Celery:
    app = Celery("judge_service", broker=settings.broker_url, backend=result_backend_for(settings))
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_default_queue=settings.queue_name,
        broker_transport_options={"visibility_timeout": settings.task_visibility_timeout_s},
        result_backend_transport_options={"visibility_timeout": settings.task_visibility_timeout_s},
        result_expires=3600,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )

    @app.task(name=TASK_NAME)  # type: ignore[untyped-decorator]
    def chunk(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return judge_chunk(_pool(), _complexity_judge(), payloads)

    return app


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
    app = make_celery(settings)
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
