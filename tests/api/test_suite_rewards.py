# ruff: noqa: E501  (programs in other languages)
"""A test-suite language's verdict is the exit status of the process that runs the submission,
so a submission that exits 0 before its tests run passes: such languages earn no reward here
unless the service is told its verdicts train nothing (``judge_test_suites``). /run_code and
/submit still run them, as SandboxFusion does, for callers that read the outcome themselves.

The attack in each framework, every one AC when judged by exit status: pytest's ``os._exit(0)``
at import, jest's ``process.exit(0)`` at load, junit's ``System.exit(0)`` in a static
initialiser, go_test's ``os.Exit(0)`` in ``init``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api._judging import sqlite_client

pytestmark = pytest.mark.integration

EXITS_EARLY = {
    "pytest": "import os\nos._exit(0)\n\ndef add(a, b):\n    return a * b\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "jest": "import { expect, test } from '@jest/globals';\nprocess.exit(0);\nfunction add(a: number, b: number): number { return a * b; }\ntest('adds', () => { expect(add(1, 2)).toBe(3); });\n",
    "junit": "import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\npublic class CalcTest {\n    static { System.exit(0); }\n    static int add(int a, int b) { return a * b; }\n    @Test void adds() { assertEquals(3, add(1, 2)); }\n}\n",
    "go_test": 'package main\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc init() { os.Exit(0) }\n\nfunc Add(a, b int) int { return a * b }\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("wrong")\n\t}\n}\n',
}
HONEST = "def add(a, b):\n    return a + b\n\ndef test_add():\n    assert add(1, 2) == __SUM__\n"
SUITE_PROBLEM = {"id": "suite", "tests": [{"input": ""}]}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with sqlite_client(tmp_path_factory.mktemp("suites")) as c:
        yield c


def _judge(client: TestClient, language: str, code: str) -> dict[str, Any]:
    item = {"problem": SUITE_PROBLEM, "language": language, "code": code}
    response = client.post("/v1/judge", json={"submissions": [item]})
    assert response.status_code == 200, response.text
    [result] = response.json()["results"]
    return dict(result)


@pytest.mark.parametrize("language", sorted(EXITS_EARLY))
def test_an_early_exit_earns_no_reward(client: TestClient, language: str) -> None:
    result = _judge(client, language, EXITS_EARLY[language])
    assert result["status"] == "error" and result["reward"] is None, result
    assert "test-suite language" in result["error"] and "JUDGE_JUDGE_TEST_SUITES" in result["error"]


def test_nor_through_openrlhf_reward(client: TestClient) -> None:
    body = {
        "query": ["```python\n" + EXITS_EARLY["pytest"] + "```"],
        "prompts": [""],
        "labels": [{"problem": SUITE_PROBLEM, "language": "pytest"}],
    }
    response = client.post("/openrlhf/reward", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["rewards"] != [1.0] and response.json()["rewards"][0] <= 0.0


def test_run_code_still_runs_suites_as_sandbox_fusion_does(client: TestClient) -> None:
    body = {"code": EXITS_EARLY["pytest"], "language": "pytest"}
    response = client.post("/run_code", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["run_result"]["return_code"] == 0  # the caller reads the outcome


def test_turned_on_suites_are_judged_by_their_exit_status(tmp_path: Path) -> None:
    with sqlite_client(tmp_path, judge_test_suites=True) as client:
        right = _judge(client, "pytest", HONEST.replace("__SUM__", "3"))
        wrong = _judge(client, "pytest", HONEST.replace("__SUM__", "4"))
    assert right["verdict"] == "AC" and wrong["verdict"] == "WA", (right, wrong)
