"""``judge complexity evaluate --backend empirical``: time labelled solutions of problems.

The data is JSON lines, one problem each, as the service takes it (``mode``, ``entry_point``,
``tests``, ``reference``, ``optimal_complexity``, optionally ``input_generator``) plus
``solutions``: ``[{"language", "code", "label"}]``. Every solution is judged by the empirical
path of the service (answers checked against the reference, growth compared with its), with
the author's generator, or with ``derive`` with one derived from the tests (the author's is
dropped first). Each problem is prepared first, as a service does when a problem is saved
(:meth:`DerivingJudge.prepare`: the generator derived and validated, the reference measured),
and that time is reported per problem, apart from the seconds per candidate, which are then
each candidate's own timing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from complexity_model.derive.judge import DerivingJudge
from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.ladder import ComplexityEstimate
from complexity_model.problem import ComplexityProblem

__all__ = ["EmpiricalRun", "predict_empirical"]


@dataclass
class EmpiricalRun:
    """One row per solution (``language``, ``label``, ``problem``, ``code``), its estimate and
    its seconds; and the seconds each problem's preparation took, by problem id."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    estimates: list[ComplexityEstimate] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    preparation_s: dict[str, float] = field(default_factory=dict)


def predict_empirical(
    problems: Sequence[dict[str, Any]], derive: bool, progress: bool = True
) -> EmpiricalRun:
    """Prepare each problem, then judge its solutions."""
    # The sandbox is the service's layer: imported only when the empirical path runs.
    from judge_service.sandbox.config import SandboxConfig
    from judge_service.sandbox.pool import SandboxPool

    run = EmpiricalRun()
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        judge = DerivingJudge(EmpiricalComplexityJudge(pool))
        for data in problems:
            problem = ComplexityProblem.model_validate(data)
            if derive:
                problem = problem.model_copy(update={"input_generator": None})
            started = time.perf_counter()
            judge.prepare(problem)
            run.preparation_s[problem.id] = time.perf_counter() - started
            if progress:
                print(
                    f"prepared {problem.id:<28} {run.preparation_s[problem.id]:6.2f} s",
                    flush=True,
                )
            for solution in data.get("solutions", []):
                started = time.perf_counter()
                estimate = judge.estimate(solution["code"], solution["language"], problem)
                run.seconds.append(time.perf_counter() - started)
                run.estimates.append(estimate)
                run.rows.append({**solution, "problem": problem.id})
                if progress:
                    _print_row(solution, problem.id, estimate, run.seconds[-1])
    return run


def _print_row(
    solution: dict[str, Any], problem_id: str, estimate: ComplexityEstimate, seconds: float
) -> None:
    mark = "ok " if estimate.predicted == solution["label"] else "MISS"
    reason = f"  ({estimate.evidence.get('reason', '')})"[:200] if mark == "MISS" else ""
    print(
        f"{mark} {problem_id:<32} {solution['language']:<6} {solution['label']:<11} "
        f"-> {estimate.predicted:<11} {seconds:6.2f} s{reason}",
        flush=True,
    )
