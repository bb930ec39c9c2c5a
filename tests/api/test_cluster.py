"""The service at scale on real infrastructure: PostgreSQL, Redis or RabbitMQ, Celery workers
in separate processes, Docker sandboxes; and what happens when a piece of it fails."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import httpx
import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.sandbox.sandbox import remove_stale_sandboxes
from judge_service.settings import Settings
from tests.api._cluster import (
    ApiServer,
    Workers,
    celery_workers,
    flush_redis,
    poll_job,
    postgres_database,
    set_connections_allowed,
    wait_for_workers,
)
from tests.api._contract_batch import SUM, contract_batch

pytestmark = pytest.mark.integration


def _metric(client: TestClient, name: str) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} missing from /metrics")


def _slow_sums(count: int) -> list[dict[str, Any]]:
    """``count`` distinct Python submissions of ``sum`` that take 40 ms a test."""
    slow = "import time\na, b = map(int, input().split())\ntime.sleep(0.04)\nprint(a + b)\n"
    return [
        {"id": str(i), "problem_id": "sum", "language": "python", "code": slow + f"# {i}\n"}
        for i in range(count)
    ]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Workers]]:
    """The API on PostgreSQL, two Celery workers on Redis (database 13), all real."""
    broker = "redis://127.0.0.1:6379/13"
    flush_redis(13)
    env = {"JUDGE_BROKER_URL": broker, "JUDGE_SANDBOXES_PER_LANGUAGE": "2"}
    with (
        postgres_database() as database_url,
        celery_workers(["w1", "w2"], env, tmp_path_factory.mktemp("workers")) as workers,
    ):
        settings = Settings(database_url=database_url, broker_url=broker, chunk_size=8)
        with TestClient(create_app(settings)) as client:
            assert client.post("/v1/problems", json=SUM).status_code == 200
            wait_for_workers(client, 2)
            yield client, workers


def test_500_mixed_submissions_in_order_then_all_from_the_cache(
    cluster: tuple[TestClient, Workers],
) -> None:
    client, workers = cluster
    items, expected = contract_batch(500)
    response = client.post("/v1/judge", json={"submissions": items})
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["id"] for r in results] == [item["id"] for item in items]
    wrong = [
        (r["id"], r["status"], r["verdict"], want, r["error"])
        for r, want in zip(results, expected, strict=True)
        if (r["status"], r["verdict"]) != ("ok", want)
    ]
    assert not wrong, wrong[:10]
    for result in results:
        assert result["reward"]["correctness"] == (1.0 if result["verdict"] == "AC" else 0.0)
    assert all(workers.log(name).count("succeeded") > 0 for name in ("w1", "w2"))

    sandbox_jobs = _metric(client, "judge_sandbox_jobs_total")
    hits = _metric(client, "judge_cache_hits_total")
    again = client.post("/v1/judge", json={"submissions": items}).json()["results"]
    assert all(r["cached"] for r in again)
    assert [r["verdict"] for r in again] == expected
    assert _metric(client, "judge_sandbox_jobs_total") == sandbox_jobs  # nothing ran again
    assert _metric(client, "judge_cache_hits_total") == hits + 500


def test_async_submit_and_poll_through_celery(cluster: tuple[TestClient, Workers]) -> None:
    client, _ = cluster
    items, expected = contract_batch(40)
    for item in items:  # new programs, so that the workers run them
        item["code"] += "\n// async\n" if item["language"] != "python" else "\n# async\n"
    accepted = client.post("/v1/submissions", json={"submissions": items})
    assert accepted.status_code == 202
    status = poll_job(client, accepted.json()["job_id"])
    assert status["completed"] == status["total"] == 40
    assert [r["verdict"] for r in status["results"]] == expected
    assert not any(r["cached"] for r in status["results"])


def test_kill_9_of_a_worker_mid_batch_loses_no_result(tmp_path: Path) -> None:
    broker = "redis://127.0.0.1:6379/12"
    flush_redis(12)
    # A short visibility timeout: the dead worker's tasks come back in seconds, not minutes.
    env = {
        "JUDGE_BROKER_URL": broker,
        "JUDGE_SANDBOXES_PER_LANGUAGE": "2",
        "JUDGE_TASK_VISIBILITY_TIMEOUT_S": "8",
    }
    items = _slow_sums(80)
    with (
        postgres_database() as database_url,
        celery_workers(["victim", "survivor"], env, tmp_path) as workers,
    ):
        settings = Settings(
            database_url=database_url,
            broker_url=broker,
            chunk_size=4,
            task_visibility_timeout_s=8,
        )
        with TestClient(create_app(settings)) as client:
            client.post("/v1/problems", json=SUM)
            wait_for_workers(client, 2)
            job_id = client.post("/v1/submissions", json={"submissions": items}).json()["job_id"]
            # Kill it mid-batch: once it has finished a chunk of its own and holds others.
            for _ in range(600):
                progress = client.get(f"/v1/submissions/{job_id}").json()["completed"]
                if progress >= 8 and "succeeded" in workers.log("victim"):
                    break
                time.sleep(0.05)
            assert "succeeded" in workers.log("victim"), "the victim must have been working"
            workers.kill_hard("victim")
            killed_at = client.get(f"/v1/submissions/{job_id}").json()["completed"]
            status = poll_job(client, job_id)
    assert killed_at < 80, "the kill came too late to test anything"
    assert status["completed"] == 80
    results = status["results"]
    assert [r["id"] for r in results] == [str(i) for i in range(80)]
    assert [(r["status"], r["verdict"]) for r in results] == [("ok", "AC")] * 80


def test_kill_9_of_the_api_process_mid_job_resumes_it_in_another(tmp_path: Path) -> None:
    env = {
        "JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db",
        "JUDGE_SANDBOXES_PER_LANGUAGE": "2",
        "JUDGE_JOB_HEARTBEAT_S": "0.5",
        "JUDGE_JOB_STALE_AFTER_S": "2",
    }
    items = _slow_sums(40)
    first = ApiServer(env, tmp_path / "first.log")
    second: ApiServer | None = None
    try:
        first.wait_ready()
        httpx.post(f"{first.url}/v1/problems", json=SUM, timeout=30).raise_for_status()
        submitted = httpx.post(f"{first.url}/v1/submissions", json={"submissions": items})
        job_id = submitted.json()["job_id"]
        for _ in range(600):  # kill it once it has stored some results, well before the end
            if httpx.get(f"{first.url}/v1/submissions/{job_id}").json()["completed"] >= 8:
                break
            time.sleep(0.05)
        first.kill_hard()
        second = ApiServer(env, tmp_path / "second.log")
        second.wait_ready()
        with httpx.Client(base_url=second.url, timeout=30) as client:
            killed_at = client.get(f"/v1/submissions/{job_id}").json()["completed"]
            status = poll_job(client, job_id, timeout_s=120)
    finally:
        for server in (first, second):
            if server is not None:
                server.stop()
        remove_stale_sandboxes(docker.from_env())  # the killed server leaves its sandboxes
    assert 8 <= killed_at < 40, "the kill must fall mid-job"
    assert status["status"] == "done" and status["completed"] == 40, status
    assert [r["id"] for r in status["results"]] == [str(i) for i in range(40)]
    assert [(r["status"], r["verdict"]) for r in status["results"]] == [("ok", "AC")] * 40
    assert "resuming job" in (tmp_path / "second.log").read_text(errors="replace")


def test_rabbitmq_broker(tmp_path: Path) -> None:
    queue = f"judge-test-{uuid.uuid4().hex[:8]}"
    env = {
        "JUDGE_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//",
        "JUDGE_RESULT_BACKEND": "redis://127.0.0.1:6379/11",
        "JUDGE_QUEUE_NAME": queue,
        "JUDGE_SANDBOXES_PER_LANGUAGE": "1",
    }
    items, expected = contract_batch(30)
    with celery_workers(["rabbit"], env, tmp_path) as workers:
        settings = Settings(
            database_url=f"sqlite:///{tmp_path}/judge.db",
            broker_url=env["JUDGE_BROKER_URL"],
            result_backend=env["JUDGE_RESULT_BACKEND"],
            queue_name=queue,
        )
        with TestClient(create_app(settings)) as client:
            client.post("/v1/problems", json=SUM)
            wait_for_workers(client, 1)
            results = client.post("/v1/judge", json={"submissions": items}).json()["results"]
            assert client.get("/health").json()["queue"]["ok"] is True
        assert workers.stop_gracefully("rabbit") == []  # a stopping worker removes its sandboxes
    assert [r["verdict"] for r in results] == expected, (results[0], workers.log("rabbit")[-3000:])
    assert "succeeded" in workers.log("rabbit")


def test_database_down_is_503_and_comes_back() -> None:
    with postgres_database() as database_url:
        settings = Settings(database_url=database_url, sandboxes_per_language=1)
        item = {"problem_id": "sum", "language": "python", "code": "print(1)\n"}
        with TestClient(create_app(settings)) as client:
            client.post("/v1/problems", json=SUM)
            set_connections_allowed(database_url, False)
            try:
                judged = client.post("/v1/judge", json={"submissions": [item]})
                assert judged.status_code == 503, judged.text
                assert "database" in judged.json()["detail"]
                health = client.get("/health")
                assert health.status_code == 503 and health.json()["database"]["ok"] is False
                assert client.get("/v1/problems/sum").status_code == 503
            finally:
                set_connections_allowed(database_url, True)
            back = client.post("/v1/judge", json={"submissions": [item]})
            assert back.status_code == 200 and back.json()["results"][0]["verdict"] == "WA"


def test_sandboxes_down_is_a_system_error_without_reward(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db", image_prefix="judge-no-such-image-"
    )
    item = {"id": "x", "problem_id": "sum", "language": "python", "code": "print(1)\n"}
    bad = {"id": "bad", "problem_id": "sum", "language": "cobol", "code": "x"}
    with TestClient(create_app(settings)) as client:
        client.post("/v1/problems", json=SUM)
        results = client.post("/v1/judge", json={"submissions": [item, bad]}).json()["results"]
        again = client.post("/v1/judge", json={"submissions": [item]}).json()["results"]
    assert results[0]["status"] == "system_error" and results[0]["reward"] is None
    assert results[0]["verdict"] is None and "image" in results[0]["error"]
    assert results[1]["status"] == "error"
    assert again[0]["status"] == "system_error" and not again[0]["cached"]  # never cached
