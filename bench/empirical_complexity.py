"""The empirical complexity judge on its benchmark problems: accuracy and seconds per candidate.

Every solution of ``complexity_model/empirical/problems/`` (known class, O(1) to O(2^n);
Python function and stdin problems, C++ stdin solutions) is timed in the sandbox and
classified, its answers checked against the reference's and its growth compared with the
reference's; prints the exact-class accuracy (goal: at least 95%), the confusion of each
class, and the wall time per candidate of the service's path (``estimate``: sandbox included;
goal: at most 3 s on this machine). The reference is measured once per problem and kept for
the problem's other candidates: its time is printed apart, and added to the first candidate's,
which pays for it in the service. A C++ candidate also pays for its compilation and the
generation of the inputs.

Each candidate's plot (time against n, points and fitted curve, beside the reference's) is
written to ``--plots`` (default ``bench/out/empirical/``); the time to draw it is printed apart.

    .venv/bin/python bench/empirical_complexity.py [--only PROBLEM_ID] [--language cpp]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.empirical.plot import plot_measurements
from complexity_model.empirical.problems import BENCHMARK, problem_of
from complexity_model.ladder import LADDER
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.pool import SandboxPool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default=None, help="run one problem")
    parser.add_argument("--language", default=None, help="only solutions in this language")
    parser.add_argument(
        "--max-n", type=int, default=None, help="largest size (default: the judge's)"
    )
    parser.add_argument(
        "--plots",
        type=Path,
        default=Path(__file__).resolve().parent / "out" / "empirical",
        help="directory for one PNG per candidate",
    )
    args = parser.parse_args()
    cases = [case for case in BENCHMARK if args.only in (None, case.id)]
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    seconds: list[float] = []
    wrong: list[str] = []
    by_language: Counter[str] = Counter()
    plot_seconds: list[float] = []
    reference_seconds: list[float] = []
    first_seconds: list[float] = []
    like_reference = 0
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        pool.warm(["python", "cpp"])
        judge = (
            EmpiricalComplexityJudge(pool, max_n=args.max_n)
            if args.max_n
            else EmpiricalComplexityJudge(pool)
        )
        for case in cases:
            problem = problem_of(case)
            started = time.perf_counter()
            reference = judge.reference(problem)
            reference_seconds.append(time.perf_counter() - started)
            first = True
            for index, (language, label, code) in enumerate(case.pairs()):
                if args.language not in (None, language):
                    continue
                started = time.perf_counter()
                candidate = judge.measure_checked(code, language, problem)
                seconds.append(time.perf_counter() - started)
                if first:
                    first_seconds.append(seconds[-1] + reference_seconds[-1])
                    first = False
                started = time.perf_counter()
                plot_measurements(
                    {"candidate": candidate, "reference": reference},
                    args.plots / f"{case.id}-{index}-{language}.png",
                    title=f"{case.id} {language}: known {label}",
                )
                plot_seconds.append(time.perf_counter() - started)
                predicted = candidate.predicted
                confusion[label][predicted] += 1
                mark = "ok " if predicted == label else "BAD"
                if predicted != label:
                    wrong.append(f"{case.id} {language} {label} -> {predicted}")
                by_language[language] += 1
                print(
                    f"{mark} {case.id:24} {language:6} {label:11} -> {predicted:11} "
                    f"conf {candidate.confidence:.2f}  {seconds[-1]:.2f} s  "
                    f"{len(candidate.points)} sizes"
                    + (
                        f"  (grows as the reference; own fit {candidate.fit.predicted})"
                        if candidate.like_reference
                        else ""
                    )
                    + (f"  ({candidate.reason})" if candidate.reason else "")
                )
                like_reference += bool(candidate.like_reference)
    total = len(seconds)
    right = sum(confusion[label][label] for label in confusion)
    languages = ", ".join(f"{language} {count}" for language, count in by_language.items())
    print(f"\nproblems: {len(cases)}, candidates: {total} ({languages})")
    print(f"exact-class accuracy: {right}/{total} = {right / total:.1%} (goal: at least 95%)")
    print(f"decided by growing as the reference: {like_reference}; by the own fit: the rest")
    for label in LADDER:
        if label in confusion:
            row = ", ".join(f"{cls}: {count}" for cls, count in confusion[label].most_common())
            print(f"  {label:11} {row}")
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(
        f"seconds per candidate: mean {statistics.mean(seconds):.2f}, p95 {p95:.2f}, "
        f"max {max(seconds):.2f} (goal: at most 3 s)"
    )
    print(
        f"reference, once per problem: mean {statistics.mean(reference_seconds):.2f}, "
        f"max {max(reference_seconds):.2f}; first candidate of a problem with it: "
        f"mean {statistics.mean(first_seconds):.2f}, max {max(first_seconds):.2f}"
    )
    print(
        f"plots: {len(plot_seconds)} PNG files in {args.plots}, "
        f"mean {statistics.mean(plot_seconds) * 1000:.0f} ms to draw"
    )
    if wrong:
        print("misclassified: " + "; ".join(wrong))


if __name__ == "__main__":
    main()
