"""The Celery application's configuration, shared by the API (which sends) and the workers.

One task, ``judge.chunk`` (:data:`TASK_NAME`), acknowledged late and redelivered. The API sends
it by name and so loads no task code; a worker registers its body on the same configuration
(``worker/runner.py``). With the Redis broker, a task held by a worker that died (``kill -9``)
becomes visible again after ``task_visibility_timeout_s``; RabbitMQ redelivers at once, and
confirms every publish.
"""

from __future__ import annotations

from celery import Celery

from judge_service.settings import Settings

TASK_NAME = "judge.chunk"


def result_backend_for(settings: Settings) -> str:
    if settings.result_backend:
        return settings.result_backend
    broker = settings.broker_url or ""
    return broker if broker.startswith(("redis://", "rediss://")) else "rpc://"


def make_celery(settings: Settings) -> Celery:
    """The Celery app for ``settings``' broker and queue, with no task registered."""
    app = Celery("judge_service", broker=settings.broker_url, backend=result_backend_for(settings))
    transport: dict[str, object] = {"visibility_timeout": settings.task_visibility_timeout_s}
    if (settings.broker_url or "").startswith(("amqp://", "amqps://", "pyamqp://")):
        # A publish written to a connection whose broker just died is lost without an error
        # unless the broker confirms it; with confirms, the send fails and is sent again.
        transport["confirm_publish"] = True
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # After a broker reconnect Celery cuts the prefetch count by the tasks still running and
        # raises it back as they finish; their acks fail on the dead connection, and a worker
        # was seen to stop taking work for minutes (celery#9512's family). With one prefetched
        # task per slot there is nothing to cut.
        worker_enable_prefetch_count_reduction=False,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_default_queue=settings.queue_name,
        broker_transport_options=transport,
        result_backend_transport_options={"visibility_timeout": settings.task_visibility_timeout_s},
        result_expires=3600,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    return app
