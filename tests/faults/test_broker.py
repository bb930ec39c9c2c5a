"""The broker killed mid-job and started again empty: every queued message and stored result
gone. The job goes on by itself once the broker is back, every submission ends with its
verdict (or an explicit system error), and polls answer at once throughout."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.api._cluster import celery_workers, serving
from tests.faults._batch import SUM, check_every_item, poll_until_done, sum_batch, timed_status
from tests.faults._infra import private_rabbitmq, private_redis

pytestmark = pytest.mark.integration


def _wait_for_workers(client: httpx.Client, count: int) -> None:
    for _ in range(240):
        if len(client.get("/health").json()["queue"].get("workers", [])) >= count:
            return
        time.sleep(0.25)
    raise AssertionError(f"{count} workers never answered: {client.get('/health').json()}")


def _wait_for_progress(client: httpx.Client, job_id: str, done: int, after_s: float) -> None:
    """Wait ``after_s``, and longer if need be until ``done`` submissions are judged (a busy
    host judges slowly): the fault must fall mid-job."""
    started = time.monotonic()
    while time.monotonic() - started < 120:
        _, code, body = timed_status(client, job_id)
        if time.monotonic() - started >= after_s and code == 200 and body["completed"] >= done:
            return
        time.sleep(0.1)
    raise AssertionError(f"no progress before the fault: {body}")


def _polls_during(client: httpx.Client, job_id: str, seconds: float) -> list[float]:
    """Poll the job for ``seconds``; how long each poll took (each must answer, with 200)."""
    took = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        elapsed, code, body = timed_status(client, job_id)
        assert code == 200, (code, body)
        assert body["status"] in ("queued", "running"), body
        took.append(elapsed)
        time.sleep(0.2)
    return took


def test_redis_killed_and_restarted_empty_mid_job(tmp_path: Path) -> None:
    """The issue's reproduction: 300 submissions, Redis killed 4 s in, back empty 6 s later."""
    items, verdicts = sum_batch(300)
    with private_redis() as redis:
        env = {
            "JUDGE_BROKER_URL": redis.url,
            "JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db",
            "JUDGE_SANDBOXES_PER_LANGUAGE": "2",
        }
        with (
            celery_workers(["w1", "w2"], env, tmp_path) as workers,
            serving(env, tmp_path / "api.log") as api,
            httpx.Client(base_url=api.url, timeout=30) as client,
        ):
            client.post("/v1/problems", json=SUM).raise_for_status()
            _wait_for_workers(client, 2)
            submitted = client.post("/v1/submissions", json={"submissions": items})
            job_id = submitted.json()["job_id"]
            _wait_for_progress(client, job_id, done=16, after_s=4)
            redis.kill()
            at_kill = timed_status(client, job_id)[2]["completed"]
            outage_polls = _polls_during(client, job_id, 6)
            redis.start()
            status = poll_until_done(client, job_id, timeout_s=180)
            logs = {name: workers.log(name)[-2000:] for name in ("w1", "w2")}
    slowest = max(outage_polls)
    print(f"redis fault: {at_kill}/300 done at the kill, slowest poll in it {slowest:.3f} s")
    assert 0 < at_kill < 300, f"the kill must fall mid-job ({at_kill} done)"
    assert max(outage_polls) < 1.0, outage_polls
    system_errors = check_every_item(status, items, verdicts)
    assert not system_errors, (system_errors[:10], logs)


def test_rabbitmq_killed_and_restarted_empty_mid_job(tmp_path: Path) -> None:
    """The same with RabbitMQ as the broker (results in a private Redis, which stays up)."""
    items, verdicts = sum_batch(120)
    with private_rabbitmq() as rabbit, private_redis() as redis:
        env = {
            "JUDGE_BROKER_URL": rabbit.url,
            "JUDGE_RESULT_BACKEND": redis.url,
            "JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db",
            "JUDGE_SANDBOXES_PER_LANGUAGE": "2",
        }
        with (
            celery_workers(["r1"], env, tmp_path) as workers,
            serving(env, tmp_path / "api.log") as api,
            httpx.Client(base_url=api.url, timeout=30) as client,
        ):
            client.post("/v1/problems", json=SUM).raise_for_status()
            _wait_for_workers(client, 1)
            submitted = client.post("/v1/submissions", json={"submissions": items})
            job_id = submitted.json()["job_id"]
            _wait_for_progress(client, job_id, done=16, after_s=2)
            rabbit.kill()
            rabbit.wipe()
            at_kill = timed_status(client, job_id)[2]["completed"]
            outage_polls = _polls_during(client, job_id, 3)
            rabbit.start()
            status = poll_until_done(client, job_id, timeout_s=180)
            log = workers.log("r1")[-2000:]
    print(f"rabbitmq fault: {at_kill}/120 done at the kill, slowest poll {max(outage_polls):.3f} s")
    assert 0 < at_kill < 120, f"the kill must fall mid-job ({at_kill} done)"
    assert max(outage_polls) < 1.0, outage_polls
    system_errors = check_every_item(status, items, verdicts)
    assert not system_errors, (system_errors[:10], log)
