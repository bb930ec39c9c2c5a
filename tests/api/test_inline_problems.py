"""An inline problem travels once: later items name it by ``problem_hash``.

The hash names content, never an id, so a name cannot make a program be judged against other
tests than the ones hashed; a hash the service does not hold is an error for that item alone
(never a verdict), and a queued job stores the problem itself, not the name.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from judge_service.store.models import BatchJobRow
from tests.api._judging import sqlite_client

pytestmark = pytest.mark.integration

TWO = {"id": "sum", "tests": [{"input": "1 1\n", "output": "2"}, {"input": "0 2\n", "output": "2"}]}
# The same id with other tests: a new version of "sum", which a name must not mix up.
THREE = {"id": "sum", "tests": [{"input": "1 2\n", "output": "3"}]}
PRINT_TWO = "print(2)\n"
SUM = "print(sum(map(int, input().split())))\n"


def hash_of(problem: dict[str, Any]) -> str:
    """The client's side of the contract, written out here rather than imported."""
    canonical = json.dumps(problem, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with sqlite_client(tmp_path) as c:
        yield c


def _judge(client: TestClient, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    response = client.post("/v1/judge", json={"submissions": items})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def test_a_problem_sent_once_is_named_by_its_hash_later(client: TestClient) -> None:
    [first] = _judge(client, [{"problem": TWO, "language": "python", "code": SUM}])
    assert first["verdict"] == "AC"
    right, wrong = _judge(
        client,
        [
            {"problem_hash": hash_of(TWO), "language": "python", "code": SUM},
            {"problem_hash": hash_of(TWO), "language": "python", "code": "print(3)\n"},
        ],
    )
    assert right["verdict"] == "AC" and right["cached"], right
    assert wrong["verdict"] == "WA" and wrong["pass_rate"] == 0.0, wrong


def test_an_item_names_a_problem_sent_earlier_in_the_same_request(client: TestClient) -> None:
    results = _judge(
        client,
        [
            {"problem": TWO, "language": "python", "code": PRINT_TWO},
            {"problem_hash": hash_of(TWO), "language": "python", "code": PRINT_TWO},
            {"problem_hash": hash_of(TWO), "language": "python", "code": "print(0)\n"},
        ],
    )
    assert [r["verdict"] for r in results] == ["AC", "AC", "WA"], results


def test_a_name_judges_against_the_hashed_tests_and_no_others(client: TestClient) -> None:
    # Both versions of "sum" are sent; each name keeps its own tests.
    _judge(
        client,
        [
            {"problem": TWO, "language": "python", "code": PRINT_TWO},
            {"problem": THREE, "language": "python", "code": PRINT_TWO},
        ],
    )
    on_two, on_three = _judge(
        client,
        [
            {"problem_hash": hash_of(TWO), "language": "python", "code": PRINT_TWO},
            {"problem_hash": hash_of(THREE), "language": "python", "code": PRINT_TWO},
        ],
    )
    assert on_two["verdict"] == "AC" and on_three["verdict"] == "WA", (on_two, on_three)


def test_an_unknown_or_malformed_name_fails_alone(client: TestClient) -> None:
    never_sent = hash_of({**TWO, "time_limit_ms": 999})
    results = _judge(
        client,
        [
            {"problem_hash": never_sent, "language": "python", "code": PRINT_TWO},
            {"problem_hash": "not-a-hash", "language": "python", "code": PRINT_TWO},
            {
                "problem": TWO,
                "problem_hash": hash_of(TWO),
                "language": "python",
                "code": PRINT_TWO,
            },
            {"problem": TWO, "language": "python", "code": PRINT_TWO},
        ],
    )
    unknown, malformed, both, fine = results
    assert unknown["status"] == "error" and unknown["error"].startswith("unknown problem_hash")
    assert unknown["reward"] is None and unknown["verdict"] is None
    assert malformed["status"] == "error" and "problem_hash" in malformed["error"]
    assert both["status"] == "error" and "exactly one" in both["error"], both
    assert fine["verdict"] == "AC"


def test_an_invalid_problem_is_not_remembered(client: TestClient) -> None:
    invalid = {"id": "f", "tests": []}  # a problem needs at least one test
    first, second = _judge(
        client,
        [
            {"problem": invalid, "language": "python", "code": PRINT_TWO},
            {"problem_hash": hash_of(invalid), "language": "python", "code": PRINT_TWO},
        ],
    )
    assert first["status"] == "error" and "tests" in first["error"], first
    assert second["status"] == "error" and second["error"].startswith("unknown problem_hash")


def test_with_no_memory_for_inline_problems_every_name_is_unknown(tmp_path: Path) -> None:
    with sqlite_client(tmp_path, inline_problems_mb=0) as client:
        sent, named = _judge(
            client,
            [
                {"problem": TWO, "language": "python", "code": PRINT_TWO},
                {"problem_hash": hash_of(TWO), "language": "python", "code": PRINT_TWO},
            ],
        )
    assert sent["verdict"] == "AC"
    assert named["status"] == "error" and named["error"].startswith("unknown problem_hash")


def test_a_queued_job_stores_the_problem_not_its_name(client: TestClient) -> None:
    _judge(client, [{"problem": TWO, "language": "python", "code": PRINT_TWO}])
    items = [
        {"problem_hash": hash_of(TWO), "language": "python", "code": code}
        for code in (PRINT_TWO, "print(1)\n")
    ]
    response = client.post("/v1/submissions", json={"submissions": items})
    assert response.status_code == 202, response.text
    job_id = response.json()["job_id"]
    deadline = time.monotonic() + 120
    while True:
        status = client.get(f"/v1/submissions/{job_id}").json()
        if status["status"] in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status["status"] == "done", status
    assert [r["verdict"] for r in status["results"]] == ["AC", "WA"]
    store = client.app.state.judge.store  # type: ignore[attr-defined]
    with store.engine.connect() as connection:
        request = connection.execute(
            select(BatchJobRow.request).where(BatchJobRow.id == job_id)
        ).scalar_one()
    stored = request["submissions"]
    assert all("problem_hash" not in item for item in stored)
    assert [item["problem"]["tests"] for item in stored] == [TWO["tests"], TWO["tests"]]
