"""Problems with input generators and solutions of known class, for the empirical judge.

Every solution's class is known from its construction; the label is the ground truth of
``bench/empirical_complexity.py`` and the integration tests. Function-mode problems are in
:mod:`._function`, stdin problems (Python and C++ solutions) in :mod:`._stdin`.
"""

from __future__ import annotations

from complexity_model.empirical.problems._case import Case, problem_of
from complexity_model.empirical.problems._function import FUNCTION_CASES
from complexity_model.empirical.problems._stdin import STDIN_CASES

__all__ = ["BENCHMARK", "Case", "problem_of"]

BENCHMARK: list[Case] = [*FUNCTION_CASES, *STDIN_CASES]
