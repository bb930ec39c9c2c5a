"""Write the empirical benchmark's problems as JSON lines, each with example tests.

Every problem of ``complexity_model/empirical/problems/`` becomes one line: the problem as the
service takes it (mode, entry point, reference, optimal class, its author's input generator),
four example tests (the generator's inputs at n = 3, 5, 6 and 8, each with the reference's
answer, as a statement's examples would be) and its labelled solutions. ``judge complexity
evaluate --backend empirical --derive`` drops the generators and derives them from the tests.

    .venv/bin/python bench/make_empirical_problems.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from complexity_model.empirical.problems import BENCHMARK, Case, problem_of

OUT = (
    Path(__file__).resolve().parent.parent
    / "complexity_model"
    / "data"
    / "empirical_problems.jsonl"
)


def _answer(case: Case, reference: str, value: Any) -> Any:
    if case.entry_point is None:
        done = subprocess.run(
            [sys.executable, "-c", reference],
            input=value,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout
    namespace: dict[str, Any] = {"__name__": "solution"}
    exec(reference, namespace)
    return namespace[case.entry_point](*json.loads(json.dumps(value)))


def _row(case: Case) -> dict[str, Any]:
    problem = problem_of(case)
    generated: dict[str, Any] = {}
    exec(case.generator, generated)
    python_reference = case.reference or case.solutions.get(case.optimal, "")
    tests = []
    for n in (3, 5, 6, 8):
        random.seed(10_000 + n)
        value = generated["generate"](n)
        answer = _answer(case, python_reference, value)
        if case.entry_point is None:
            tests.append({"input": value, "output": answer})
        else:
            tests.append({"args": json.loads(json.dumps(value)), "expected": answer})
    solutions = [
        {"language": language, "label": label, "code": code}
        for language, label, code in case.pairs()
    ]
    return {
        **problem.model_dump(mode="json", exclude={"tests"}),
        "tests": tests,
        "solutions": solutions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    with args.out.open("w", encoding="utf-8") as handle:
        for case in BENCHMARK:
            handle.write(json.dumps(_row(case)) + "\n")
    print(f"wrote {len(BENCHMARK)} problems to {args.out}")


if __name__ == "__main__":
    main()
