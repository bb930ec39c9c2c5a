"""A batch from one caller does not starve a single submission from another.

One Python sandbox, chunks of 4: a queued batch of 200 programs of about 50 ms of CPU each,
then, once it has started, one trivial submission in a request of its own. The single one must
come back while the batch has done at most a quarter of its work (with one FIFO queue of chunks
it came back after the whole batch), and the batch must still get every result, in order.
In-process and through Celery on Redis and on RabbitMQ (its default result backend, rpc://).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.settings import Settings
from tests.api._cluster import celery_workers, flush_redis

pytestmark = pytest.mark.integration

SPIN = {"id": "spin", "tests": [{"input": "", "output": "done"}]}
BATCH = 200
NO_COMPLEXITY = {"complexity": "off"}


def _spin(index: int) -> dict[str, Any]:
    code = f"x = 0\nfor k in range(700_000):\n    x += k\nprint('done')  # {index}\n"
    return {"id": f"b{index}", "problem_id": "spin", "language": "python", "code": code}


def _until(check: Callable[[], bool], what: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} in {timeout_s} s")
        time.sleep(0.05)


def _job(client: TestClient, job_id: str) -> dict[str, Any]:
    status: dict[str, Any] = client.get(f"/v1/submissions/{job_id}").json()
    return status


def _a_single_overtakes_a_batch(client: TestClient) -> None:
    assert client.post("/v1/problems", json=SPIN).status_code == 200
    batch = [_spin(index) for index in range(BATCH)]
    accepted = client.post("/v1/submissions", json={"submissions": batch, "options": NO_COMPLEXITY})
    job_id = accepted.json()["job_id"]
    # Its first chunk is back: the sandbox is warm and the batch holds the queue.
    _until(lambda: _job(client, job_id)["completed"] >= 4, "started")

    single = {"id": "single", "problem_id": "spin", "language": "python", "code": "print('done')"}
    answer = client.post("/v1/judge", json={"submissions": [single], "options": NO_COMPLEXITY})
    batch_then = _job(client, job_id)

    assert [(r["id"], r["verdict"]) for r in answer.json()["results"]] == [("single", "AC")]
    assert batch_then["status"] == "running", batch_then["status"]
    assert batch_then["completed"] <= BATCH // 4, batch_then["completed"]
    _until(lambda: _job(client, job_id)["status"] == "done", "done")
    results = _job(client, job_id)["results"]
    assert [(r["id"], r["verdict"]) for r in results] == [(f"b{i}", "AC") for i in range(BATCH)]


def test_in_process_a_single_submission_overtakes_a_batch(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db", sandboxes_per_language=1, chunk_size=4
    )
    with TestClient(create_app(settings)) as client:
        _a_single_overtakes_a_batch(client)


@pytest.mark.parametrize(
    "broker",
    ["redis://127.0.0.1:6379/10", "amqp://guest:guest@127.0.0.1:5672//"],
    ids=["redis", "rabbitmq"],
)
def test_celery_a_single_submission_overtakes_a_batch(broker: str, tmp_path: Path) -> None:
    flush_redis(10)
    queue = f"judge-fair-{uuid.uuid4().hex[:8]}"  # nothing left in it by an earlier run
    env = {
        "JUDGE_BROKER_URL": broker,
        "JUDGE_QUEUE_NAME": queue,
        "JUDGE_SANDBOXES_PER_LANGUAGE": "1",
        "JUDGE_WORKER_CONCURRENCY": "1",
    }
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db",
        broker_url=broker,
        queue_name=queue,
        chunk_size=4,
        worker_concurrency=1,
    )
    with (
        celery_workers(["fair"], env, tmp_path) as _,
        TestClient(create_app(settings)) as client,
    ):
        _until(lambda: bool(client.get("/health").json()["queue"].get("workers")), "up", 120)
        _a_single_overtakes_a_batch(client)
