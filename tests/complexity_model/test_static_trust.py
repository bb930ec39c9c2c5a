"""A static estimate decides R_time only where its held-out precision clears the bar."""

from __future__ import annotations

import json

from complexity_model.ensemble import EnsembleComplexityJudge
from complexity_model.ladder import ComplexityEstimate
from complexity_model.static import StaticComplexityJudge
from complexity_model.static._trust import TRUST_FILE, reward_trust
from complexity_model.static.calibrate import (
    MIN_PRECISION,
    MIN_SUPPORT,
    Labelled,
    bucket_table,
    cross_validate,
    labelled,
)
from judge_service.complexity import to_output
from rl_client.types import Complexity

# Read as linear (one loop over the rows); the grid's cells make it O(n * m), which CodeComplex
# labels quadratic: the shape of the analyser's commonest miss.
GRID = (
    "n, m = map(int, input().split())\ntotal = 0\nfor _ in range(n):\n"
    "    row = input()\n    total += row.count('#')\nprint(total)\n"
)
HALVING = "n = int(input())\nc = 0\nwhile n > 1:\n    n //= 2\n    c += 1\nprint(c)\n"


def _rows(bucket: str, right: int, wrong: int) -> list[Labelled]:
    return [Labelled(bucket, True)] * right + [Labelled(bucket, False)] * wrong


def test_a_bucket_pays_at_the_bar_with_enough_programs() -> None:
    table = bucket_table(
        _rows("O(n) iterative", 19, 1) + _rows("O(1) iterative", 9, 1) + _rows("O(2^n) x", 9, 0)
    )
    assert table["O(n) iterative"] == {"support": 20, "precision": 0.95, "pays": True}
    assert not table["O(1) iterative"]["pays"]  # 0.90
    assert not table["O(2^n) x"]["pays"]  # too few to tell (9 < MIN_SUPPORT)


def test_cross_validation_scores_the_rule_on_held_out_folds() -> None:
    rows = _rows("sure", 60, 0) + _rows("doubtful", 30, 30)
    report = cross_validate(rows, folds=5, seeds=3)
    assert report["paid_precision"] == 1.0
    assert abs(report["abstains"] - 60 / 120) < 0.05


def test_the_shipped_table_pays_only_buckets_that_clear_the_bar() -> None:
    document = json.loads(TRUST_FILE.read_text())
    assert document["rule"] == {"min_precision": MIN_PRECISION, "min_support": MIN_SUPPORT}
    assert document["cross_validated"]["paid_precision"] >= MIN_PRECISION
    for bucket, figures in document["buckets"].items():
        clears = figures["support"] >= MIN_SUPPORT and figures["precision"] >= MIN_PRECISION
        assert figures["pays"] == clears, bucket


def test_labels_compare_the_truth_with_the_prediction() -> None:
    estimate = ComplexityEstimate("O(n)", 0.8, "static", {})
    assert labelled(estimate, "quadratic") == Labelled("O(n) iterative", False)
    assert labelled(estimate, "O(1)") == Labelled("O(n) iterative", True)
    assert labelled(ComplexityEstimate("unknown", 0.0, "static", {}), "O(n)") is None


def test_the_analysers_commonest_miss_pays_no_time_reward() -> None:
    """Before: read O(n) against an optimal O(n), R_time 1.0 for an O(n * m) program."""
    static = StaticComplexityJudge().estimate(GRID, "python")
    assert static.predicted == "O(n)" and not reward_trust(static)["pays"]
    decided = EnsembleComplexityJudge(static=StaticComplexityJudge()).estimate(GRID, "python")
    out = to_output(decided, "O(n)")
    assert out.decided_by == "static" and out.predicted == "O(n)"
    assert out.time_reward_abstained and "static analyser" in out.time_reward_abstained
    # The SFT filter and the trainer's stage 2 read it the same way: not time-optimal.
    assert not Complexity.from_wire(out.model_dump()).meets_reference


def test_a_trusted_static_class_decides() -> None:
    decided = EnsembleComplexityJudge(static=StaticComplexityJudge()).estimate(HALVING, "python")
    out = to_output(decided, "O(log n)")
    assert (out.predicted, out.time_reward_abstained) == ("O(log n)", None)
    assert Complexity.from_wire(out.model_dump()).meets_reference
