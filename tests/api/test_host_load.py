"""Nothing a busy host decides is cached: a verdict a wall clock decided is served fresh."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.settings import Settings
from tests.api._judging import judge_one
from tests.sandbox.test_host_load import PYTHON_BUSY, PYTHON_INPUT, _expected_sum, saturated_host

pytestmark = pytest.mark.integration


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    # A fixed wall limit and no judging again: what the wall clock decides under load stays
    # decided, and must not be remembered.
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db",
        sandboxes_per_language=1,
        wall_retries=0,
        starved_wall_factor=1,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_a_wall_clock_verdict_under_load_is_not_cached(client: TestClient) -> None:
    tests = [{"input": PYTHON_INPUT, "output": str(_expected_sum(6000000))}]
    # The program needs about half its CPU limit on the VM the limit was set on; on a slower
    # one the limit is what it takes there when quiet, with a margin: the quiet run below must
    # be AC by its CPU time, the loaded ones must run out of wall time.
    quiet = judge_one(
        client,
        {
            "language": "python",
            "problem": {"id": "busy-sum-quiet", "time_limit_ms": 30_000, "tests": tests},
            "code": PYTHON_BUSY,
        },
    )
    assert quiet["verdict"] == "AC", quiet
    cpu_ms = quiet["tests"][0]["time_ms"]
    time_limit_ms = max(1500, int(1.25 * cpu_ms))
    problem = {"id": "busy-sum", "time_limit_ms": time_limit_ms, "tests": tests}
    # Busy enough that the program's wall time is half as much again as its wall limit: each
    # busy container takes as much of the CPU as the sandbox does. Four per core fell short on
    # a fast VM (0.55 s of CPU against a 4 s wall limit: the loaded runs stayed AC).
    wall_s = (2 * time_limit_ms + 1000) / 1000
    per_core = max(4, math.ceil(1.5 * wall_s / (cpu_ms / 1000)))
    with saturated_host(per_core=per_core):
        for attempt in range(3):  # busy enough that the wall clock decides, most times at once
            submission = {
                "language": "python",
                "problem": problem,
                "code": PYTHON_BUSY + f"# attempt {attempt}\n",
            }
            first = judge_one(client, submission)
            if first["load_dependent"]:
                break
        assert first["load_dependent"], first
        assert first["verdict"] == "TLE" and first["tests"][0]["limit"] == "wall", first
        again = judge_one(client, submission)
        assert not again["cached"], again
    quiet = judge_one(client, submission)
    assert quiet["verdict"] == "AC", quiet


def test_a_compile_time_out_is_not_served_to_a_longer_compile_timeout(client: TestClient) -> None:
    code = '#include <bits/stdc++.h>\nint main() { std::puts("ok"); }\n'
    request = {"code": code, "language": "cpp"}
    short = client.post("/run_code", json={**request, "compile_timeout": 0.2}).json()
    assert short["compile_result"]["status"] == "TimeLimitExceeded", short
    long = client.post("/run_code", json={**request, "compile_timeout": 30}).json()
    assert long["status"] == "Success" and long["run_result"]["stdout"] == "ok\n", long
