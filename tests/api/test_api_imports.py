"""The API sends work to the workers by task name: importing it, or running it with a broker,
loads no task body, no sandbox pool and no docker. Each check runs in a fresh interpreter, as
this one has loaded them for other tests."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

# What only a process that judges needs: the task bodies, the worker process, the in-process
# dispatcher, the pool and its sandboxes, and the Docker client.
JUDGING_MODULES = {
    "judge_service.worker.tasks",
    "judge_service.worker.runner",
    "judge_service.worker.inprocess",
    "judge_service.sandbox.pool",
    "judge_service.sandbox.sandbox",
    "docker",
}

_SENDS_ONE_BATCH = """
import json, sys, time
import redis
from fastapi.testclient import TestClient
from judge_service.api import create_app
from judge_service.settings import Settings

broker, queue, database = sys.argv[1:4]
settings = Settings(database_url=database, broker_url=broker, queue_name=queue)
sent = redis.Redis.from_url(broker)
with TestClient(create_app(settings)) as client:
    problem = {"id": "sum", "tests": [{"input": "1 2\\n", "output": "3"}]}
    assert client.post("/v1/problems", json=problem).status_code == 200
    item = {"problem_id": "sum", "language": "python", "code": "print(3)"}
    queued = client.post("/v1/submissions", json={"submissions": [item]})
    assert queued.status_code == 202, queued.text
    deadline = time.monotonic() + 30
    while not sent.llen(queue) and time.monotonic() < deadline:
        time.sleep(0.05)
    message = json.loads(sent.lindex(queue, 0) or "{}")
sent.delete(queue)
print(json.dumps({"task": message.get("headers", {}).get("task"), "modules": sorted(sys.modules)}))
"""


def _fresh(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_importing_the_api_loads_no_task_body_pool_or_docker() -> None:
    out = _fresh("-c", "import json, sys, judge_service.api; print(json.dumps(list(sys.modules)))")
    loaded = set(json.loads(out))
    assert "judge_service.api.app" in loaded and "judge_service.worker.celery_app" in loaded
    assert loaded & JUDGING_MODULES == set()


def test_with_a_broker_the_api_queues_the_task_by_name_without_its_body(tmp_path: Path) -> None:
    # Redis database 15 is no other test's (several flush theirs); the queue is this run's own.
    queue = f"judge-test-by-name-{uuid.uuid4().hex[:8]}"
    database = f"sqlite:///{tmp_path}/judge.db"
    out = _fresh("-c", _SENDS_ONE_BATCH, "redis://127.0.0.1:6379/15", queue, database)
    report = json.loads(out.splitlines()[-1])
    assert report["task"] == "judge.chunk"
    assert set(report["modules"]) & JUDGING_MODULES == set()
