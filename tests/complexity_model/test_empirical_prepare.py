"""A problem is prepared once, ahead of its candidates; fewer runs where they already agree."""

from __future__ import annotations

import json
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from complexity_model.derive.judge import DerivingJudge
from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.empirical._driver import timing_program
from complexity_model.empirical._engine import EngineSettings, measure_in_engine
from complexity_model.problem import ComplexityProblem
from judge_service.sandbox.models import Job, JobResult, TestResult, Verdict

PROBLEMS = (
    Path(__file__).resolve().parents[2] / "complexity_model" / "data" / "empirical_problems.jsonl"
)


class _Steps:
    """``timing_program()``'s namespace, to call the driver's steps one by one."""

    def __init__(self) -> None:
        # A module of its own, as in the sandbox: its dataclasses look their module up.
        module = types.ModuleType("timing_driver_steps")
        sys.modules[module.__name__] = module
        exec(compile(timing_program(), "driver", "exec"), module.__dict__)
        self.namespace: dict[str, Any] = module.__dict__

    def __getitem__(self, name: str) -> Any:
        return self.namespace[name]


class _Driver:
    """Gives each run the next of ``seconds`` as its time per call."""

    def __init__(self, seconds: list[float]) -> None:
        self.seconds = seconds
        self.runs = 0

    def run(self, given: Any, warm: Any, loops: int, want_digest: bool) -> dict[str, Any]:
        value = self.seconds[self.runs]
        self.runs += 1
        return {
            "censored": False,
            "first": value,
            "rest": value,
            "decode": 0.0,
            "mutates": False,
            "digest": "d",
            "hidden": 0.0,
        }


_SPEC = {"repeats": 3, "cap_s": 1.0, "min_sample_s": 1e-3, "digest_max_n": 1 << 13}


@pytest.mark.parametrize(
    ("seconds", "runs"),
    [
        ([1e-4, 1.05e-4, 1e-4], 2),  # within 10%: the third would tell nothing
        ([1e-4, 1.5e-4, 1e-4], 3),  # one stalled: the third decides the minimum
        ([2e-4, 1e-4, 1e-4], 3),  # the first stalled
    ],
)
def test_a_size_takes_a_third_run_only_when_the_first_two_disagree(
    seconds: list[float], runs: int
) -> None:
    steps = _Steps()
    driver = _Driver(seconds)
    spec = {**_SPEC, "scratch": [], "clear_ipc": False}
    outcomes, problem = steps["_runs_at"](64, spec, driver, None, None, 1e-4)
    assert problem == "" and driver.runs == runs and len(outcomes) == runs
    assert min(steps["_seconds"](run) for run in outcomes) == min(seconds[:runs])


def test_past_the_sizes_n_grows_by_two_sizes_per_doubling() -> None:
    steps = _Steps()
    spec = {"sizes": [1, 2, 4, 8], "extend_to": 1 << 20}
    sizes = list(steps["_sizes"](spec, lambda: True))
    extended = sizes[4:]
    assert extended[-1] == 1 << 20 and 24 <= len(extended) <= 34
    assert all(1.3 < b / a < 1.6 for a, b in zip(extended, extended[1:-1], strict=False))


class _EnginePool:
    """Answers every timing job with the next CPU time of ``times_ms``."""

    def __init__(self, times_ms: list[float]) -> None:
        self.times_ms = times_ms
        self.jobs: list[Job] = []

    def judge(self, job: Job) -> JobResult:
        self.jobs.append(job)
        test = TestResult(
            verdict=Verdict.AC, time_ms=self.times_ms.pop(0), wall_ms=1.0, memory_kb=1, stdout="1"
        )
        return JobResult(verdict=Verdict.AC, passed=1, total=1, tests=[test])


@pytest.mark.parametrize(
    ("times_ms", "jobs"),
    [([2.0, 2.1], 2), ([2.0, 3.0, 2.0], 3), ([3.0, 2.0, 2.1], 3)],
)
def test_the_engine_takes_a_third_run_only_when_the_first_two_disagree(
    times_ms: list[float], jobs: int
) -> None:
    pool = _EnginePool(list(times_ms))
    settings = EngineSettings(sizes=[5], cap_s=1.0)
    output = measure_in_engine(pool, "cpp", "int main(){}", [(5, "5\n")], settings)
    assert len(pool.jobs) == jobs and output.points == [(5, min(times_ms[:jobs]) / 1000, False)]


class _Counting:
    """The sandbox pool, counting the jobs judged through it."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.languages: list[str] = []

    def judge(self, job: Job) -> JobResult:
        self.languages.append(job.language)
        result: JobResult = self.pool.judge(job)
        return result


def _benchmark(problem_id: str) -> dict[str, Any]:
    rows = [json.loads(line) for line in PROBLEMS.read_text().splitlines() if line.strip()]
    return next(row for row in rows if row["id"] == problem_id)


@pytest.mark.integration
def test_a_prepared_problem_leaves_its_candidates_only_their_own_runs(pool: Any) -> None:
    row = _benchmark("empirical-stdin-list-sum")
    counting = _Counting(pool)
    judge = DerivingJudge(EmpiricalComplexityJudge(counting))
    problem = ComplexityProblem.model_validate({**row, "input_generator": None})
    started = time.perf_counter()
    derived = judge.prepare(problem)
    assert derived is not None and derived.problem is not None, derived
    # The reference's measurement (one driver run) and the inputs of compiled languages (one
    # generator job): every job the problem's candidates share.
    assert counting.languages == ["python", "python"]
    assert judge.prepare(problem) is derived and len(counting.languages) == 2  # kept
    prepared_s = time.perf_counter() - started
    for solution in row["solutions"]:
        before = len(counting.languages)
        estimate = judge.estimate(solution["code"], solution["language"], problem)
        assert estimate.predicted == solution["label"], estimate.evidence
        # Only the candidate's own runs: none of the reference's, no generator job.
        assert set(counting.languages[before:]) == {solution["language"]}
        if solution["language"] == "python":
            assert len(counting.languages) - before == 1
    assert prepared_s > 0
