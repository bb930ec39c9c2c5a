"""verl's sandbox_fusion reward as it calls us: 64 concurrent /run_code requests from a thread
pool, each with an HTTP timeout of compile_timeout + run_timeout + 10 s and no retry.

A third of the programs loop forever. Every correct program must score as correct and no
request may time out on the client's side (verl would score it as an API error)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api._cluster import ApiServer, serving

pytestmark = pytest.mark.integration

COMPILE_TIMEOUT, RUN_TIMEOUT, VERL_SLACK = 10, 5, 10
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
LOOP = "while True:\n    pass\n"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ApiServer]:
    env = {"JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db"}
    with serving(env, tmp_path / "serve.log") as api:
        yield api


def _verl_call(url: str, code: str, stdin: str) -> dict[str, Any] | str:
    """verl's request: one /run_code per test case, its timeout, no retry."""
    payload = {
        "code": code,
        "language": "python",
        "stdin": stdin,
        "compile_timeout": COMPILE_TIMEOUT,
        "run_timeout": RUN_TIMEOUT,
    }
    try:
        response = httpx.post(
            f"{url}/run_code", json=payload, timeout=COMPILE_TIMEOUT + RUN_TIMEOUT + VERL_SLACK
        )
    except httpx.TimeoutException:
        return "client time-out"
    body: dict[str, Any] = response.json()
    return body


def test_64_concurrent_verl_requests_a_third_of_them_infinite_loops(server: ApiServer) -> None:
    with ThreadPoolExecutor(max_workers=64) as warm:  # a service in use has its sandboxes up
        list(warm.map(lambda i: _verl_call(server.url, SUM, f"{i} 1\n"), range(64)))
    calls = [(LOOP, "", None) if i % 3 == 0 else (SUM, f"{i} {i}\n", str(2 * i)) for i in range(64)]
    random.Random(3).shuffle(calls)
    with ThreadPoolExecutor(max_workers=64) as pool:
        answers = list(pool.map(lambda call: _verl_call(server.url, call[0], call[1]), calls))
    timed_out = [index for index, answer in enumerate(answers) if answer == "client time-out"]
    assert not timed_out, f"{len(timed_out)} requests timed out on the client's side"
    for (_, _, expected), answer in zip(calls, answers, strict=True):
        assert isinstance(answer, dict)
        run = answer["run_result"]
        if expected is None:
            assert run is not None and run["status"] == "TimeLimitExceeded", answer
        else:
            assert answer["status"] == "Success" and run["stdout"].strip() == expected, answer
