"""Cross-validate the static analyser on the CodeComplex dev half: accuracy per fold, per language.

The analyser has no fitted parameters, so a fold's accuracy is its accuracy on that fold's
programs; the spread across the five folds says how much a number on 90 programs moves with
which programs are in it (the kept-aside half is scored by whoever holds it, with
``judge complexity evaluate --data``). Beside it, a small learned combiner (multinomial
logistic regression over the analyser's own evidence: its class, loop nesting, the bounds of
its loops, recursion, library calls) is trained on four folds and scored on the fifth, to see
whether learning over the analyser's features generalises better than its rules; it is a
measurement, not shipped. Folds are stratified by language and class, seeded.

    .venv/bin/python bench/static_cv.py [--data PATH] [--folds 5] [--baseline SRC]

``--baseline SRC`` scores the analyser of another source tree (``git archive main
complexity_model judge_service | tar -x -C SRC``) on the same folds in the same run, printed
first, so a change is compared fold by fold; each block ends with the precision and recall of
every class.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from complexity_model.evaluate import DEFAULT_DATA
from complexity_model.ladder import LADDER, ComplexityEstimate
from complexity_model.static import StaticComplexityJudge

_BOUNDS = ("1", "log n", "sqrt n", "n", "n log n", "n^2", "2^n")


def features(estimate: ComplexityEstimate) -> list[float]:
    evidence = estimate.evidence
    row = [float(estimate.predicted == cls) for cls in LADDER]
    loops = evidence.get("loops", []) if isinstance(evidence.get("loops"), list) else []
    bounds = [str(loop.get("bound", "")) for loop in loops if isinstance(loop, dict)]
    row += [float(sum(b == name for b in bounds)) for name in _BOUNDS]
    row.append(float(evidence.get("max_loop_nesting", 0) or 0))
    row.append(float(bool(evidence.get("recursion"))))
    row.append(float(len(evidence.get("library_calls", []) or [])))
    row.append(float(len(evidence.get("test_case_loops", []) or [])))
    row.append(1.0)
    return row


def _train(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 400) -> np.ndarray:
    weights = np.zeros((x.shape[1], len(LADDER)))
    onehot = np.eye(len(LADDER))[y]
    for _ in range(steps):
        logits = x @ weights
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        weights -= 0.1 * (x.T @ (p - onehot) / len(y) + l2 * weights / len(y))
    return weights


def _folds(rows: list[dict[str, Any]], k: int, seed: int) -> list[int]:
    by_group: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        by_group[(row["language"], row["complexity"])].append(index)
    fold = [0] * len(rows)
    rng = random.Random(seed)
    for members in by_group.values():
        rng.shuffle(members)
        for position, index in enumerate(members):
            fold[index] = position % k
    return fold


def _per_class(rows: list[dict[str, Any]], predicted: list[str], language: str) -> str:
    parts = []
    for cls in LADDER:
        pairs = [(r["complexity"], p) for r, p in zip(rows, predicted, strict=True)]
        pairs = [pair for pair, r in zip(pairs, rows, strict=True) if r["language"] == language]
        hits = sum(label == cls and guess == cls for label, guess in pairs)
        said = sum(guess == cls for _, guess in pairs)
        real = sum(label == cls for label, _ in pairs)
        precision = f"{hits / said:.2f}" if said else "-"
        recall = f"{hits / real:.2f}" if real else "-"
        parts.append(f"{cls} P {precision} R {recall} ({real})")
    return "; ".join(parts)


def _baseline(source: Path, data: Path) -> list[ComplexityEstimate]:
    """The estimates of the analyser in another source tree, in a process of its own."""
    script = (
        "import json,sys\n"
        "from complexity_model.static import StaticComplexityJudge\n"
        "j=StaticComplexityJudge()\n"
        "rows=[json.loads(x) for x in open(sys.argv[1]) if x.strip()]\n"
        "print(json.dumps([[e.predicted,e.confidence,e.method,e.evidence] for e in "
        "(j.estimate(r['code'],r['language']) for r in rows)],default=str))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(data.resolve())],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin"},
        cwd=source,
    )
    return [ComplexityEstimate(*row) for row in json.loads(out.stdout)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", type=Path, default=None)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    if args.baseline is not None:
        print(f"== baseline ({args.baseline})")
        _report(rows, _baseline(args.baseline, args.data), args.folds, args.seed)
        print("== this tree")
    judge = StaticComplexityJudge()
    _report(
        rows, [judge.estimate(row["code"], row["language"]) for row in rows], args.folds, args.seed
    )


def _report(
    rows: list[dict[str, Any]], estimates: list[ComplexityEstimate], folds: int, seed: int
) -> None:
    predicted = [e.predicted for e in estimates]
    x = np.array([features(e) for e in estimates])
    y = np.array([LADDER.index(row["complexity"]) for row in rows])
    fold = _folds(rows, folds, seed)
    for language in sorted({row["language"] for row in rows}):
        rule, learned = [], []
        for k in range(folds):
            test = [i for i, r in enumerate(rows) if fold[i] == k and r["language"] == language]
            train = [i for i, r in enumerate(rows) if fold[i] != k and r["language"] == language]
            rule.append(
                statistics.fmean(estimates[i].predicted == rows[i]["complexity"] for i in test)
            )
            weights = _train(x[train], y[train])
            guess = (x[test] @ weights).argmax(axis=1)
            learned.append(float((guess == y[test]).mean()))
        whole = [i for i, r in enumerate(rows) if r["language"] == language]
        full = statistics.fmean(estimates[i].predicted == rows[i]["complexity"] for i in whole)
        print(
            f"{language}: analyser full-dev {full:.3f}; per fold "
            f"{' '.join(f'{a:.3f}' for a in rule)} (mean {statistics.fmean(rule):.3f}, "
            f"sd {statistics.stdev(rule):.3f}); combiner CV "
            f"{' '.join(f'{a:.3f}' for a in learned)} (mean {statistics.fmean(learned):.3f}, "
            f"sd {statistics.stdev(learned):.3f})"
        )
        print(f"  {_per_class(rows, predicted, language)}")


if __name__ == "__main__":
    main()
