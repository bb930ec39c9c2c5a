"""The Docker daemon restarted while a queued job runs: every submission ends with its
verdict or an explicit system error, and the same process judges again afterwards (its pool
starts new sandboxes) without a restart of its own.

Restarting the daemon stops every container on the machine, other people's too, so this test
runs only where that is allowed: set ``JUDGE_FAULT_DOCKER=1``, and ``JUDGE_FAULT_DOCKER_RESTART``
to the shell command that restarts the daemon here (default ``systemctl restart docker``).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import docker
import httpx
import pytest

from tests.api._cluster import serving
from tests.faults._batch import SUM, check_every_item, poll_until_done, sum_batch, timed_status

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        os.environ.get("JUDGE_FAULT_DOCKER") != "1",
        reason="restarts the Docker daemon (every container on the host): set JUDGE_FAULT_DOCKER=1",
    ),
]


def _wait_for_daemon(timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            docker.from_env().ping()
            return
        except Exception:
            time.sleep(0.5)
    raise AssertionError(f"the Docker daemon did not come back in {timeout_s} s")


def test_docker_daemon_restarted_while_jobs_are_queued(tmp_path: Path) -> None:
    items, verdicts = sum_batch(80, sleep_s=0.05)
    env = {
        "JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db",
        "JUDGE_SANDBOXES_PER_LANGUAGE": "2",
    }
    restart = os.environ.get("JUDGE_FAULT_DOCKER_RESTART", "systemctl restart docker")
    with (
        serving(env, tmp_path / "api.log") as api,
        httpx.Client(base_url=api.url, timeout=60) as client,
    ):
        client.post("/v1/problems", json=SUM).raise_for_status()
        job_id = client.post("/v1/submissions", json={"submissions": items}).json()["job_id"]
        while (at_restart := timed_status(client, job_id)[2]["completed"]) < 8:
            time.sleep(0.1)
        subprocess.run(restart, shell=True, check=True, timeout=120)
        _wait_for_daemon(120)
        status = poll_until_done(client, job_id, timeout_s=300)
        system_errors = check_every_item(status, items, verdicts)
        # What the restart cost is judged by a retry, in the same process, with two items
        # judged again in any case: the pool must start new sandboxes after the restart.
        retry = [item for item in items if item["id"] in system_errors] + items[:2]
        response = client.post("/v1/judge", json={"submissions": retry})
        assert response.status_code == 200, response.text
        retried = response.json()["results"]
    assert at_restart < 80, "the restart must fall mid-job"
    want = {item["id"]: verdict for item, verdict in zip(items, verdicts, strict=True)}
    assert [(r["status"], r["verdict"]) for r in retried] == [
        ("ok", want[item["id"]]) for item in retry
    ]
