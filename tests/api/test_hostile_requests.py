"""Hostile programs sent as RL trainers send them: the right verdict, the service healthy.

Each test keeps a hostile request in flight and checks that ``/health`` answers quickly and
that a trivial submission from another caller is not held up behind it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api._cluster import ApiServer, serving

pytestmark = pytest.mark.integration

SLEEPER = "import time\ntime.sleep(1000)\n"
TRIVIAL = "print(int(input()) + 1)\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    directory = tmp_path_factory.mktemp("hostile")
    with serving(
        {"JUDGE_DATABASE_URL": f"sqlite:///{directory}/judge.db"}, directory / "log"
    ) as api:
        yield api


def _judge(url: str, submission: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
    response = httpx.post(f"{url}/v1/judge", json={"submissions": [submission]}, timeout=timeout)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["results"][0]
    return result


def _in_background(call: Any) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def run() -> None:
        box["answer"] = call()
        box["done_at"] = time.monotonic()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def _health_ms(url: str) -> float:
    started = time.monotonic()
    assert httpx.get(f"{url}/health", timeout=10).status_code == 200
    return (time.monotonic() - started) * 1000


def test_sleepers_do_not_hold_up_another_callers_trivial_submission(server: ApiServer) -> None:
    sleepers = {
        "language": "python",
        "code": SLEEPER,
        "problem": {
            "id": "sleepy",
            "time_limit_ms": 3000,
            "tests": [{"input": f"{i}\n", "output": str(i + 1)} for i in range(4)],
        },
    }
    trivial = {
        "language": "python",
        "code": TRIVIAL,
        "problem": {"id": "trivial", "tests": [{"input": "1\n", "output": "2"}]},
    }
    held = [_in_background(lambda: _judge(server.url, sleepers)) for _ in range(2)]
    time.sleep(1.0)  # the sleepers hold their sandboxes now
    # Not a speed test: a blocked event loop would keep /health waiting for the sleepers (3 s).
    assert _health_ms(server.url) < 1000
    answer = _judge(server.url, trivial)
    answered_at = time.monotonic()
    assert answer["verdict"] == "AC", answer
    for thread, box in held:
        thread.join(timeout=120)
        assert box["answer"]["verdict"] == "TLE"
        # The trivial submission did not wait for either sleeper.
        assert answered_at < box["done_at"]


def test_a_deeply_nested_return_value_scores_that_row_alone(server: ApiServer) -> None:
    problem = {
        "id": "deep",
        "mode": "function",
        "entry_point": "f",
        "tests": [{"args": [1], "expected": 1}],
    }
    deep = (
        "```python\ndef f(n):\n    v = []\n    for _ in range(300000):\n        v = [v]\n"
        "    return v\n```"
    )
    good = "```python\ndef f(n):\n    return n\n```"
    label = json.dumps({"problem": problem})
    body = {"query": [deep, good], "prompts": ["", ""], "labels": [label, label]}
    for _ in range(2):  # OpenRLHF retries: every try must be answered
        response = httpx.post(f"{server.url}/openrlhf/reward", json=body, timeout=120)
        assert response.status_code == 200, response.text
        rewards = response.json()["rewards"]
        assert rewards[1] > rewards[0], rewards
    # Not a speed test: a blocked event loop would keep /health waiting for the sleepers (3 s).
    assert _health_ms(server.url) < 1000


def test_submit_with_64_mb_of_output_is_a_wrong_answer_not_a_503(server: ApiServer) -> None:
    completion = "```python\nimport sys\nsys.stdout.write('1\\n' * 32_000_000)\n```"
    body = {
        "dataset": "hostile",
        "id": "flood",
        "completion": completion,
        "config": {
            "dataset_type": "CommonOJDataset",
            "language": "python",
            "run_timeout": 20,
            "provided_data": {
                "id": 1,
                "test": [{"input": {"stdin": ""}, "output": {"stdout": "1"}}],
            },
        },
    }
    thread, box = _in_background(lambda: httpx.post(f"{server.url}/submit", json=body, timeout=120))
    time.sleep(0.5)
    # Not a speed test: a blocked event loop would keep /health waiting for the sleepers (3 s).
    assert _health_ms(server.url) < 1000
    thread.join(timeout=120)
    response = box["answer"]
    assert response.status_code == 200, response.text
    assert response.json()["accepted"] is False
