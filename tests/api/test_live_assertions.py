"""Every assertion counts through the service, as clients send programs: a false assertion in
any language of the table is not ``Success`` through ``/run_code`` (SandboxFusion's clients,
verl) and earns no correctness reward through ``/v1/judge``; a true one is ``Success`` and full
reward. The engine's view of the same programs is tests/sandbox/test_live_assertions.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api._judging import judge_one, sqlite_client
from tests.sandbox._assertion_programs import ASSERTING

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("live-assertions")
    # Test-suite languages are judged too (off by default, for the reason its error gives).
    with sqlite_client(path, judge_test_suites=True) as test_client:
        yield test_client


def _run_code(client: TestClient, language: str, code: str) -> dict[str, Any]:
    body = {"code": code, "language": language, "run_timeout": 10, "compile_timeout": 30}
    response = client.post("/run_code", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize("language", list(ASSERTING))
def test_run_code_reports_a_false_assertion_as_a_failure(client: TestClient, language: str) -> None:
    failed = _run_code(client, language, ASSERTING[language].replace("{expected}", "3"))
    assert failed["status"] == "Failed", failed
    assert failed["run_result"]["return_code"] != 0, failed
    held = _run_code(client, language, ASSERTING[language].replace("{expected}", "2"))
    assert held["status"] == "Success", held


@pytest.mark.parametrize("language", list(ASSERTING))
def test_a_wrong_program_with_a_failing_assertion_earns_no_correctness(
    client: TestClient, language: str
) -> None:
    problem = {
        "id": f"live-assertion-{language}",
        "mode": "stdin",
        "tests": [{"input": "", "output": "done"}],
    }
    submission: dict[str, Any] = {"language": language, "problem": problem}
    wrong = judge_one(
        client, {**submission, "code": ASSERTING[language].replace("{expected}", "3")}
    )
    assert wrong["status"] == "ok", wrong
    assert wrong["verdict"] != "AC" and wrong["reward"]["correctness"] == 0.0, wrong
    right = judge_one(
        client, {**submission, "code": ASSERTING[language].replace("{expected}", "2")}
    )
    assert right["verdict"] == "AC" and right["reward"]["correctness"] == 1.0, right
