"""PostgreSQL unreachable for 10 s in the middle of a queued job: the job waits it out and
ends with every verdict; polls during the outage answer at once (503: the store is down)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.api._cluster import serving
from tests.faults._batch import SUM, check_every_item, poll_until_done, sum_batch, timed_status
from tests.faults._infra import private_postgres

pytestmark = pytest.mark.integration


def test_postgres_unreachable_for_10_s_mid_job(tmp_path: Path) -> None:
    items, verdicts = sum_batch(60, sleep_s=0.02)
    with private_postgres() as postgres:
        env = {"JUDGE_DATABASE_URL": postgres.url, "JUDGE_SANDBOXES_PER_LANGUAGE": "2"}
        with (
            serving(env, tmp_path / "api.log") as api,
            httpx.Client(base_url=api.url, timeout=30) as client,
        ):
            client.post("/v1/problems", json=SUM).raise_for_status()
            job_id = client.post("/v1/submissions", json={"submissions": items}).json()["job_id"]
            while (at_stop := timed_status(client, job_id)[2]["completed"]) < 8:
                time.sleep(0.1)
            postgres.stop()
            outage = []
            until = time.monotonic() + 10
            while time.monotonic() < until:
                took, code, _ = timed_status(client, job_id)
                outage.append((round(took, 3), code))
                time.sleep(0.3)
            postgres.start()
            back = time.monotonic()
            status = poll_until_done(client, job_id, timeout_s=120)
            finish_s = time.monotonic() - back
    print(
        f"postgres fault: {at_stop}/60 stored at the stop, done {finish_s:.1f} s after it was back"
    )
    assert at_stop < 60, "the outage must fall mid-job"
    assert all(code == 503 and took < 2.0 for took, code in outage), outage
    assert not check_every_item(status, items, verdicts)
    # The job went on by itself: it neither died (to be resumed by the stale-job sweep,
    # job_stale_after_s = 120 s later) nor failed.
    assert finish_s < 60, finish_s
    log = (tmp_path / "api.log").read_text(errors="replace")
    assert "database unreachable" in log and "Task exception" not in log
