"""Which assert-mode tests are judged as planned calls, and what the plan says
(judge_service/sandbox/_assert_plan.py; the verdicts are compared with the runner's in
test_assert_plan_verdicts.py)."""

from __future__ import annotations

import json

import pytest

from judge_service.sandbox._assert_plan import plan


def _plan(code: str, entry_point: str = "f") -> tuple[list, list]:
    """The calls and checks of a test that must be planned."""
    planned = plan(code, entry_point)
    assert planned is not None, code
    return [json.loads(line) for line in planned[0].splitlines()], json.loads(planned[1])


def test_humaneval_style_check_becomes_calls_and_checks() -> None:
    calls, checks = _plan(
        "METADATA = {'author': 'x'}\n\n"
        "def check(candidate):\n"
        "    '''docstring'''\n"
        "    assert candidate([1, 2], 3) == (4, 5), 'message'\n"
        "    assert not candidate([], 0)\n"
        "    assert candidate('a') is None\n"
        "    assert abs(candidate(1.5) - 2.0 / 3.0) < 1e-6\n"
        "    assert True\n"
    )
    assert calls == [["f", [[1, 2], 3]], ["f", [[], 0]], ["f", ["a"]], ["f", [1.5]]]
    assert [check[:2] for check in checks] == [[0, "eq"], [1, "falsy"], [2, "is"], [3, "approx<"]]
    assert checks[0][2] == {"tuple": [4, 5]} and checks[0][4] == "message"
    assert checks[3][2] == pytest.approx(2 / 3) and checks[3][3] == 1e-6


def test_arithmetic_on_literals_and_wrappers_are_folded_here() -> None:
    calls, checks = _plan(
        "def check(c):\n"
        "    assert c(3 * 19, 'ab' + 'c', -(2 ** 10)) == [3, 19]\n"
        "    assert tuple(c([1, 2, 3])) == tuple([1, 2, 3])\n"
        "    assert c(1) == True, 'First test error: ' + str(c(1))\n"
    )
    assert calls == [["f", [57, "abc", -1024]], ["f", [[1, 2, 3]]], ["f", [1]]]
    assert checks[1][5] == "tuple" and checks[1][2] == {"tuple": [1, 2, 3]}
    assert checks[2][4] == "First test error: "  # the message's literal part, not evaluated


def test_mbpp_style_top_level_asserts_call_the_named_function() -> None:
    calls, _ = _plan(
        "assert remove_occ('hello', 'l') == 'heo'\nassert remove_occ('a', 'a') == ''\n"
    )
    assert calls == [["remove_occ", ["hello", "l"]], ["remove_occ", ["a", "a"]]]


def test_solution_method_entry_points_are_kept() -> None:
    calls, _ = _plan("def check(candidate):\n    assert candidate(2) == 4\n", "Solution.double")
    assert calls == [["Solution.double", [2]]]


def test_a_false_constant_assertion_is_a_failing_check_without_a_call() -> None:
    calls, checks = _plan("def check(c):\n    assert False, 'always'\n    assert c(1) == 1\n")
    assert checks[0][:2] == [-1, "fail"] and calls == [["f", [1]]]


@pytest.mark.parametrize(
    "code",
    [
        "import random\ndef check(c):\n    for _ in range(3):\n        assert c(random.random())\n",
        "def check(c):\n    x = [3, 1]\n    c(x)\n    assert x == [1, 3]\n",
        "def check(c):\n    assert c(1) == helper(1)\n",
        "def check(c):\n    assert c(1) == c(2)\n",
        "def check(c):\n    assert sorted(c(1)) == [1]\n    print('x')\n",
        "def check(c):\n    assert c(1) != 2\n",
        "def check(c):\n    assert c(x=1) == 2\n",
        "def check(c):\n    assert c(*[1]) == 2\n",
        "def check(c, d):\n    assert c(1) == 2\n",
        "assert sorted([2, 1]) == [1, 2]\n",  # a builtin: the runner's own, never the candidate
        "def check(c):\n    assert c(1 / 0) == 2\n",  # the runner would raise here
        "def check(c):\n    assert c(10 ** 100000) == 2\n",  # too big to compute here
        "def check(c):\n    assert c('a' * 10 ** 9) == 2\n",
        "def check(c):\n    assert c(1) == 2\ncheck = None\n",
        "def check(c):\n    assert c(1) is 5\n",
        "def check(c):\n    assert abs(c(1) - 2) < 'x'\n",
        "def check(:\n",
    ],
)
def test_anything_else_is_left_to_the_runner(code: str) -> None:
    assert plan(code, "f") is None


def test_values_that_cannot_cross_as_plain_data_are_left_to_the_runner() -> None:
    assert plan("def check(c):\n    assert c(1j) == 2\n", "f") is None
