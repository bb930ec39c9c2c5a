"""The empirical complexity judge on its benchmark problems: accuracy and seconds per candidate.

Every solution of ``complexity_model/empirical/problems.py`` (known class, O(1) to O(2^n))
is timed in the sandbox and classified; prints the exact-class accuracy (goal: at least 95%),
the confusion of each class, and the wall time per candidate, sandbox included (goal: at most
3 s on this machine).

    .venv/bin/python bench/empirical_complexity.py [--only PROBLEM_ID]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter, defaultdict

from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.empirical.problems import BENCHMARK, problem_of
from complexity_model.ladder import LADDER
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default=None, help="run one problem")
    parser.add_argument(
        "--max-n", type=int, default=None, help="largest size (default: the judge's)"
    )
    args = parser.parse_args()
    cases = [case for case in BENCHMARK if args.only in (None, case.id)]
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    seconds: list[float] = []
    wrong: list[str] = []
    with SandboxPool(Settings(sandboxes_per_language=1)) as pool:
        pool.warm(["python"])
        judge = (
            EmpiricalComplexityJudge(pool, max_n=args.max_n)
            if args.max_n
            else EmpiricalComplexityJudge(pool)
        )
        for case in cases:
            problem = problem_of(case)
            for label, code in case.solutions.items():
                started = time.perf_counter()
                estimate = judge.estimate(code, "python", problem)
                seconds.append(time.perf_counter() - started)
                confusion[label][estimate.predicted] += 1
                mark = "ok " if estimate.predicted == label else "BAD"
                if estimate.predicted != label:
                    wrong.append(f"{case.id} {label} -> {estimate.predicted}")
                print(
                    f"{mark} {case.id:22} {label:11} -> {estimate.predicted:11} "
                    f"conf {estimate.confidence:.2f}  {seconds[-1]:.2f} s  "
                    f"{len(estimate.evidence.get('sizes', []))} sizes"
                )
    total = len(seconds)
    right = sum(confusion[label][label] for label in confusion)
    print(f"\nproblems: {len(cases)}, candidates: {total}")
    print(f"exact-class accuracy: {right}/{total} = {right / total:.1%} (goal: at least 95%)")
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
    if wrong:
        print("misclassified: " + "; ".join(wrong))


if __name__ == "__main__":
    main()
