"""A problem is prepared once, ahead of its candidates; fewer sizes where nothing grows but n;
the compiler's wall time is not the program sleeping."""

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
from complexity_model.ladder import LADDER
from complexity_model.problem import ComplexityProblem
from judge_service.sandbox.models import CompileResult, Job, JobResult, TestResult, Verdict

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
    # The reference's measurement (three driver runs, pooled) and the inputs of compiled
    # languages (one generator job): every job the problem's candidates share. A size whose
    # input the reference refused in its first round (a busy host can stall its cold calls
    # into looking like a memo) is drawn again, at one more run each: still before any
    # candidate.
    shared = 4 + len(derived.discarded)
    assert counting.languages == ["python"] * shared, derived
    assert judge.prepare(problem) is derived and len(counting.languages) == shared  # kept
    prepared_s = time.perf_counter() - started
    for solution in row["solutions"]:
        before = len(counting.languages)
        estimate = judge.estimate(solution["code"], solution["language"], problem)
        # The whole evidence, not pytest's shortened repr: the times and fits that decided.
        # Within a class: this test is about whose runs a candidate pays for; on a loaded CI
        # host the timing has read a linear candidate O(n log n) (BIC weights 0.44 and 0.56),
        # which is issue 27's to fix, and the classes' accuracy is test_empirical's.
        gap = abs(LADDER.index(estimate.predicted) - LADDER.index(solution["label"]))
        assert gap <= 1, json.dumps(estimate.evidence)
        # Only the candidate's own runs: none of the reference's, no generator job.
        assert set(counting.languages[before:]) == {solution["language"]}
        if solution["language"] == "python":  # more rounds only when one could not decide
            runs = len(counting.languages) - before
            rounds_note = f"timed in {runs} rounds" in str(estimate.evidence.get("notes"))
            assert runs == 1 or (runs <= 3 and rounds_note), estimate.evidence
    assert prepared_s > 0


class _SlowCompile(_EnginePool):
    """Its first job compiles for ``compile_s`` of wall time (a busy host's compiler)."""

    def __init__(self, times_ms: list[float], compile_s: float) -> None:
        super().__init__(times_ms)
        self.compile_s = compile_s

    def judge(self, job: Job) -> JobResult:
        result = super().judge(job)
        if len(self.jobs) == 1:
            time.sleep(self.compile_s)
            return result.model_copy(update={"compile": CompileResult(ok=True, cached=False)})
        return result.model_copy(update={"compile": CompileResult(ok=True, cached=True)})


def test_the_compilers_wall_time_is_not_read_as_the_program_sleeping() -> None:
    settings = EngineSettings(sizes=[1, 2, 3], cap_s=1.0, wall_budget_s=0.2)
    inputs = [(n, f"{n}\n") for n in (1, 2, 3)]
    pool = _SlowCompile([2.0] * 9, compile_s=0.3)
    output = measure_in_engine(pool, "cpp", "int main(){}", inputs, settings)
    assert output.error == "" and [n for n, *_ in output.points] == [1, 2, 3]


class _Sleeper(_EnginePool):
    """Each run takes 0.12 s of wall time for its tiny CPU time: a program that sleeps."""

    def judge(self, job: Job) -> JobResult:
        time.sleep(0.12)
        return super().judge(job)


def test_a_program_that_sleeps_after_compiling_is_still_stopped() -> None:
    settings = EngineSettings(sizes=list(range(1, 9)), cap_s=1.0, wall_budget_s=0.3)
    inputs = [(n, f"{n}\n") for n in range(1, 9)]
    pool = _Sleeper([0.01] * 24)
    output = measure_in_engine(pool, "cpp", "int main(){}", inputs, settings)
    assert "sleeps or waits" in output.error and len(output.points) < 8
