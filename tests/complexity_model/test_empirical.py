"""The empirical complexity judge: the fit on synthetic timings, then real runs in the sandbox."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from complexity_model.empirical import EmpiricalComplexityJudge, Point, choose_class
from complexity_model.empirical._driver import parse_output
from complexity_model.empirical.judge import geometric_sizes
from complexity_model.empirical.plot import plot_measurements
from complexity_model.empirical.problems import BENCHMARK, problem_of
from judge_service.sandbox.pool import SandboxPool
from judge_service.schemas import Problem
from judge_service.settings import Settings

CLASSES: dict[str, Callable[[float], float]] = {
    "O(1)": lambda n: 0.0,
    "O(log n)": lambda n: math.log2(n),
    "O(n)": lambda n: n,
    "O(n log n)": lambda n: n * math.log2(n),
    "O(n^2)": lambda n: n * n,
    "O(n^3)": lambda n: n**3,
    "O(2^n)": lambda n: 2.0**n,
}
SCALE = {  # seconds per unit of growth, so that the largest size lands near 0.1 s
    "O(1)": 0.0,
    "O(log n)": 2e-7,
    "O(n)": 3e-8,
    "O(n log n)": 3e-9,
    "O(n^2)": 3e-8,
    "O(n^3)": 3e-8,
    "O(2^n)": 1e-7,
}


def synthetic(cls: str, noise: float, seed: int = 0, cap: float = 0.15) -> list[Point]:
    rng = random.Random(seed)
    points = []
    for n in geometric_sizes(1 << 18):
        seconds = (2e-7 + SCALE[cls] * CLASSES[cls](n)) * (1 + rng.uniform(0, noise))
        if seconds >= cap:
            points.append(Point(n, cap, censored=True))
            break
        points.append(Point(n, seconds))
    return points


@pytest.mark.parametrize("cls", list(CLASSES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_class_is_recovered_from_noisy_timings(cls: str, seed: int) -> None:
    fit = choose_class(synthetic(cls, noise=0.1, seed=seed))
    assert fit.predicted == cls
    assert 0.5 < fit.confidence <= 1.0
    assert math.isclose(sum(fit.weights.values()), 1.0)


def test_a_base_other_than_two_is_still_exponential() -> None:
    points = [Point(n, 1e-7 * 1.618**n) for n in range(1, 25)]
    assert choose_class(points).predicted == "O(2^n)"


def test_a_censored_point_penalises_only_models_that_stay_under_its_limit() -> None:
    points = [Point(n, 1e-7 + 1e-5 * n * n) for n in (10, 20, 40, 80, 120, 160)]
    timed_out = [*points, Point(320, 0.5, censored=True)]  # a quadratic predicts 1.02 s here
    before, after = choose_class(points), choose_class(timed_out)
    assert before.predicted == after.predicted == "O(n^2)"
    assert after.fits["O(n^2)"].rss == pytest.approx(before.fits["O(n^2)"].rss)
    assert after.fits["O(n)"].rss > before.fits["O(n)"].rss + 0.1  # predicts 0.26 s < 0.5 s


def test_a_class_only_part_of_the_range_supports_loses_confidence() -> None:
    # Linear up to n = 2^10, then quadratic: no ladder class describes the whole range.
    kink = [
        Point(n, 1e-7 + 1e-8 * n + 1e-11 * max(n - 1024, 0) ** 2) for n in geometric_sizes(1 << 16)
    ]
    clean = [Point(n, 1e-7 + 1e-8 * n) for n in geometric_sizes(1 << 16)]
    mixed, linear = choose_class(kink), choose_class(clean)
    assert linear.predicted == "O(n)" and linear.range_classes == ("O(n)", "O(n)")
    assert linear.confidence > 0.95
    assert mixed.range_classes[0] != mixed.range_classes[1]
    assert mixed.confidence < 0.75


def test_series_ending_where_large_bases_overflow_still_fit() -> None:
    points = [Point(n, 1e-6 + 1e-9 * n * n) for n in (10, 20, 40, 80, 160, 320, 700)]
    assert choose_class(points).predicted == "O(n^2)"


def test_drift_too_small_to_matter_is_constant() -> None:
    points = [Point(n, 1e-6 * (1 + 0.02 * math.log2(n))) for n in geometric_sizes(1 << 18)]
    assert choose_class(points).predicted == "O(1)"


def test_too_few_points_is_unknown() -> None:
    fit = choose_class([Point(1, 1e-6), Point(2, 2e-6), Point(4, 1.0, censored=True)])
    assert (fit.predicted, fit.confidence) == ("unknown", 0.0)


def test_driver_output_ignores_what_the_program_printed() -> None:
    text = 'hello\n[1, 2e-07, false]\n{"n": 3}\n[2, 4e-07, false]\n[4, 0.15, true]\n'
    assert parse_output(text) == [(1, 2e-7, False), (2, 4e-7, False), (4, 0.15, True)]


def test_no_generator_or_another_language_is_unknown_without_running() -> None:
    judge = EmpiricalComplexityJudge(pool=None)  # type: ignore[arg-type]  # nothing may run
    bare = Problem(id="p", tests=[{"input": "", "output": ""}])
    for code, language, problem in (
        ("x", "python", None),
        ("x", "python", bare),
        ("x", "cpp", problem_of(BENCHMARK[0])),
    ):
        estimate = judge.estimate(code, language, problem)
        assert (estimate.predicted, estimate.confidence) == ("unknown", 0.0)
        assert estimate.evidence["reason"]


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(Settings(sandboxes_per_language=1)) as shared:
        yield shared


def _case(case_id: str) -> tuple[Problem, dict[str, str]]:
    case = next(case for case in BENCHMARK if case.id == case_id)
    return problem_of(case), case.solutions


@pytest.mark.integration
@pytest.mark.parametrize(
    ("case_id", "cls"),
    [
        ("power-mod", "O(log n)"),
        ("prefix-sums", "O(n)"),
        ("sort-numbers", "O(n^2)"),
        ("subset-sums", "O(2^n)"),
    ],
)
def test_real_solutions_get_their_class(pool: SandboxPool, case_id: str, cls: str) -> None:
    problem, solutions = _case(case_id)
    estimate = EmpiricalComplexityJudge(pool).estimate(solutions[cls], "python", problem)
    assert estimate.predicted == cls, estimate.evidence
    assert estimate.method == "empirical"
    assert len(estimate.evidence["sizes"]) >= 8


@pytest.mark.integration
def test_compare_on_the_same_inputs_and_plot(pool: SandboxPool, tmp_path: Path) -> None:
    problem, solutions = _case("count-inversions")
    compared = EmpiricalComplexityJudge(pool).compare(solutions["O(n^2)"], "python", problem)
    candidate, reference = compared["candidate"], compared["reference"]
    assert (candidate.fit.predicted, reference.fit.predicted) == ("O(n^2)", "O(n log n)")
    png = plot_measurements(compared, tmp_path / "plot.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


@pytest.mark.integration
def test_a_crashing_candidate_is_unknown_with_the_reason(pool: SandboxPool) -> None:
    problem, _ = _case("prefix-sums")
    estimate = EmpiricalComplexityJudge(pool).estimate(
        "def f(xs):\n    raise ValueError('no')\n", "python", problem
    )
    assert estimate.predicted == "unknown"
    assert "ValueError" in estimate.evidence["reason"]
