"""What the empirical judge caught is not given a class by a weaker backend (red team).

With an input generator the empirical judge times the program and checks its answers against
the reference's. When it answers ``unknown`` because of the program (a wrong answer on the
timed inputs, a crash there, state kept between calls), the ensemble used to hand over to the
static analyser, which reads a fast wrong heuristic as optimal: a program that passes the
problem's few small tests and is wrong on every larger input earned R_time 1.
"""

from __future__ import annotations

import pytest

from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.empirical.problems import BENCHMARK, problem_of
from complexity_model.ensemble import EnsembleComplexityJudge
from complexity_model.ladder import UNKNOWN, ComplexityEstimate, time_reward
from complexity_model.problem import ComplexityProblem
from complexity_model.static import StaticComplexityJudge

# count-inversions (optimal O(n log n)) answered by counting adjacent descents: right on a
# small test such as [2, 1, 3], wrong on random lists; O(n), which static analysis sees.
ADJACENT = "def f(xs):\n    return sum(1 for i in range(len(xs) - 1) if xs[i] > xs[i + 1])\n"
CAUGHT = {
    "wrong on larger inputs": ADJACENT,
    "crashes on larger inputs": (
        "def f(xs):\n    if len(xs) > 64:\n        raise ValueError('too long')\n"
        "    return sum(1 for i in range(len(xs) - 1) if xs[i] > xs[i + 1])\n"
    ),
    "too slow to time at any size": (
        "import time\ndef f(xs):\n    began = time.process_time()\n"
        "    while time.process_time() - began < 0.3:\n        pass\n"
        "    return sum(1 for i in range(len(xs) - 1) if xs[i] > xs[i + 1])\n"
    ),
}


class _Said:
    method = "empirical"

    def __init__(self, evidence: dict[str, object]) -> None:
        self.evidence = evidence

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        return ComplexityEstimate(UNKNOWN, 0.0, self.method, self.evidence)


PROBLEM = ComplexityProblem(
    id="p", optimal_complexity="O(n)", input_generator="def generate(n):\n    return str(n)\n"
)
LINEAR = "n = int(input())\nfor i in range(n):\n    print(i)\n"


def test_an_empirical_unknown_the_program_caused_stands() -> None:
    said = _Said({"reason": "wrong answer at n = 20", "final": True})
    estimate = EnsembleComplexityJudge(StaticComplexityJudge(), said).estimate(
        LINEAR, "python", PROBLEM
    )
    assert estimate.predicted == UNKNOWN
    assert estimate.evidence["decided_by"] == "empirical"
    assert [s["method"] for s in estimate.evidence["signals"]] == ["empirical", "static"]


def test_an_empirical_unknown_not_of_the_programs_making_hands_over() -> None:
    said = _Said({"reason": "the input generator failed: ZeroDivisionError"})
    estimate = EnsembleComplexityJudge(StaticComplexityJudge(), said).estimate(
        LINEAR, "python", PROBLEM
    )
    assert (estimate.predicted, estimate.evidence["decided_by"]) == ("O(n)", "static")


@pytest.mark.integration
@pytest.mark.parametrize("attack", list(CAUGHT))
def test_a_program_the_timing_caught_earns_no_time_reward(
    judge: EmpiricalComplexityJudge, attack: str
) -> None:
    problem = problem_of(next(case for case in BENCHMARK if case.id == "count-inversions"))
    ensemble = EnsembleComplexityJudge(StaticComplexityJudge(), judge)
    estimate = ensemble.estimate(CAUGHT[attack], "python", problem)
    assert estimate.predicted == UNKNOWN, estimate.evidence
    assert time_reward(estimate.predicted, problem.optimal_complexity) is None
