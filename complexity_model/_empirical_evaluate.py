"""``judge complexity evaluate --backend empirical``: time labelled solutions of problems.

The data is JSON lines, one problem each, as the service takes it (``mode``, ``entry_point``,
``tests``, ``reference``, ``optimal_complexity``, optionally ``input_generator``) plus
``solutions``: ``[{"language", "code", "label"}]``. Every solution is judged by the empirical
path of the service (answers checked against the reference, growth compared with its), with
the author's generator, or with ``derive`` with one derived from the tests (the author's is
dropped first). The seconds per candidate are the service's: the first candidate of a problem
also pays for deriving and validating the generator and measuring the reference.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from complexity_model.derive.judge import DerivingJudge
from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.ladder import ComplexityEstimate
from complexity_model.problem import ComplexityProblem

__all__ = ["predict_empirical"]


def predict_empirical(
    problems: Sequence[dict[str, Any]], derive: bool, progress: bool = True
) -> tuple[list[dict[str, Any]], list[ComplexityEstimate], list[float]]:
    """(rows, estimates, seconds), one per solution; rows carry ``language``, ``label``,
    ``problem`` and ``code``."""
    # The sandbox is the service's layer: imported only when the empirical path runs.
    from judge_service.sandbox.config import SandboxConfig
    from judge_service.sandbox.pool import SandboxPool

    rows: list[dict[str, Any]] = []
    estimates: list[ComplexityEstimate] = []
    seconds: list[float] = []
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        judge = DerivingJudge(EmpiricalComplexityJudge(pool))
        for data in problems:
            problem = ComplexityProblem.model_validate(data)
            if derive:
                problem = problem.model_copy(update={"input_generator": None})
            for solution in data.get("solutions", []):
                started = time.perf_counter()
                estimate = judge.estimate(solution["code"], solution["language"], problem)
                seconds.append(time.perf_counter() - started)
                estimates.append(estimate)
                rows.append({**solution, "problem": problem.id})
                if progress:
                    mark = "ok " if estimate.predicted == solution["label"] else "MISS"
                    print(
                        f"{mark} {problem.id:<32} {solution['language']:<6} "
                        f"{solution['label']:<11} -> {estimate.predicted:<11} "
                        f"{seconds[-1]:6.2f} s"
                        + (
                            f"  ({estimate.evidence.get('reason', '')})"[:200]
                            if mark == "MISS"
                            else ""
                        ),
                        flush=True,
                    )
    return rows, estimates, seconds
