"""The empirical complexity judge on its benchmark problems: accuracy and seconds per candidate.

Every solution of ``complexity_model/empirical/problems/`` (known class, O(1) to O(2^n);
Python function and stdin problems, C++ stdin solutions) is timed in the sandbox and
classified, its answers checked against the reference's; prints the exact-class accuracy
(goal: at least 95%), the confusion of each class, and the wall time per candidate, sandbox
included (goal: at most 3 s on this machine). The first candidate of a problem also pays for
measuring the reference (kept for the problem's other candidates), and for a C++ candidate the
compilation and the generation of the inputs.

    .venv/bin/python bench/empirical_complexity.py [--only PROBLEM_ID] [--language cpp]
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
    parser.add_argument("--language", default=None, help="only solutions in this language")
    parser.add_argument(
        "--max-n", type=int, default=None, help="largest size (default: the judge's)"
    )
    args = parser.parse_args()
    cases = [case for case in BENCHMARK if args.only in (None, case.id)]
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    seconds: list[float] = []
    wrong: list[str] = []
    by_language: Counter[str] = Counter()
    with SandboxPool(Settings(sandboxes_per_language=1)) as pool:
        pool.warm(["python", "cpp"])
        judge = (
            EmpiricalComplexityJudge(pool, max_n=args.max_n)
            if args.max_n
            else EmpiricalComplexityJudge(pool)
        )
        for case in cases:
            problem = problem_of(case)
            for language, label, code in case.pairs():
                if args.language not in (None, language):
                    continue
                started = time.perf_counter()
                estimate = judge.estimate(code, language, problem)
                seconds.append(time.perf_counter() - started)
                confusion[label][estimate.predicted] += 1
                mark = "ok " if estimate.predicted == label else "BAD"
                if estimate.predicted != label:
                    wrong.append(f"{case.id} {language} {label} -> {estimate.predicted}")
                by_language[language] += 1
                print(
                    f"{mark} {case.id:24} {language:6} {label:11} -> {estimate.predicted:11} "
                    f"conf {estimate.confidence:.2f}  {seconds[-1]:.2f} s  "
                    f"{len(estimate.evidence.get('sizes', []))} sizes"
                    + (
                        f"  ({estimate.evidence['reason']})"
                        if "reason" in estimate.evidence
                        else ""
                    )
                )
    total = len(seconds)
    right = sum(confusion[label][label] for label in confusion)
    languages = ", ".join(f"{language} {count}" for language, count in by_language.items())
    print(f"\nproblems: {len(cases)}, candidates: {total} ({languages})")
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
