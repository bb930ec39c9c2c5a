"""A judge sandbox killed from outside (``docker kill``) in the middle of a queued job: the
submission it held ends as an explicit system error (never a verdict), every other one with
its verdict, the pool starts a new sandbox in its place, and a retry judges what it cost."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import docker
import httpx
import pytest

from judge_service.sandbox.sandbox import OWNER_LABEL
from tests.api._cluster import serving
from tests.faults._batch import SUM, check_every_item, poll_until_done, sum_batch, timed_status

pytestmark = pytest.mark.integration


def _sandboxes(client: docker.DockerClient, owner: str) -> list[str]:
    """Ids of the running Python sandboxes of one API process."""
    filters = {"label": [f"{OWNER_LABEL}={owner}", "org.judge.language=python"]}
    return [c.id for c in client.containers.list(filters=filters)]


def test_docker_kill_of_a_sandbox_mid_job(tmp_path: Path) -> None:
    items, verdicts = sum_batch(60, sleep_s=0.05)
    env = {
        "JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db",
        "JUDGE_SANDBOXES_PER_LANGUAGE": "2",
    }
    docker_client = docker.from_env()
    with (
        serving(env, tmp_path / "api.log") as api,
        httpx.Client(base_url=api.url, timeout=30) as client,
    ):
        owner = f"{socket.gethostname()}:{api.process.pid}"
        client.post("/v1/problems", json=SUM).raise_for_status()
        job_id = client.post("/v1/submissions", json={"submissions": items}).json()["job_id"]
        while (at_kill := timed_status(client, job_id)[2]["completed"]) < 8:
            time.sleep(0.1)
        victim = _sandboxes(docker_client, owner)[0]
        docker_client.containers.get(victim).kill()
        status = poll_until_done(client, job_id, timeout_s=120)
        system_errors = check_every_item(status, items, verdicts)
        live = _sandboxes(docker_client, owner)
        # What the kill cost is judged by a retry, on the sandboxes that replaced it.
        retry = [item for item in items if item["id"] in system_errors]
        retried = client.post("/v1/judge", json={"submissions": retry}).json()["results"]
        after = _sandboxes(docker_client, owner)
    print(f"sandbox fault: {at_kill}/60 done at the kill, system errors {system_errors}")
    assert at_kill < 60, "the kill must fall mid-job"
    assert len(system_errors) <= 1, system_errors  # only the submission the sandbox held
    assert victim not in live and victim not in after
    assert 1 <= len(live) <= 2, live  # replaced, within the pool's capacity
    want = {item["id"]: verdict for item, verdict in zip(items, verdicts, strict=True)}
    assert [(r["status"], r["verdict"]) for r in retried] == [
        ("ok", want[item["id"]]) for item in retry
    ]
